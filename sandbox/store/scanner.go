package store

import (
	"fmt"
	"io"
)

// scanner reads RESP commands off a file, counting offsets. It reads the file in
// large blocks and hands out parts that point into its buffer, valid until the next
// command is read: an open reads every byte of the file once, and reading it a byte
// at a time through a bufio.Reader, then copying each value out, was a third of the
// time to check a file of a million adjustments.
type scanner struct {
	r        io.Reader // nil once everything was read
	buf      []byte
	pos, end int   // the unread bytes are buf[pos:end]
	offset   int64 // of buf[pos] in the file: the next unread byte
	size     int64
	parts    [][]byte
}

// scanBlock is how much the scanner reads at a time.
const scanBlock = 1 << 20

func newScanner(r io.Reader, size int64) *scanner {
	return &scanner{r: r, buf: make([]byte, min(max(size, 64), scanBlock)), size: size}
}

// newBytesScanner reads the commands of data, in place.
func newBytesScanner(data []byte) *scanner {
	return &scanner{buf: data, end: len(data), size: int64(len(data))}
}

// have makes n unread bytes available if the file holds them, and reports whether it
// did. It may move the unread bytes within the buffer.
func (sc *scanner) have(n int) bool {
	if sc.end-sc.pos >= n {
		return true
	}
	return sc.fill(n)
}

func (sc *scanner) fill(n int) bool {
	for sc.end-sc.pos < n && sc.r != nil {
		if n > len(sc.buf) {
			grown := make([]byte, max(n, 2*len(sc.buf)))
			sc.end = copy(grown, sc.buf[sc.pos:sc.end])
			sc.buf, sc.pos = grown, 0
		} else if sc.pos > 0 && sc.end == len(sc.buf) {
			sc.end = copy(sc.buf, sc.buf[sc.pos:sc.end])
			sc.pos = 0
		}
		m, err := sc.r.Read(sc.buf[sc.end:])
		sc.end += m
		if err != nil {
			sc.r = nil // the end of the file, or a read error: the file ends here
		}
	}
	return sc.end-sc.pos >= n
}

// next reads one command into sc.parts. It returns io.EOF at a clean end, errTorn
// when the file ends inside a command, or a *DamagedError (without Path) for bytes
// that are not a command. Positions inside the command are counted from its start
// (rel) until it is whole, since reading on may move it in the buffer.
func (sc *scanner) next() error {
	if !sc.have(1) {
		return io.EOF
	}
	n, rel, err := sc.length('*', 0)
	if err != nil {
		return err
	}
	if n < 1 || n > 5 {
		return &DamagedError{Offset: sc.offset, Reason: fmt.Sprintf("a command of %d parts", n)}
	}
	var spans [5][2]int // each part's start and end, from the command's start
	for i := range n {
		var size int64
		if size, rel, err = sc.length('$', rel); err != nil {
			return err
		}
		if size > sc.size-sc.offset-int64(rel) {
			return errTorn // a length running past the end: the file was cut inside it
		}
		end := rel + int(size)
		if !sc.have(end + 2) {
			return errTorn
		}
		if b := sc.buf[sc.pos+end:]; b[0] != '\r' || b[1] != '\n' {
			return &DamagedError{Offset: sc.offset + int64(end), Reason: "a value that does not end where its length says"}
		}
		spans[i] = [2]int{rel, end}
		rel = end + 2
	}
	sc.parts = sc.parts[:0]
	for _, s := range spans[:n] {
		sc.parts = append(sc.parts, sc.buf[sc.pos+s[0]:sc.pos+s[1]:sc.pos+s[1]])
	}
	sc.pos += rel
	sc.offset += int64(rel)
	return nil
}

// length reads a "<mark><digits>\r\n" line starting rel bytes into the command, and
// returns the number and where the line ends.
func (sc *scanner) length(mark byte, rel int) (int64, int, error) {
	at := sc.offset + int64(rel)
	if !sc.have(rel + 1) {
		return 0, rel, errTorn
	}
	if c := sc.buf[sc.pos+rel]; c != mark {
		return 0, rel, &DamagedError{Offset: at, Reason: fmt.Sprintf("unexpected byte 0x%02x where a %q line starts", c, mark)}
	}
	rel++
	var n int64
	digits := 0
	for {
		if !sc.have(rel + 1) {
			return 0, rel, errTorn
		}
		c := sc.buf[sc.pos+rel]
		rel++
		switch {
		case c >= '0' && c <= '9' && digits < 12:
			n = n*10 + int64(c-'0')
			digits++
			continue
		case c == '\r' && digits > 0:
			if !sc.have(rel + 1) {
				return 0, rel, errTorn
			}
			c := sc.buf[sc.pos+rel]
			rel++
			if c == '\n' {
				return n, rel, nil
			}
		}
		return 0, rel, &DamagedError{Offset: at, Reason: fmt.Sprintf("a malformed %q line", mark)}
	}
}
