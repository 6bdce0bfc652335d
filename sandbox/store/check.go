package store

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/tidwall/buntdb"
)

// A database file is checked before buntdb reads it, because buntdb takes whatever it
// is given: it loads a foreign file (4 KiB of zeros read as an empty database, and the
// next write appends to it), panics on a command whose name is shorter than three
// bytes, stops at the first malformed command with an error that names no place, and,
// when a length runs past the end, truncates the file there, dropping every record
// after.
//
// The file is buntdb's append-only log, RESP commands (*3\r\n$3\r\nset\r\n$<n>\r\n<key>
// \r\n$<n>\r\n<value>\r\n, set with "ex" or "ae" and a time, del, flushdb) that buntdb
// writes whole before Update returns. The scanner below reads them in one pass, as
// buntdb's loader does, with no allocation per command, and the check refuses the file,
// untouched, with a *DamagedError naming the offset of the first malformed command.
// What the records hold is checked after (close.go, records.go).
//
// The one damage it lets pass is a last command cut short, what a crash in the middle
// of a write leaves: that write was never acknowledged, and buntdb cuts it off. A
// kill -9 thus never leaves a file the sandbox refuses, and loses no write Update
// reported. A cut command followed by the start of another ("\r\n*") is not a torn
// tail but a damaged length, and is refused.
//
// Every file starts with the mark, so that a file the sandbox did not write is refused
// too. Its key sorts before every other so that buntdb's rewrites, which write keys in
// order, keep it first.
const (
	markKey   = "!gp-sandbox"
	markValue = `{"database":"gp-sandbox"}`
)

// markCommand is the mark as buntdb writes it.
var markCommand = string(setCommand(markKey, markValue))

// setCommand is a plain set of key to value as buntdb writes it.
func setCommand(key, value string) []byte {
	return fmt.Appendf(nil, "*3\r\n$3\r\nset\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n", len(key), key, len(value), value)
}

// putMark writes the mark unless it is there already.
func putMark(t *buntdb.Tx) error {
	if v, err := t.Get(markKey); err == nil && v == markValue {
		return nil
	}
	_, _, err := t.Set(markKey, markValue, nil)
	return err
}

var (
	errTorn      = errors.New("command cut short")
	errMalformed = errors.New("malformed command")
	errShort     = errors.New("more bytes needed")
)

// castagnoli is the CRC-32C table: the checksum of a clean close (close.go), which the
// processor computes.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// command is one command of the file. Its parts alias the scanner's buffer, valid
// until the next command is read.
type command struct {
	offset int64 // of its first byte in the file
	size   int
	parts  [5][]byte // the name, then the arguments
	count  int
}

// isSet reports whether c sets a key (parts[1]) to a value (parts[2]).
func (c *command) isSet() bool { return c.count >= 3 && bytes.EqualFold(c.parts[0], []byte("set")) }

// scanner reads the commands of a file, from a window of it in buf.
type scanner struct {
	r      io.ReaderAt
	limit  int64 // the file offset it stops at
	window int   // how much it reads at once, at least
	buf    []byte
	start  int   // the next command's first byte in buf
	end    int   // the end of what was read into buf
	offset int64 // the file offset of buf[0]

	sum     bool   // keep crc, for crcBefore
	crc     uint32 // CRC-32C of the file's bytes before buf[crcFrom]
	crcFrom int
}

// scanWindow is how much of the file a scanner reads at once.
const scanWindow = 1 << 20

// newScanner reads r from offset from to offset limit; with sum it keeps the
// checksum of the bytes it has read (from must then be 0).
func newScanner(r io.ReaderAt, from, limit int64, sum bool) *scanner {
	return &scanner{r: r, limit: limit, offset: from, window: scanWindow, sum: sum}
}

// next reads the next command into c: io.EOF at the end of the file, errTorn when the
// file ends inside it, errMalformed when it is no command buntdb loads; c.offset
// names the command in every case. NUL bytes between commands are skipped, as buntdb
// does.
func (s *scanner) next(c *command) error {
	for {
		for s.start < s.end && s.buf[s.start] == 0 {
			s.start++
		}
		c.offset = s.offset + int64(s.start)
		need := 1
		if s.start < s.end {
			size, n, err := parseCommand(s.buf[s.start:s.end], c)
			switch {
			case err == nil:
				c.size = size
				s.start += size
				return nil
			case err != errShort:
				return err
			}
			need = n
		}
		if c.offset+int64(need) > s.limit {
			if c.offset == s.limit {
				return io.EOF
			}
			return errTorn
		}
		if err := s.fill(need); err != nil {
			return err
		}
	}
}

// fill reads on, keeping the unread bytes, which need more to make a command.
func (s *scanner) fill(need int) error {
	if s.sum {
		s.crc = crc32.Update(s.crc, castagnoli, s.buf[s.crcFrom:s.start])
	}
	n := copy(s.buf[:cap(s.buf)], s.buf[s.start:s.end])
	s.offset += int64(s.start)
	s.start, s.end, s.crcFrom = 0, n, 0
	if want := max(need, s.window); cap(s.buf) < want {
		s.buf = append(s.buf[:n], make([]byte, want-n)...)[:n]
	}
	s.buf = s.buf[:cap(s.buf)]
	want := min(int64(len(s.buf)), s.limit-s.offset)
	m, err := s.r.ReadAt(s.buf[s.end:want], s.offset+int64(s.end))
	s.end += m
	if err == io.EOF && s.offset+int64(s.end) == s.limit {
		err = nil
	}
	return err
}

// crcBefore returns the CRC-32C of the file's bytes before c, the command just read.
func (s *scanner) crcBefore(c *command) uint32 {
	at := int(c.offset - s.offset)
	s.crc = crc32.Update(s.crc, castagnoli, s.buf[s.crcFrom:at])
	s.crcFrom = at
	return s.crc
}

// parseCommand reads the command b starts with into c and returns its size; with
// errShort, the size b must at least have for it to be whole.
func parseCommand(b []byte, c *command) (size, need int, err error) {
	count, i, err := parseLength(b, 0, '*')
	if err != nil {
		return 0, len(b) + 1, err
	}
	if count > len(c.parts) {
		return 0, 0, errMalformed // no command buntdb loads has more parts
	}
	for p := range count {
		n, j, err := parseLength(b, i, '$')
		if err != nil {
			return 0, len(b) + 1, err
		}
		if j+n+2 > len(b) {
			return 0, j + n + 2, errShort
		}
		if b[j+n] != '\r' || b[j+n+1] != '\n' {
			return 0, 0, errMalformed
		}
		c.parts[p] = b[j : j+n]
		i = j + n + 2
	}
	c.count = count
	if count > 0 && !validCommand(c) {
		return 0, 0, errMalformed
	}
	return i, 0, nil
}

// parseLength reads the line "<prefix><digits>\r\n" at b[i:] and returns the number
// and the offset after the line.
func parseLength(b []byte, i int, prefix byte) (n, next int, err error) {
	const maxDigits = 10
	if i >= len(b) {
		return 0, 0, errShort
	}
	if b[i] != prefix {
		return 0, 0, errMalformed
	}
	j := i + 1
	for ; j < len(b) && b[j] != '\r'; j++ {
		if b[j] < '0' || b[j] > '9' || j-i > maxDigits {
			return 0, 0, errMalformed
		}
		n = n*10 + int(b[j]-'0')
	}
	switch {
	case j+1 >= len(b):
		return 0, 0, errShort
	case j == i+1 || b[j+1] != '\n':
		return 0, 0, errMalformed
	}
	return n, j + 2, nil
}

// validCommand reports whether c is a command buntdb loads: set (with "ex" or "ae"
// and a whole number of seconds, or without), del or flushdb.
func validCommand(c *command) bool {
	name := c.parts[0]
	switch {
	case bytes.EqualFold(name, []byte("set")):
		if c.count == 3 {
			return true
		}
		arg := c.parts[3]
		return c.count == 5 && (bytes.EqualFold(arg, []byte("ex")) || bytes.EqualFold(arg, []byte("ae"))) && isInteger(c.parts[4])
	case bytes.EqualFold(name, []byte("del")):
		return c.count == 2
	case bytes.EqualFold(name, []byte("flushdb")):
		return c.count == 1
	}
	return false
}

// isInteger reports whether b is a number strconv.ParseInt reads into an int64, as
// buntdb does with a set's time, written by strconv: digits, after a '-' maybe.
func isInteger(b []byte) bool {
	digits := bytes.TrimPrefix(b, []byte("-"))
	if len(digits) == 0 || len(digits) > 18 {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// DamagedError is a database file the store refuses to open: damaged at Offset, or
// Foreign, not a sandbox database at all. The file was left as it was.
type DamagedError struct {
	Path    string
	Offset  int64
	Foreign bool
	// Key is the record at Offset whose value does not decode as its kind (Reason
	// says why); "" when the damage is to the commands' framing.
	Key    string
	Reason string
	// Cut and Changed say the file is not the one its last clean close wrote: cut
	// short (Offset is where it ends now), or changed (its first Offset bytes differ
	// from those the close wrote). See close.go.
	Cut, Changed bool
}

func (e *DamagedError) Error() string {
	const wayOut = "move it away or use --reset"
	switch {
	case e.Foreign:
		// Not --reset: it wipes only the sandbox's own files, never one it did not write.
		return e.Path + " is not a gp-sandbox database: move it away, or name another file with --db"
	case e.Key != "":
		return "database file " + e.Path + " " + e.Problem() + ": " + wayOut + ", or --set-aside-damaged to move the damaged records aside"
	case e.Cut:
		return "database file " + e.Path + " " + e.Problem() + ": " + wayOut + ", or --set-aside-damaged to open what is left"
	case e.Changed:
		return "database file " + e.Path + " " + e.Problem() + ": " + wayOut + ", or --set-aside-damaged to open it as it is"
	}
	return "database file " + e.Path + " " + e.Problem() + ": " + wayOut
}

// Problem says what is wrong with the file, without naming it.
func (e *DamagedError) Problem() string {
	switch {
	case e.Foreign:
		return "is not a gp-sandbox database"
	case e.Key != "":
		return fmt.Sprintf("is damaged at byte %d: record %s %s", e.Offset, e.Key, e.Reason)
	case e.Cut:
		return fmt.Sprintf("is cut short at byte %d: the sandbox closed it cleanly, but the record that ends a clean close is missing (a copy cut off, a full disk?)", e.Offset)
	case e.Changed:
		return fmt.Sprintf("was changed since the sandbox closed it cleanly: its first %d bytes are not those the close wrote", e.Offset)
	}
	return fmt.Sprintf("is damaged at byte %d (the records before it are whole)", e.Offset)
}

// fileScan is what one read of a file's commands found.
type fileScan struct {
	size   int64 // of the file
	end    int64 // the end of the last whole command
	torn   bool  // a last command cut short follows end
	closes []closeRecord
}

// scanFile reads the commands of the size bytes of ra, which may be empty or (with
// mayBeTorn) end in a command cut short (a crash's); a snapshot, written whole before it
// was renamed, may not: that is damage at the command's offset. It refuses the file with
// a *DamagedError naming path, and returns the records of its clean closes (close.go)
// with the checksums of the bytes before them.
func scanFile(path string, ra io.ReaderAt, size int64, mayBeTorn bool) (fileScan, error) {
	scan := fileScan{size: size}
	head := make([]byte, min(size, int64(len(markCommand))))
	if _, err := ra.ReadAt(head, 0); err != nil && err != io.EOF {
		return scan, fmt.Errorf("store: check %s: %w", path, err)
	}
	switch {
	case size == 0 || size < int64(len(markCommand)) && markCommand[:size] == string(head):
		if !mayBeTorn {
			return scan, &DamagedError{Path: path}
		}
		scan.torn = size > 0
		return scan, nil // new, or its first write cut short
	case string(head) != markCommand:
		return scan, &DamagedError{Path: path, Foreign: true}
	}
	s := newScanner(ra, 0, size, true)
	var c command
	for {
		err := s.next(&c)
		if err == io.EOF {
			return scan, nil
		}
		if errors.Is(err, errTorn) && mayBeTorn {
			if err = checkTornTail(ra, c.offset, size); errors.Is(err, errTorn) {
				scan.torn = true
				return scan, nil
			}
		}
		if errors.Is(err, errMalformed) || errors.Is(err, errTorn) {
			return scan, &DamagedError{Path: path, Offset: c.offset}
		}
		if err != nil {
			return scan, fmt.Errorf("store: check %s: %w", path, err)
		}
		scan.end = c.offset + int64(c.size)
		if c.isSet() && string(c.parts[1]) == closeKey {
			scan.closes = append(scan.closes, closeRecord{offset: c.offset, end: scan.end, crc: s.crcBefore(&c), value: string(c.parts[2])})
		}
	}
}

// checkTornTail tells a last command cut short, from offset to size in ra, from a
// damaged one: no other command may start after it. It returns errTorn for the one,
// errMalformed for the other.
func checkTornTail(ra io.ReaderAt, offset, size int64) error {
	buf := make([]byte, 64<<10)
	for at := offset; at < size; at += int64(len(buf) - 2) { // windows overlap by two bytes
		n, err := ra.ReadAt(buf[:min(int64(len(buf)), size-at)], at)
		if err != nil && err != io.EOF {
			return err
		}
		if bytes.Contains(buf[:n], []byte("\r\n*")) {
			return errMalformed
		}
	}
	return errTorn
}
