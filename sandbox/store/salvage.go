package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/buntdb"
)

// SalvageReport says what Salvage kept and what it dropped.
type SalvageReport struct {
	Kept     int       // records written to the new file
	Unsealed int       // of those, records without a checksum (a file from before checksums)
	Expired  int       // records whose time to live had passed: not copied
	Dropped  []Dropped // records whose checksum did not match, or that do not parse: not copied
	Skipped  []Skipped // byte ranges that held no readable command
}

// Dropped is a record left out of a salvaged file.
type Dropped struct {
	Offset int64
	Key    string
	Reason string
}

// Skipped is a range of bytes Salvage could not read as a command.
type Skipped struct {
	Offset, Bytes int64
	Reason        string
}

// salvaged is one record as Salvage found it.
type salvaged struct {
	payload string
	expires time.Time // zero: never
}

// Salvage reads the database file at src as far as it can be read and writes the
// records it could read, with good checksums, to a new database file at dst. src is
// only read; dst must not exist. A record with a bad checksum is dropped; bytes that
// are not a command are skipped up to the next line that starts a command. A file
// without the gp-sandbox header is read the same way, and its records without a
// checksum are kept when they hold JSON, so a file from an older sandbox can be
// carried over. A file of a later format than this binary's is refused with a
// *NewerFormatError: its records may not mean what they would mean here.
func Salvage(src, dst string) (SalvageReport, error) {
	var rep SalvageReport
	data, err := os.ReadFile(src)
	if err != nil {
		return rep, err
	}
	if err := refuseNewerFormat(src, data); err != nil {
		return rep, err
	}
	if _, err := os.Stat(dst); err == nil {
		return rep, fmt.Errorf("%s exists: salvage writes a new file only", dst)
	} else if !errors.Is(err, os.ErrNotExist) {
		return rep, err
	}
	records := readRecords(data, &rep)
	now := time.Now()
	for key, r := range records {
		if !r.expires.IsZero() && !r.expires.After(now) {
			delete(records, key)
			rep.Expired++
		}
	}
	rep.Kept = len(records)
	return rep, writeRecords(dst, records, now)
}

// refuseNewerFormat returns a *NewerFormatError when data starts with the header of
// a later format than this binary reads.
func refuseNewerFormat(path string, data []byte) error {
	sc := newBytesScanner(data)
	if sc.next() != nil {
		return nil
	}
	return withPath(newerHeader(sc.parts), path)
}

// readRecords replays the commands of data into the records they leave.
func readRecords(data []byte, rep *SalvageReport) map[string]salvaged {
	records := map[string]salvaged{}
	unsealed := map[string]bool{}
	var pos int64
	for pos < int64(len(data)) {
		sc := newBytesScanner(data[pos:])
		err := sc.next()
		if err == nil {
			err = applyRecord(records, unsealed, sc.parts, pos, rep)
		}
		if err == nil {
			pos += sc.offset
			continue
		}
		reason := "the file ends inside a command"
		var d *DamagedError
		if errors.As(err, &d) {
			reason = d.Reason
		}
		next := nextCommandStart(data, pos+1)
		rep.Skipped = append(rep.Skipped, Skipped{Offset: pos, Bytes: next - pos, Reason: reason})
		pos = next
	}
	for key := range records {
		if unsealed[key] {
			rep.Unsealed++
		}
	}
	return records
}

// nextCommandStart finds the next "*" that starts a line, at or after from.
func nextCommandStart(data []byte, from int64) int64 {
	i := bytes.Index(data[from:], []byte("\n*"))
	if i < 0 {
		return int64(len(data))
	}
	return from + int64(i) + 1
}

// applyRecord applies one whole command found at offset at.
func applyRecord(records map[string]salvaged, unsealed map[string]bool, parts [][]byte, at int64, rep *SalvageReport) error {
	if string(parts[0]) != "set" {
		if err := checkCommand(parts, at, false); err != nil {
			return err
		}
		if string(parts[0]) == "del" {
			delete(records, string(parts[1]))
		} else {
			clear(records)
		}
		return nil
	}
	if len(parts) != 3 && len(parts) != 5 {
		return &DamagedError{Offset: at, Reason: "a malformed set command"}
	}
	key := string(parts[1])
	if key == headerKey {
		return nil
	}
	r := salvaged{}
	if len(parts) == 5 {
		n, err := strconv.ParseInt(string(parts[4]), 10, 64)
		switch {
		case err != nil || (string(parts[3]) != "ae" && string(parts[3]) != "ex"):
			return &DamagedError{Offset: at, Reason: "a malformed expiry"}
		case string(parts[3]) == "ae":
			r.expires = time.Unix(n, 0)
		default:
			r.expires = time.Now().Add(time.Duration(n) * time.Second)
		}
	}
	switch {
	case sealedOK(parts[1], parts[2]) && !unreadableChunk(key, string(parts[2])):
		r.payload = string(parts[2][sumDigits:])
		delete(unsealed, key)
	case sealedOK(parts[1], parts[2]):
		// Open would refuse the file over it: the index of idempotency chunks is
		// built from every chunk when the store opens.
		rep.Dropped = append(rep.Dropped, Dropped{Offset: at, Key: key, Reason: "an idempotency chunk that does not parse"})
		return nil
	case legacyValue(key, parts[2]):
		r.payload = string(parts[2])
		unsealed[key] = true
	default:
		rep.Dropped = append(rep.Dropped, Dropped{Offset: at, Key: key, Reason: "checksum does not match"})
		return nil
	}
	records[key] = r
	return nil
}

// legacyValue reports whether v is a value as a sandbox without checksums stored it:
// JSON, or the empty marker of a pending notification.
func legacyValue(key string, v []byte) bool {
	if strings.HasPrefix(key, "outbox:") {
		return len(v) == 0
	}
	return json.Valid(v)
}

// writeRecords writes records to a new store at dst, closed cleanly.
func writeRecords(dst string, records map[string]salvaged, now time.Time) error {
	f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	f.Close()
	s, err := Open(dst)
	if err != nil {
		return err
	}
	err = s.db.Update(func(t *buntdb.Tx) error {
		for key, r := range records {
			var opts *buntdb.SetOptions
			if !r.expires.IsZero() {
				opts = &buntdb.SetOptions{Expires: true, TTL: r.expires.Sub(now)}
			}
			if _, _, err := t.Set(key, seal(key, r.payload), opts); err != nil {
				return err
			}
		}
		return nil
	})
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	return err
}

// WriteTo prints the report for a person: counts first, then each dropped record and
// skipped range.
func (r SalvageReport) WriteTo(w io.Writer) (int64, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "kept %d records", r.Kept)
	if r.Unsealed > 0 {
		fmt.Fprintf(&b, " (%d without a checksum, from an older sandbox)", r.Unsealed)
	}
	fmt.Fprintf(&b, "; dropped %d records that could not be read; skipped %d unreadable ranges", len(r.Dropped), len(r.Skipped))
	if r.Expired > 0 {
		fmt.Fprintf(&b, "; %d records had expired", r.Expired)
	}
	b.WriteString("\n")
	for _, d := range r.Dropped {
		fmt.Fprintf(&b, "  dropped at byte %d: record %q (%s)\n", d.Offset, d.Key, d.Reason)
	}
	for _, s := range r.Skipped {
		fmt.Fprintf(&b, "  skipped bytes %d-%d: %s\n", s.Offset, s.Offset+s.Bytes, s.Reason)
	}
	n, err := io.WriteString(w, b.String())
	return int64(n), err
}
