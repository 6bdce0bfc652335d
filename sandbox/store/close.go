package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/tidwall/buntdb"
)

// A clean close leaves a file that says it was closed whole, so that a start tells a
// file cut short or changed since from what a crash leaves. At Close the store writes
// the database afresh into a file beside it, as buntdb's Shrink would (its live
// records only), with two records of closeKey around them:
//
//	the mark
//	closeKey {"closing":true}               the opening: this file ends with a closing
//	every record, in key order              (buntdb's Save)
//	closeKey {"size":N,"crc32c":C}          the closing: N its own offset, C the CRC-32C
//	                                        of the N bytes before it
//
// and syncs it and renames it over the database. A start checks them (checkCloses):
// an opening with no closing after it is a file cut short since, which no crash does
// (a crash only loses what a later session appended, at the end); a closing not at
// its size, or after bytes that are not those it summed, is a file changed since. The
// records up to a closing that checks are proven byte for byte; the ones after it,
// written by a session that did not close cleanly, and every record of a file with no
// closing, are decoded one by one (records.go).
//
// The closing record buntdb loads at a start stays in its memory, where nothing reads
// it; a clean close leaves it out of what it writes, and the store deletes it before
// buntdb's own Shrink writes the file afresh, so that the opening and the closing only
// ever stand where a clean close put them.
const closeKey = markKey + "-close"

// closeValue is the value of a record of closeKey: the opening of a clean close
// (Closing), or its closing.
type closeValue struct {
	Closing bool   `json:"closing,omitempty"`
	Size    int64  `json:"size,omitempty"`
	CRC32C  uint32 `json:"crc32c,omitempty"`
}

var openingCommand = setCommand(closeKey, `{"closing":true}`)

// closeRecord is a record of closeKey as the scan found it.
type closeRecord struct {
	offset, end int64  // where its command starts and ends
	crc         uint32 // of the bytes before offset
	value       string
}

// checkCloses checks the clean closes the scan found (see above) and returns where
// the bytes it proves end: 0 when it proves none.
func (scan fileScan) checkCloses(path string) (proven int64, err error) {
	opened := false
	for _, r := range scan.closes {
		var v closeValue
		if err := json.Unmarshal([]byte(r.value), &v); err != nil {
			return 0, &DamagedError{Path: path, Offset: r.offset, Key: closeKey, Reason: "does not decode: " + err.Error()}
		}
		if v.Closing {
			opened = true
			continue
		}
		if v.Size != r.offset || v.CRC32C != r.crc {
			return 0, &DamagedError{Path: path, Offset: r.offset, Changed: true}
		}
		opened, proven = false, r.end
	}
	if opened {
		end := scan.end
		if scan.torn {
			end = scan.size
		}
		return 0, &DamagedError{Path: path, Offset: end, Cut: true}
	}
	return proven, nil
}

// forgetCloses deletes from db the closing record it loaded, before buntdb's Shrink
// writes the file afresh (see closeKey).
func forgetCloses(db *buntdb.DB) error {
	return db.Update(func(t *buntdb.Tx) error { return del(t, closeKey) })
}

// scanClosed reads the file of ra, size bytes, when it ends with the closing record
// of a clean close that proves every byte before it, checking that checksum only: the
// scan a clean close makes unneeded (see fileScan). It reports false for any other
// file, which scanFile reads.
func scanClosed(ra io.ReaderAt, size int64) (fileScan, bool) {
	const longest = 64 // a closing record's command is shorter
	tail := make([]byte, min(size, longest+int64(len(closingPrefix))))
	if _, err := ra.ReadAt(tail, size-int64(len(tail))); err != nil {
		return fileScan{}, false
	}
	at := bytes.LastIndex(tail, closingPrefix)
	var c command
	if at < 0 {
		return fileScan{}, false
	}
	n, _, err := parseCommand(tail[at:], &c)
	offset := size - int64(len(tail)-at)
	var v closeValue
	if err != nil || n != len(tail)-at || json.Unmarshal(c.parts[2], &v) != nil || v.Closing || v.Size != offset {
		return fileScan{}, false
	}
	sum := crc32.New(castagnoli)
	if _, err := io.CopyBuffer(sum, io.NewSectionReader(ra, 0, offset), make([]byte, scanWindow)); err != nil || sum.Sum32() != v.CRC32C {
		return fileScan{}, false
	}
	closing := closeRecord{offset: offset, end: size, crc: v.CRC32C, value: string(c.parts[2])}
	return fileScan{size: size, end: size, closes: []closeRecord{closing}}, true
}

// closingPrefix starts the command of every record of closeKey.
var closingPrefix = bytes.TrimSuffix(setCommand(closeKey, ""), []byte("0\r\n\r\n"))

// writeClosed writes db, as a clean close leaves it, to w. It writes nothing to db:
// a rescue (watch.go) may find no room left beside the file it lost.
func writeClosed(db *buntdb.DB, w io.Writer) error {
	sum := crc32.New(castagnoli)
	counted := &countingWriter{w: io.MultiWriter(w, sum)}
	if err := db.Save(&openingWriter{w: counted}); err != nil {
		return err
	}
	closing, err := json.Marshal(closeValue{Size: counted.n, CRC32C: sum.Sum32()})
	if err == nil {
		_, err = w.Write(setCommand(closeKey, string(closing)))
	}
	return err
}

// openingWriter passes buntdb's Save on with the opening record after the mark, and
// without the closing record db may still hold from the start: the mark is the first
// record Save writes (its key sorts first), that closing record the second, and its
// first write holds both whole.
type openingWriter struct {
	w       io.Writer
	started bool
}

func (o *openingWriter) Write(p []byte) (int, error) {
	if o.started {
		return o.w.Write(p)
	}
	o.started = true
	rest, ok := bytes.CutPrefix(p, []byte(markCommand))
	if !ok {
		return 0, errors.New("store: the database does not start with its mark")
	}
	if bytes.HasPrefix(rest, closingPrefix) {
		var c command
		n, _, err := parseCommand(rest, &c)
		if err != nil {
			return 0, fmt.Errorf("store: the record of a clean close: %w", err)
		}
		rest = rest[n:]
	}
	first := append(append([]byte(markCommand), openingCommand...), rest...)
	if _, err := o.w.Write(first); err != nil {
		return 0, err
	}
	return len(p), nil
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// writeClosedFile writes db as a clean close leaves it into f, a new file, syncs and
// closes it: whole, or removed and an error.
func writeClosedFile(db *buntdb.DB, f *os.File) error {
	err := writeClosed(db, f)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(f.Name())
	}
	return err
}

// rewriteClosed writes db as a clean close leaves it over the database file at path,
// through a temporary file renamed over it; on an error the file is left as it was.
// Nothing may write to db after: its file is no longer the one at path.
func rewriteClosed(db *buntdb.DB, path string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".closing-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // gone once renamed
	err = writeClosed(db, tmp)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err == nil {
		err = syncDir(filepath.Dir(path))
	}
	if err != nil {
		return fmt.Errorf("store: close %s: %w", path, err)
	}
	return nil
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// createBeside creates a new file beside the database at path, named for what it
// holds and when: <path>.<what>-<UTC time><ext>, with a number after the time when
// that name is taken; never over an existing file.
func createBeside(path, what, ext string) (*os.File, error) {
	stamp := time.Now().UTC().Format("20060102T150405Z")
	for n := 1; ; n++ {
		name := fmt.Sprintf("%s.%s-%s%s", path, what, stamp, ext)
		if n > 1 {
			name = fmt.Sprintf("%s.%s-%s-%d%s", path, what, stamp, n, ext)
		}
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if !errors.Is(err, fs.ErrExist) || n == 100 {
			return f, err
		}
	}
}
