package yamlfile

import (
	"fmt"
	"io"
	"io/fs"
)

// Limits on scenario files. Parsing YAML costs about fifty times the size of the file
// in memory while the file is read, so these bounds keep gpsandbox validate and a hot
// reload within tens of megabytes whatever the directory holds: a file over a limit
// is refused with a problem naming it and the limit, before it is parsed.
const (
	// MaxScenarioFileSize bounds one scenario file (or one scenario posted to the
	// admin API).
	MaxScenarioFileSize = 128 << 10
	// MaxScenarioDirSize bounds the scenario files of a directory together.
	MaxScenarioDirSize = 1 << 20
	// MaxScenarioRules bounds the rules of one file, and MaxScenarioDirRules those of
	// a directory together.
	MaxScenarioRules    = 1000
	MaxScenarioDirRules = 10000
)

// fileLimits bounds the files eachYAMLFile reads; zero means no bound.
type fileLimits struct {
	file, total int64
}

var scenarioLimits = fileLimits{file: MaxScenarioFileSize, total: MaxScenarioDirSize}

// readBounded reads a file of fsys, refusing it when it is not a regular file or is
// larger than limit: its size is looked at before it is read, and the read stops at the limit should the
// file grow meanwhile.
func readBounded(fsys fs.FS, name string, limit int64) ([]byte, error) {
	// Looked at before it is opened: opening a named pipe waits for a writer, which
	// would hold a start, a reload or a shutdown for as long.
	if info, err := fs.Stat(fsys, name); err == nil && !info.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file (%s)", info.Mode().Type())
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if limit <= 0 {
		return io.ReadAll(f)
	}
	if info, err := f.Stat(); err == nil && info.Size() > limit {
		return nil, &tooLargeError{size: info.Size(), limit: limit}
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err == nil && int64(len(data)) > limit {
		return nil, &tooLargeError{size: int64(len(data)), limit: limit, atLeast: true}
	}
	return data, err
}

type tooLargeError struct {
	size, limit int64
	atLeast     bool
}

func (e *tooLargeError) Error() string {
	more := ""
	if e.atLeast {
		more = "at least "
	}
	return fmt.Sprintf("%s%d bytes, over the limit of %s per scenario file", more, e.size, byteSize(e.limit))
}

// byteSize writes a limit in the unit it was set in.
func byteSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
