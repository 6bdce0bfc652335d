package store

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/tidwall/buntdb"
)

// A database file is checked before buntdb reads it, because buntdb takes whatever it
// is given: it loads a foreign file (4 KiB of zeros read as an empty database, and the
// next write appends to it), and at the first malformed command it gives up, or, when
// a length runs past the end, truncates the file there, dropping every record after.
//
// The file is buntdb's append-only log, RESP commands (*3\r\n$3\r\nset\r\n$<n>\r\n<key>
// \r\n$<n>\r\n<value>\r\n, set with "ex" and a TTL, del, flushdb) that buntdb writes
// whole before Update returns. The check reads them as buntdb's loader does and
// refuses the file, untouched, with a *DamagedError naming the offset of the first
// malformed command. It does not read values: a byte changed inside a value surfaces
// as an error when that record is read.
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
var markCommand = fmt.Sprintf("*3\r\n$3\r\nset\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n", len(markKey), markKey, len(markValue), markValue)

// putMark writes the mark unless it is there already.
func putMark(t *buntdb.Tx) error {
	if v, err := t.Get(markKey); err == nil && v == markValue {
		return nil
	}
	_, _, err := t.Set(markKey, markValue, nil)
	return err
}

// DamagedError is a database file the store refuses to open: damaged at Offset, or
// Foreign, not a sandbox database at all. The file was left as it was.
type DamagedError struct {
	Path    string
	Offset  int64
	Foreign bool
}

func (e *DamagedError) Error() string {
	if e.Foreign {
		return fmt.Sprintf("%s is not a gp-sandbox database: move it away or use --reset", e.Path)
	}
	return fmt.Sprintf("database file %s is damaged at byte %d (the records before it are whole): move it away or use --reset",
		e.Path, e.Offset)
}

var (
	errTorn      = errors.New("command cut short")
	errMalformed = errors.New("malformed command")
)

// checkFile checks the database file at path; a missing or empty file is a new one.
func checkFile(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("store: check %s: %w", path, err)
	}
	defer f.Close()
	return checkContent(path, f, true)
}

// checkContent checks the content of the file at path, read from ra. A database may
// be empty or end in a command cut short (a crash's); a snapshot (mayBeTorn false),
// written whole before it was renamed, may not: that is damage at the command's offset.
func checkContent(path string, ra io.ReaderAt, mayBeTorn bool) error {
	r := bufio.NewReaderSize(io.NewSectionReader(ra, 0, 1<<62), 1<<20)
	head := make([]byte, len(markCommand))
	n, err := io.ReadFull(r, head)
	switch {
	case n == 0 || errors.Is(err, io.ErrUnexpectedEOF) && strings.HasPrefix(markCommand, string(head[:n])):
		if !mayBeTorn {
			return &DamagedError{Path: path}
		}
		return nil // new, or its first write cut short
	case err != nil && !errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("store: check %s: %w", path, err)
	case string(head[:n]) != markCommand:
		return &DamagedError{Path: path, Foreign: true}
	}
	offset, err := checkCommands(r, int64(n))
	if errors.Is(err, errTorn) && mayBeTorn {
		err = checkTornTail(ra, offset)
	}
	if errors.Is(err, errMalformed) || errors.Is(err, errTorn) {
		return &DamagedError{Path: path, Offset: offset}
	}
	if err != nil {
		return fmt.Errorf("store: check %s: %w", path, err)
	}
	return nil
}

// checkCommands reads commands from r, which starts at offset, to the end. It returns
// the offset of the command it stopped at with errTorn or errMalformed.
func checkCommands(r *bufio.Reader, offset int64) (int64, error) {
	for {
		c, err := r.ReadByte()
		if err == io.EOF {
			return offset, nil
		}
		if err != nil {
			return offset, err
		}
		if c == 0 { // buntdb skips NUL bytes between commands
			offset++
			continue
		}
		_ = r.UnreadByte()
		size, err := checkCommand(r)
		if err != nil {
			return offset, err
		}
		offset += size
	}
}

// checkCommand reads one command and returns its size.
func checkCommand(r *bufio.Reader) (int64, error) {
	count, size, err := readLength(r, '*')
	if err != nil {
		return 0, err
	}
	parts := make([]string, 0, 5) // the command's name and its short arguments
	for i := range count {
		n, lineSize, err := readLength(r, '$')
		if err != nil {
			return 0, err
		}
		size += lineSize + int64(n) + 2
		if i == 0 || i >= 3 { // the name, and set's "ex" and TTL
			part, err := readPart(r, n)
			if err != nil {
				return 0, err
			}
			parts = append(parts, part)
			continue
		}
		if err := skipPart(r, n); err != nil {
			return 0, err
		}
	}
	if count > 0 && !validCommand(parts, count) {
		return 0, errMalformed
	}
	return size, nil
}

// validCommand reports whether a command of count parts, with the name and arguments
// past the value in parts, is one buntdb loads.
func validCommand(parts []string, count int) bool {
	switch strings.ToLower(parts[0]) {
	case "set":
		if count == 3 {
			return true
		}
		_, err := strconv.ParseInt(parts[len(parts)-1], 10, 64)
		arg := strings.ToLower(parts[1])
		return count == 5 && (arg == "ex" || arg == "ae") && err == nil
	case "del":
		return count == 2
	case "flushdb":
		return count == 1
	}
	return false
}

// readLength reads a line "<prefix><digits>\r\n" and returns the number and the line's
// size.
func readLength(r *bufio.Reader, prefix byte) (int, int64, error) {
	line, err := r.ReadSlice('\n')
	if err == io.EOF {
		return 0, 0, errTorn
	}
	if err != nil || len(line) < 4 || len(line) > 14 || line[0] != prefix || line[len(line)-2] != '\r' {
		return 0, 0, errMalformed
	}
	n := 0
	for _, c := range line[1 : len(line)-2] {
		if c < '0' || c > '9' {
			return 0, 0, errMalformed
		}
		n = n*10 + int(c-'0')
	}
	return n, int64(len(line)), nil
}

// readPart reads a short part of n bytes and its \r\n.
func readPart(r *bufio.Reader, n int) (string, error) {
	if n > 32 {
		return "", errMalformed // no name, "ex" or TTL is that long
	}
	b := make([]byte, n+2)
	if _, err := io.ReadFull(r, b); err != nil {
		return "", errTorn
	}
	if !bytes.HasSuffix(b, []byte("\r\n")) {
		return "", errMalformed
	}
	return string(b[:n]), nil
}

// skipPart skips a part of n bytes and checks its \r\n.
func skipPart(r *bufio.Reader, n int) error {
	if _, err := r.Discard(n); err != nil {
		return errTorn
	}
	end := make([]byte, 2)
	if _, err := io.ReadFull(r, end); err != nil {
		return errTorn
	}
	if string(end) != "\r\n" {
		return errMalformed
	}
	return nil
}

// checkTornTail tells a last command cut short, from offset to the end of ra, from a
// damaged one: no other command may start after it.
func checkTornTail(ra io.ReaderAt, offset int64) error {
	tail, err := io.ReadAll(io.NewSectionReader(ra, offset, 1<<62))
	if err != nil {
		return err
	}
	if bytes.Contains(tail, []byte("\r\n*")) {
		return errMalformed
	}
	return nil
}
