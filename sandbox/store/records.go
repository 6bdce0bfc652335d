package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/tidwall/buntdb"
)

// At open every record the clean-close checksum does not prove (close.go) is decoded as
// the kind its key names (the key layout in store.go), so that a damaged value stops the
// start, naming its key and offset, rather than failing a request that reads it later.

// recordKind is what the records under one key prefix hold.
type recordKind struct {
	name   string // for messages
	decode func(value []byte) error
}

// kindOf returns the kind decode checks values with.
func kindOf[T any]() recordKind {
	var zero T
	return recordKind{name: fmt.Sprintf("%T", zero), decode: func(value []byte) error { return json.Unmarshal(value, new(T)) }}
}

// recordKinds are the kinds by key prefix: the key's first member and its ':', or its
// first two; the keys of the file's own records are whole.
var recordKinds = map[string]recordKind{
	markKey:         {name: "the mark", decode: decodeMark},
	sessionKey:      kindOf[string](),
	closeKey:        kindOf[closeValue](),
	"app:":          kindOf[sandbox.App](),
	"merchant:":     kindOf[sandbox.Merchant](),
	"pricing:":      kindOf[sandbox.PricingProfile](),
	"txn:":          kindOf[sandbox.Transaction](),
	"adj:":          kindOf[sandbox.Adjustment](),
	"order:":        kindOf[sandbox.Order](),
	"device:":       kindOf[sandbox.Device](),
	"devreq:":       kindOf[sandbox.DeviceRequest](),
	"token:":        kindOf[sandbox.Token](),
	"idem:":         kindOf[sandbox.IdempotencyRecord](),
	"paid:":         kindOf[sandbox.PaymentMark](),
	"pmt:":          kindOf[sandbox.PaymentMethod](),
	"batch:":        kindOf[sandbox.Batch](),
	"deposit:":      kindOf[sandbox.Deposit](),
	"dispute:":      kindOf[sandbox.Dispute](),
	"bmember:":      kindOf[string](),
	"ntf:":          kindOf[sandbox.Notification](),
	"outbox:":       kindOf[string](),
	"meta:":         kindOf[string](),
	"step:":         kindOf[int](),
	"count:txn:":    kindOf[int](), // legacyCountPrefix: read once, then dropped
	"count:listed:": kindOf[int](),
	sortPrefix:      {name: "sort record", decode: decodeSortRecord},
}

// kindOfKey returns the kind of the record at key.
func kindOfKey(key []byte) (recordKind, bool) {
	if k, ok := recordKinds[string(key)]; ok {
		return k, true
	}
	first := bytes.IndexByte(key, ':') + 1
	if first == 0 {
		return recordKind{}, false
	}
	if k, ok := recordKinds[string(key[:first])]; ok {
		return k, true
	}
	second := bytes.IndexByte(key[first:], ':') + 1
	if second == 0 {
		return recordKind{}, false
	}
	k, ok := recordKinds[string(key[:first+second])]
	return k, ok
}

// decodeMark checks the mark, which has one value.
func decodeMark(value []byte) error {
	if string(value) != markValue {
		return errors.New("not " + markValue)
	}
	return nil
}

// decodeSortRecord checks a sort record (walk.go): its time, then its id, status, type
// and merchant, the first three ended by a NUL byte.
func decodeSortRecord(value []byte) error {
	if len(value) < timeWidth {
		return errors.New("shorter than its time")
	}
	if _, err := time.Parse(sandbox.TimeFormat, string(value[:timeWidth])); err != nil {
		return err
	}
	if bytes.Count(value[timeWidth:], []byte{0}) < 3 {
		return errors.New("fewer members than id, status, type and merchant")
	}
	return nil
}

// damagedRecord is a record whose value does not decode as its kind.
type damagedRecord struct {
	key, value string
	offset     int64
	reason     string
	command    []byte // as the file holds it
}

func (d damagedRecord) error(path string) *DamagedError {
	return &DamagedError{Path: path, Offset: d.offset, Key: d.key, Reason: d.reason}
}

// checkRecords decodes the value of every record set from offset from to offset to
// of ra, which holds whole commands only (scanFile checked them), and returns those
// that do not decode: the first one only, unless all.
func checkRecords(ra io.ReaderAt, from, to int64, all bool) ([]damagedRecord, error) {
	var damaged []damagedRecord
	s := newScanner(ra, from, to, false)
	var c command
	for {
		err := s.next(&c)
		if err == io.EOF {
			return damaged, nil
		}
		if err != nil {
			return damaged, err
		}
		if !c.isSet() {
			continue
		}
		if reason := recordProblem(c.parts[1], c.parts[2]); reason != "" {
			raw := bytes.Clone(s.buf[c.offset-s.offset : c.offset-s.offset+int64(c.size)])
			damaged = append(damaged, damagedRecord{key: string(c.parts[1]), value: string(c.parts[2]), offset: c.offset, reason: reason, command: raw})
			if !all {
				return damaged, nil
			}
		}
	}
}

// recordProblem says why the value of key does not decode as its kind, "" when it does.
func recordProblem(key, value []byte) string {
	kind, ok := kindOfKey(key)
	if !ok {
		return "is of no kind the sandbox writes"
	}
	if err := kind.decode(value); err != nil {
		return "does not decode as " + kind.name + ": " + err.Error()
	}
	return ""
}

// setAside writes the commands of the damaged records, as the file held them, into a
// new file beside the database, <db>.damaged-<time>.resp, and deletes from db those
// whose value is still the damaged one. Repairs names the file and the records.
func (s *Store) setAside(db *buntdb.DB, damaged []damagedRecord) error {
	f, err := createBeside(s.path, "damaged", ".resp")
	if err != nil {
		return err
	}
	for _, d := range damaged {
		if err == nil {
			_, err = f.Write(d.command)
		}
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = db.Update(func(t *buntdb.Tx) error {
			for _, d := range damaged {
				if v, err := t.Get(d.key); err == nil && v == d.value {
					if err := del(t, d.key); err != nil {
						return err
					}
				}
			}
			return nil
		})
	}
	if err != nil {
		return fmt.Errorf("set aside damaged records: %w", err)
	}
	s.repairs = append(s.repairs, fmt.Sprintf("it %s; %d records that do not decode were moved into %s",
		damaged[0].error(s.path).Problem(), len(damaged), f.Name()))
	return nil
}

// rewriteLive has buntdb rewrite the file with the live records only, so that it
// holds nothing that was refused at open.
func rewriteLive(db *buntdb.DB) error {
	if err := forgetCloses(db); err != nil {
		return err
	}
	return db.Shrink()
}
