package store

import (
	"fmt"
	"os"
	"strconv"
)

// # The header and the format number
//
// The header's value is "gp-sandbox database format N; closed at byte " and the
// slot: 16 digits, zero while the file is in use (file.go). N says how to read the
// records, and a binary refuses a file whose N it does not know, so that it never
// misreads one:
//
//   - Format 1: every record whole.
//   - Format 2: a transaction may also have a patch at txp:<id> (txnpatch.go), which
//     every read applies to the record at txn:<id>. A binary that reads format 1
//     only would ignore the patches and show each patched transaction as it was at
//     its last whole write, wrong without an error; format 1 binaries refuse any
//     header but their own, so the number changed for them to refuse the file.
//
// This binary writes format 2 and reads formats 1 and 2. A format-1 file is moved
// to format 2 when it opens, before anything else is written to it, by rewriting
// the one digit in place: the header keeps its length, so the slot stays where it
// was, and a crash before or after that byte leaves a file that opens (a format-1
// file is read as format 2 is). A file of a later format is refused untouched
// with a *NewerFormatError.

// headerKey sorts before every record key (they all start with a lower-case letter).
const headerKey = "!gpsandbox"

const (
	headerFormat = 2 // the format this binary writes
	oldestFormat = 1 // the oldest format it reads

	formatLead = "gp-sandbox database format "
	slotLead   = "; closed at byte "
	// headerPrefix is the header value before the slot, in the format written (one
	// digit while formats 1 and 2 are read: the header keeps its length).
	headerPrefix = formatLead + string(rune('0'+headerFormat)) + slotLead
	slotDigits   = 16
)

func headerValue(closedAt int64) string {
	return headerPrefix + fmt.Sprintf("%0*d", slotDigits, closedAt)
}

// headerCommand is the header as buntdb writes it: the first bytes of every file.
func headerCommand(closedAt int64) []byte {
	return appendCommand(nil, "set", headerKey, headerValue(closedAt))
}

// slotOffset is where the slot's digits start in the file.
var slotOffset = int64(len(headerCommand(0)) - 2 - slotDigits)

// formatOffset is where the format's digit is in the file.
var formatOffset = slotOffset - int64(len(headerPrefix)-len(formatLead))

// headerFormatOf reads the format number a header value names; ok is false when v
// does not start as the header of any format does ("gp-sandbox database format N;").
func headerFormatOf(v []byte) (format int, ok bool) {
	if len(v) <= len(formatLead) || string(v[:len(formatLead)]) != formatLead {
		return 0, false
	}
	end := len(formatLead)
	for end < len(v) && v[end] >= '0' && v[end] <= '9' {
		end++
	}
	if end == len(v) || v[end] != ';' {
		return 0, false
	}
	n, err := strconv.Atoi(string(v[len(formatLead):end]))
	return n, err == nil
}

// validHeader reports whether v is a whole header of a format this binary reads.
// Formats 1 and 2 lay it out alike: one digit, then the slot.
func validHeader(v []byte) bool {
	format, ok := headerFormatOf(v)
	return ok && format >= oldestFormat && format <= headerFormat &&
		len(v) == len(headerPrefix)+slotDigits &&
		string(v[len(formatLead)+1:len(headerPrefix)]) == slotLead && allDigits(v[len(headerPrefix):])
}

// validLaterHeader reports whether v is the header set again inside the file (after
// a flushdb): in use, of a format this binary reads. A format-1 file may hold a
// format-1 one after its first header says format 2.
func validLaterHeader(v []byte) bool {
	return validHeader(v) && string(v[len(headerPrefix):]) == headerValue(0)[len(headerPrefix):]
}

// newerFormat returns the format number of a header written by a newer sandbox,
// or 0 when v is not one.
func newerFormat(v []byte) int {
	if format, ok := headerFormatOf(v); ok && format > headerFormat {
		return format
	}
	return 0
}

// newerHeader returns a *NewerFormatError (without Path) when parts is a header
// command written by a newer sandbox, and nil otherwise.
func newerHeader(parts [][]byte) error {
	if len(parts) != 3 || string(parts[0]) != "set" || string(parts[1]) != headerKey {
		return nil
	}
	if format := newerFormat(parts[2]); format > 0 {
		return &NewerFormatError{Format: format}
	}
	return nil
}

// NewerFormatError reports a database file written by a newer gp-sandbox, in a
// format this binary cannot read without misreading it; the file is left as it is.
type NewerFormatError struct {
	Path   string
	Format int
}

func (e *NewerFormatError) Error() string {
	return fmt.Sprintf("%s: written by a newer gp-sandbox (database format %d); this binary reads formats %d and %d. Nothing was changed: run that gp-sandbox version or a later one, or move the file away to start afresh",
		e.Path, e.Format, oldestFormat, headerFormat)
}

// writeFormat rewrites the format's digit of an open file's header to the format
// this binary writes: one byte, so a crash leaves either format, both readable.
func writeFormat(f *os.File) error {
	_, err := f.WriteAt([]byte(headerPrefix[len(formatLead):len(formatLead)+1]), formatOffset)
	return err
}

// writeSlot writes the closed length into the header of an open file.
func writeSlot(f *os.File, closedAt int64) error {
	slot := headerValue(closedAt)[len(headerPrefix):]
	_, err := f.WriteAt([]byte(slot), slotOffset)
	return err
}
