package store

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"strconv"
)

// # The file, and how a damaged one is told from a crash
//
// buntdb keeps an append-only file of commands (set, del, flushdb) in the Redis RESP
// format and reads it back leniently: it skips NUL bytes (so a file of zeros loads as
// an empty database, which the sandbox would then fill over), truncates the file at
// the first incomplete command without saying so (a file cut in half loses its second
// half silently), and cannot see bytes changed inside a value. So the store checks
// the file itself before buntdb reads it:
//
//   - The first command is a header, set under headerKey: a file that does not start
//     with it was not written by the sandbox and is never opened, so never
//     overwritten. The key sorts before every other key, so buntdb's compaction
//     (which rewrites keys in order) keeps it first; DeleteAll sets it again.
//   - Every other value starts with 8 hex digits, the CRC-32C of its key and the rest
//     of the value: a changed byte anywhere in a record is caught at open.
//   - The header holds a slot, zero while the file is in use, that Close sets to the
//     file's length. A file whose slot is set was closed cleanly: it must be exactly
//     that long and end on a whole command. A file whose slot is zero was left by a
//     crash (kill -9): its last write may be torn, and a torn last command (or a tail
//     of NUL bytes, what an OS crash can leave) is cut off and reported, as buntdb
//     would; anything else wrong is damage.
//
// Damage stops the open with a DamagedError naming the file and the byte offset;
// Salvage (gpsandbox repair) copies what is readable into a new file. The header
// also names the file's format (header.go): a file of a later format than this
// binary's is refused with a NewerFormatError.

func appendCommand(buf []byte, parts ...string) []byte {
	buf = append(buf, '*')
	buf = strconv.AppendInt(buf, int64(len(parts)), 10)
	buf = append(buf, '\r', '\n')
	for _, p := range parts {
		buf = append(buf, '$')
		buf = strconv.AppendInt(buf, int64(len(p)), 10)
		buf = append(buf, '\r', '\n')
		buf = append(buf, p...)
		buf = append(buf, '\r', '\n')
	}
	return buf
}

// Record checksums: CRC-32C (Castagnoli) of key, a NUL, and the payload, as 8
// lower-case hex digits in front of the payload.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

const sumDigits = 8

func recordSum(key, payload string) uint32 {
	h := crc32.New(castagnoli)
	io.WriteString(h, key)
	h.Write([]byte{0})
	io.WriteString(h, payload)
	return h.Sum32()
}

// seal returns the stored form of payload at key.
func seal(key, payload string) string {
	var b [sumDigits]byte
	hexSum(b[:], recordSum(key, payload))
	return string(b[:]) + payload
}

// unseal returns the payload of a stored value. The checksum was checked when the
// file was opened; what is in memory is trusted.
func unseal(key, stored string) (string, error) {
	if len(stored) < sumDigits {
		return "", fmt.Errorf("store: %s: value too short for its checksum", key)
	}
	return stored[sumDigits:], nil
}

func hexSum(dst []byte, sum uint32) {
	const digits = "0123456789abcdef"
	for i := sumDigits - 1; i >= 0; i-- {
		dst[i] = digits[sum&0xf]
		sum >>= 4
	}
}

// sealedOK reports whether a stored value carries the right checksum for key. The
// open of a large file runs it on every record: it allocates nothing.
func sealedOK(key, stored []byte) bool {
	if len(stored) < sumDigits {
		return false
	}
	sum := crc32.Update(crcNUL(crc32.Update(0, castagnoli, key)), castagnoli, stored[sumDigits:])
	var want [sumDigits]byte
	hexSum(want[:], sum)
	return string(stored[:sumDigits]) == string(want[:]) // only the lower-case digits hexSum writes match
}

// crcNUL is crc32.Update(crc, castagnoli, []byte{0}) without the slice, which that
// call would put on the heap (crc32 hands it to a function value).
func crcNUL(crc uint32) uint32 {
	crc = ^crc
	return ^(castagnoli[byte(crc)] ^ crc>>8)
}

// crcString is crc32.Update(crc, castagnoli, []byte(s)) without the copy: a byte at
// a time from the table, which for a key's few dozen bytes costs less than the copy
// would.
func crcString(crc uint32, s string) uint32 {
	crc = ^crc
	for i := 0; i < len(s); i++ {
		crc = castagnoli[byte(crc)^s[i]] ^ crc>>8
	}
	return ^crc
}

// DamagedError reports a database file the store refuses to open.
type DamagedError struct {
	Path   string
	Offset int64 // where the problem starts, in bytes from the file's start
	Reason string
}

func (e *DamagedError) Error() string {
	return fmt.Sprintf("%s: %s at byte %d; nothing was changed. `gpsandbox repair --db %s` copies what is readable to a new file; or move the file away to start afresh",
		e.Path, e.Reason, e.Offset, e.Path)
}

// TornWrite describes the tail of a file left by a crash during its last write,
// which the store cut off when it opened the file: that write was never reported
// as done.
type TornWrite struct {
	Offset  int64  // where the cut tail started
	Bytes   int64  // how many bytes were cut
	SavedAs string // the file the cut bytes were copied to
}

// fileCheck is what checking a file found.
type fileCheck struct {
	size      int64
	format    int          // the header's format number
	closedAt  int64        // the slot: 0 when the file was not closed cleanly
	validEnd  int64        // the end of the last whole command
	records   int          // commands read
	tailStart int64        // validEnd when the tail after it is torn; -1 when none
	live      *liveRecords // the commands a replay keeps, when the file may be worth compacting; else nil
}

// errTorn ends a scan at an incomplete command: the file ends inside it.
var errTorn = errors.New("file ends inside a command")

// checkCommand checks one whole command, read at offset at; first says whether it is
// the file's first command.
func checkCommand(parts [][]byte, at int64, first bool) error {
	damaged := func(reason string) error { return &DamagedError{Offset: at, Reason: reason} }
	if first {
		if err := newerHeader(parts); err != nil {
			return err
		}
		if len(parts) != 3 || string(parts[0]) != "set" || string(parts[1]) != headerKey || !validHeader(parts[2]) {
			return damaged("not a gp-sandbox database (no gp-sandbox header)")
		}
		return nil
	}
	switch string(parts[0]) {
	case "flushdb":
		if len(parts) != 1 {
			return damaged("a malformed flushdb command")
		}
	case "del":
		if len(parts) != 2 {
			return damaged("a malformed del command")
		}
	case "set":
		if len(parts) != 3 && len(parts) != 5 {
			return damaged("a malformed set command")
		}
		if len(parts) == 5 && (string(parts[3]) != "ae" && string(parts[3]) != "ex" || !allDigits(parts[4])) {
			return damaged("a malformed expiry")
		}
		if string(parts[1]) == headerKey {
			if !validLaterHeader(parts[2]) {
				return damaged("a malformed gp-sandbox header")
			}
		} else if !sealedOK(parts[1], parts[2]) {
			return damaged(fmt.Sprintf("a record whose checksum does not match (key %.60q)", parts[1]))
		}
	default:
		return damaged(fmt.Sprintf("an unknown command %.20q", parts[0]))
	}
	return nil
}

func allDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(b) > 0
}

// checkFile reads the whole file at path and checks it (see the top of this file).
// With noteLive it also notes, in c.live, the commands a replay keeps, for a file that
// may be worth compacting at open (reopen.go).
func checkFile(f *os.File, path string, noteLive bool) (c fileCheck, err error) {
	fi, err := f.Stat()
	if err != nil {
		return fileCheck{}, err
	}
	c = fileCheck{size: fi.Size(), tailStart: -1}
	if noteLive && c.size >= autoShrinkMinSize {
		// Noting every key costs far more than the check itself: not for a file
		// too small to compact.
		c.live = newLiveRecords()
	}
	sc := newScanner(f, c.size)
	for {
		at := sc.offset
		err := sc.next()
		if err == io.EOF {
			break
		}
		if err == errTorn {
			if c.records == 0 {
				return c, &DamagedError{Path: path, Offset: 0, Reason: "not a gp-sandbox database (no gp-sandbox header)"}
			}
			c.tailStart = at
			break
		}
		var d *DamagedError
		if errors.As(err, &d) {
			if c.records > 0 && d.Offset == at && c.closedAt == 0 && onlyNULs(f, at, c.size) {
				c.tailStart = at // zeros where the last write should be: an OS crash
				break
			}
			if c.records == 0 {
				d.Offset, d.Reason = 0, "not a gp-sandbox database (no gp-sandbox header)"
			}
			d.Path = path
			return c, d
		}
		if err := checkCommand(sc.parts, at, c.records == 0); err != nil {
			return c, withPath(err, path)
		}
		if c.records == 0 {
			c.format, _ = headerFormatOf(sc.parts[2])
			c.closedAt, _ = strconv.ParseInt(string(sc.parts[2][len(headerPrefix):]), 10, 64)
			if c.closedAt != 0 {
				// Close compacts a file past autoShrinkMinSize before it marks it
				// closed (store.go): a file closed cleanly is mostly live.
				c.live = nil
			}
		} else if c.live != nil {
			c.live.note(sc.parts, at, sc.offset)
		}
		c.records++
		c.validEnd = sc.offset
	}
	return c, c.judgeEnd(path)
}

// withPath names path in an error of checkCommand.
func withPath(err error, path string) error {
	var d *DamagedError
	var n *NewerFormatError
	switch {
	case errors.As(err, &d):
		d.Path = path
	case errors.As(err, &n):
		n.Path = path
	}
	return err
}

// judgeEnd decides whether the file ends as a file closed cleanly, or left by a crash,
// may end.
func (c fileCheck) judgeEnd(path string) error {
	if c.closedAt == 0 {
		return nil // in use when the process stopped: a torn tail is allowed
	}
	switch {
	case c.size < c.closedAt:
		return &DamagedError{Path: path, Offset: c.size, Reason: fmt.Sprintf("the file ends early: it was %d bytes long when closed", c.closedAt)}
	case c.tailStart >= 0:
		return &DamagedError{Path: path, Offset: c.tailStart, Reason: "an incomplete command in a file that was closed cleanly"}
	case c.size > c.closedAt:
		return &DamagedError{Path: path, Offset: c.closedAt, Reason: "bytes written after the file was closed"}
	}
	return nil
}

// onlyNULs reports whether the file's bytes from at to size are all zero.
func onlyNULs(f *os.File, at, size int64) bool {
	r := bufio.NewReader(io.NewSectionReader(f, at, size-at))
	for {
		c, err := r.ReadByte()
		if err == io.EOF {
			return true
		}
		if err != nil || c != 0 {
			return false
		}
	}
}

// prepareFile checks the file at path before buntdb reads it, then moves it to the
// format this binary writes (header.go), marks it in use (slot zero), cuts a torn
// tail, and compacts it when most of it is dead (reopen.go). It returns the torn
// write it cut, if any. A missing or empty file is left for buntdb to start.
func prepareFile(path string) (torn *TornWrite, err error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	compacted := false
	defer func() {
		if compacted {
			// The compaction took the old file out of the directory: its blocks are
			// freed when this, its last descriptor, closes, about 250 ms a GiB here.
			// That is left to run beside the rest of the start.
			go f.Close()
		} else {
			f.Close()
		}
	}()
	c, err := checkFile(f, path, true)
	if err != nil {
		return nil, err
	}
	if c.size == 0 {
		return nil, nil
	}
	if c.format < headerFormat {
		if err := writeFormat(f); err != nil { // before anything of the new format is written
			return nil, err
		}
	}
	if c.closedAt != 0 {
		if err := writeSlot(f, 0); err != nil {
			return nil, err
		}
	}
	if c.tailStart >= 0 {
		torn = &TornWrite{Offset: c.tailStart, Bytes: c.size - c.tailStart, SavedAs: fmt.Sprintf("%s.torn-%d", path, c.tailStart)}
		if err := saveTail(f, torn); err != nil {
			return nil, fmt.Errorf("keep the torn last write of %s: %w", path, err)
		}
		if err := f.Truncate(c.tailStart); err != nil {
			return nil, fmt.Errorf("cut the torn last write of %s: %w", path, err)
		}
	}
	if err := f.Sync(); err != nil {
		return nil, err
	}
	if c.live.worthCompacting(c.validEnd) {
		// A failed compaction leaves the file as it was, only slower to load.
		compacted = compactAtOpen(f, path, c.live) == nil
	}
	return torn, nil
}

// saveTail copies the torn tail to its own file before the store cuts it, so that
// not even an unacknowledged write's bytes are lost without a trace.
func saveTail(f *os.File, torn *TornWrite) error {
	out, err := os.OpenFile(torn.SavedAs, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, io.NewSectionReader(f, torn.Offset, torn.Bytes))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// markClosed records the file's length in its header, once buntdb has closed it: the
// next open then knows the file was closed cleanly and how long it must be.
func markClosed(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	head := make([]byte, slotOffset)
	if _, err := io.ReadFull(f, head); err != nil || !bytes.Equal(head, headerCommand(0)[:slotOffset]) {
		return fmt.Errorf("store: %s does not start with its header at close", path)
	}
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if err := writeSlot(f, fi.Size()); err != nil {
		return err
	}
	return f.Sync()
}
