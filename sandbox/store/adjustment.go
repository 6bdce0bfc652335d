package store

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// Adjustment history is a ring of slots per transaction, adj:<transaction id>:<slot>
// (slot 0 to sandbox.AdjustmentHistoryLimit-1, written by the Service); key order says
// nothing of age, so the history is sorted by each entry's Seq.
//
// An entry is written on every adjustment, inside the writer's lock, so it has a
// compact encoding rather than JSON (whose map of changes cost a sort and reflection
// per write): adjFormat, then seq (uvarint), action id, time, app id, version (uvarint
// length + bytes), the number of changes plus one (0: none recorded, nil), and per
// change in name order its name, from and to. Entries in JSON, as earlier versions
// wrote them, are still read.
const adjFormat = 1

func (x tx) Adjustments(transactionID string) ([]sandbox.Adjustment, error) {
	history, err := scanWith(x.t, "adj:"+transactionID+":*", func(key, value string) (sandbox.Adjustment, error) {
		value, err := unseal(key, value)
		if err != nil {
			return sandbox.Adjustment{}, err
		}
		a, err := decodeAdjustment(value)
		if err != nil {
			return sandbox.Adjustment{}, fmt.Errorf("store: decode %s: %w", key, err)
		}
		return a, nil
	})
	slices.SortFunc(history, func(a, b sandbox.Adjustment) int { return a.Seq - b.Seq })
	return history, err
}

func (x tx) PutAdjustment(transactionID string, slot int, a sandbox.Adjustment) error {
	key := "adj:" + transactionID + ":" + strconv.Itoa(slot)
	payload := x.keepBuffer(appendAdjustment(x.buffer(), a))
	if _, _, err := x.t.Set(key, sealBytes(key, payload), nil); err != nil {
		return fmt.Errorf("store: put %s: %w", key, err)
	}
	return nil
}

func appendAdjustment(b []byte, a sandbox.Adjustment) []byte {
	b = append(b, adjFormat)
	b = binary.AppendUvarint(b, uint64(a.Seq))
	for _, s := range []string{a.ActionID, a.Time, a.AppID, a.Version} {
		b = appendString(b, s)
	}
	if a.Changes == nil {
		return binary.AppendUvarint(b, 0)
	}
	b = binary.AppendUvarint(b, uint64(len(a.Changes))+1)
	var few [4]string // an adjustment changes at most three fields
	names := few[:0]
	for name := range a.Changes {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		b = appendString(appendString(appendString(b, name), a.Changes[name].From), a.Changes[name].To)
	}
	return b
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

var errAdjustment = errors.New("malformed adjustment entry")

func decodeAdjustment(payload string) (sandbox.Adjustment, error) {
	var a sandbox.Adjustment
	if strings.HasPrefix(payload, "{") {
		err := json.Unmarshal([]byte(payload), &a)
		return a, err
	}
	if payload == "" || payload[0] != adjFormat {
		return a, errAdjustment
	}
	d := idemDecoder{rest: payload[1:]}
	a.Seq = int(d.uvarint())
	a.ActionID, a.Time, a.AppID, a.Version = d.str(), d.str(), d.str(), d.str()
	if n := d.uvarint(); n > 0 && !d.bad {
		a.Changes = make(map[string]sandbox.Change, min(n-1, 16))
		for range n - 1 {
			name, from, to := d.str(), d.str(), d.str()
			if d.bad {
				break
			}
			a.Changes[name] = sandbox.Change{From: from, To: to}
		}
	}
	if d.bad || d.rest != "" {
		return sandbox.Adjustment{}, errAdjustment
	}
	return a, nil
}
