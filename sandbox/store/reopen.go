package store

import (
	"bufio"
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// # Compaction at open
//
// A file left by kill -9 under sustained load has not been compacted for a while
// (the compactor waits for the store to be idle, compactor.go), so most of it is
// earlier values of the same keys: a million keyed adjustments left a 1 GiB file
// whose live records were under a tenth of it. buntdb replays every command of a
// file when it opens it, about 6 s per GiB here, where the check before it (file.go)
// reads the same bytes in under one.
//
// So the check also notes where each key's last command is (liveRecords), and when
// at least half the file is dead, Open copies the live commands, byte for byte and
// in the order they were written, to a new file that replaces the old one before
// buntdb reads it: buntdb then loads exactly the state it would have loaded from
// the old file. The copy is written beside the file, synced, and renamed over it
// (as buntdb's own compaction does), so a crash meanwhile leaves the old file whole.
// Noting the keys costs the check more than its reading, so it is skipped where a
// compaction cannot follow: a file under autoShrinkMinSize, or one closed cleanly
// (Close compacts the file before it marks it closed).
//
// A file holding a time to live relative to the file's modification time ("ex",
// written by buntdb before 1.2; the sandbox's files say "ae", an absolute time) is
// left as it is: a copy has a new modification time.

// liveRecords follows, command by command, which commands of a file buntdb's replay
// keeps: each key's last set, unless a del or a flushdb came after it. The header's
// command is not among them: a compacted file starts with a header of its own.
type liveRecords struct {
	index    map[string]int // key -> its slot in spans
	spans    []span         // the last command of each key; n == 0 once deleted
	bytes    int64          // the live commands' bytes
	relative bool           // a relative time to live ("ex") was seen
}

// span is a command's place in the file.
type span struct{ off, n int64 }

func newLiveRecords() *liveRecords { return &liveRecords{index: map[string]int{}} }

// note takes in a checked command, parts, that spans the file's bytes [off, end).
func (l *liveRecords) note(parts [][]byte, off, end int64) {
	switch string(parts[0]) {
	case "flushdb":
		clear(l.index)
		l.spans, l.bytes = l.spans[:0], 0
	case "del":
		if i, ok := l.index[string(parts[1])]; ok {
			l.bytes -= l.spans[i].n
			l.spans[i] = span{}
		}
	case "set":
		if string(parts[1]) == headerKey {
			return
		}
		if len(parts) == 5 && string(parts[3]) == "ex" {
			l.relative = true
		}
		i, ok := l.index[string(parts[1])]
		if !ok {
			i = len(l.spans)
			l.index[string(parts[1])] = i
			l.spans = append(l.spans, span{})
		}
		l.bytes += end - off - l.spans[i].n
		l.spans[i] = span{off: off, n: end - off}
	}
}

// worthCompacting reports whether a file of size bytes holding these records is
// to be compacted before buntdb replays it: at least half of it dead, and at least
// as large as the compactor's smallest. Records not noted (nil) are not.
func (l *liveRecords) worthCompacting(size int64) bool {
	return l != nil && !l.relative && size >= autoShrinkMinSize && 2*l.bytes <= size
}

// compactAtOpen replaces the file at path, open as f, with its header and its live
// commands (see the top of this file). On error the file at path is as it was.
func compactAtOpen(f *os.File, path string, live *liveRecords) (err error) {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	tmp := path + ".tmp" // the scratch name buntdb's compaction uses too
	out, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, fi.Mode().Perm())
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = out.Close()
			_ = os.Remove(tmp)
		}
	}()
	if err := copyLive(out, f, live); err != nil {
		return fmt.Errorf("copy the live records of %s: %w", path, err)
	}
	if err := out.Sync(); err != nil {
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	return syncDir(filepath.Dir(path))
}

// copyLive writes a header in use and the live commands of f, in file order, to out.
func copyLive(out, f *os.File, live *liveRecords) error {
	spans := slices.DeleteFunc(slices.Clone(live.spans), func(s span) bool { return s.n == 0 })
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.off, b.off) })
	w := bufio.NewWriterSize(out, 1<<20)
	if _, err := w.Write(headerCommand(0)); err != nil {
		return err
	}
	var buf []byte
	for i := 0; i < len(spans); {
		// Commands next to each other in the file are read at once.
		run := spans[i]
		for i++; i < len(spans) && spans[i].off == run.off+run.n && run.n < 1<<20; i++ {
			run.n += spans[i].n
		}
		buf = slices.Grow(buf[:0], int(run.n))[:run.n]
		if _, err := f.ReadAt(buf, run.off); err != nil {
			return err
		}
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	return w.Flush()
}

// syncDir fsyncs a directory, so that a rename in it survives an OS crash.
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
