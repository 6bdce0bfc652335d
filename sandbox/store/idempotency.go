package store

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/tidwall/buntdb"
)

// Idempotency records are the one kind of record a test run makes one of per request,
// and the API keeps each for a day, so a long run holds millions of them. One buntdb
// item per key costs about 600 bytes of heap (the item, its TTL, two B-tree slots, the
// key and a JSON value) and four objects for the collector to walk; a day of load
// filled gigabytes. So they live in buckets instead: idemBuckets items, each a byte
// string of compact entries, about 80 bytes per key and no pointers in the values.
//
// A key is known by its idemID, the first 16 bytes of the SHA-256 of its app and key:
// two different keys share an id with a probability of about 2^-128 per pair, far
// below any chance of mattering, and a client's long keys cost 16 bytes. The first two
// bytes pick the bucket: idem#<4 hex digits>.
//
// A bucket's value is idemFormat then entries, each:
//
//	id [16]byte, body length (uvarint), body:
//	  expires (uvarint, Unix milliseconds of the wall clock; 0 = kept for good)
//	  time (varint Unix seconds, uvarint nanoseconds: the record's sandbox time)
//	  HTTP status (uvarint)
//	  kind, resource id, method, path, body hash, response (uvarint length + bytes)
//
// An entry past its expiry reads as missing and is dropped when its bucket is next
// written; the bucket itself carries a buntdb TTL as long as its longest-lived entry,
// so a bucket nobody writes to any more still goes away by itself.
//
// Records written by earlier versions, one per key at idem:<app_id>:<key> as JSON,
// are still read (and expire by their own TTL): see Store.legacyIdem.
const (
	idemBuckets      = 1 << 16
	idemBucketPrefix = "idem#"
	idemFormat       = 1
	idemIDSize       = 16
)

type idemID [idemIDSize]byte

// idemIDOf names the key of one app. The app's length comes first so that no app and
// key pair can be spelled the same as another.
func idemIDOf(appID, key string) idemID {
	b := make([]byte, 0, 128)
	b = binary.AppendUvarint(b, uint64(len(appID)))
	b = append(append(b, appID...), key...)
	sum := sha256.Sum256(b)
	return idemID(sum[:idemIDSize])
}

func (id idemID) bucketKey() string {
	const hex = "0123456789abcdef"
	b := int(binary.BigEndian.Uint16(id[:2])) % idemBuckets
	return idemBucketPrefix + string([]byte{hex[b>>12&15], hex[b>>8&15], hex[b>>4&15], hex[b&15]})
}

// Idempotency reads the record of appID's key.
func (x tx) Idempotency(appID, key string) (sandbox.IdempotencyRecord, error) {
	id := idemIDOf(appID, key)
	bucket, err := x.t.Get(id.bucketKey())
	if err == nil {
		bucket, err = unseal(id.bucketKey(), bucket)
	}
	switch {
	case err == nil:
		body, found, err := findIdemEntry(bucket, id)
		if err != nil {
			return sandbox.IdempotencyRecord{}, fmt.Errorf("store: idempotency bucket %s: %w", id.bucketKey(), err)
		}
		if found {
			rec, expires, err := decodeIdemEntry(body)
			if err != nil {
				return sandbox.IdempotencyRecord{}, fmt.Errorf("store: idempotency bucket %s: %w", id.bucketKey(), err)
			}
			if !expired(expires, time.Now()) {
				rec.AppID, rec.Key = appID, key
				return rec, nil
			}
		}
	case !errors.Is(err, buntdb.ErrNotFound):
		return sandbox.IdempotencyRecord{}, fmt.Errorf("store: get %s: %w", id.bucketKey(), err)
	}
	if x.legacyIdem {
		return get[sandbox.IdempotencyRecord](x.t, legacyIdemKey(appID, key))
	}
	return sandbox.IdempotencyRecord{}, sandbox.ErrNotFound
}

// PutIdempotency writes r into its bucket, replacing the key's earlier entry and
// dropping the bucket's expired ones. With keep > 0 the entry is forgotten once keep
// has passed on the wall clock.
func (x tx) PutIdempotency(r sandbox.IdempotencyRecord, keep time.Duration) error {
	id := idemIDOf(r.AppID, r.Key)
	key := id.bucketKey()
	old, err := x.t.Get(key)
	if err == nil {
		old, err = unseal(key, old)
	}
	if err != nil && !errors.Is(err, buntdb.ErrNotFound) {
		return fmt.Errorf("store: get %s: %w", key, err)
	}
	now := time.Now()
	var expires uint64
	if keep > 0 {
		expires = uint64(now.Add(keep).UnixMilli())
	}
	entry := appendIdemEntry(nil, id, r, expires)
	value, longest, err := rewriteIdemBucket(old, id, entry, expires, now)
	if err != nil {
		return fmt.Errorf("store: idempotency bucket %s: %w", key, err)
	}
	var opts *buntdb.SetOptions
	if longest > 0 {
		opts = &buntdb.SetOptions{Expires: true, TTL: time.UnixMilli(int64(longest)).Sub(now)}
	}
	if _, _, err := x.t.Set(key, seal(key, value), opts); err != nil {
		return fmt.Errorf("store: put %s: %w", key, err)
	}
	return nil
}

// rewriteIdemBucket returns bucket old with entry in place of id's entry and without
// expired entries, and the latest expiry it holds (0 when an entry is kept for good).
func rewriteIdemBucket(old string, id idemID, entry []byte, expires uint64, now time.Time) (string, uint64, error) {
	longest := expires
	var b strings.Builder
	b.Grow(len(old) + len(entry) + 1)
	b.WriteByte(idemFormat)
	err := eachIdemEntry(old, func(eid idemID, whole, body string) error {
		if eid == id {
			return nil
		}
		e, err := idemEntryExpiry(body)
		if err != nil {
			return err
		}
		if expired(e, now) {
			return nil
		}
		if e == 0 || longest == 0 {
			longest = 0
		} else {
			longest = max(longest, e)
		}
		b.WriteString(whole)
		return nil
	})
	b.Write(entry)
	return b.String(), longest, err
}

func expired(expires uint64, now time.Time) bool {
	return expires != 0 && uint64(now.UnixMilli()) >= expires
}

// findIdemEntry returns the body of id's entry in bucket.
func findIdemEntry(bucket string, id idemID) (string, bool, error) {
	var found string
	ok := false
	errStop := errors.New("found")
	err := eachIdemEntry(bucket, func(eid idemID, _, body string) error {
		if eid != id {
			return nil
		}
		found, ok = body, true
		return errStop
	})
	if err == errStop {
		err = nil
	}
	return found, ok, err
}

var errIdemBucket = errors.New("damaged idempotency bucket")

// eachIdemEntry calls fn with each entry of bucket: its id, the whole entry and its body.
func eachIdemEntry(bucket string, fn func(id idemID, whole, body string) error) error {
	if bucket == "" {
		return nil
	}
	if bucket[0] != idemFormat {
		return fmt.Errorf("%w: format %d", errIdemBucket, bucket[0])
	}
	rest := bucket[1:]
	for len(rest) > 0 {
		if len(rest) < idemIDSize {
			return errIdemBucket
		}
		var id idemID
		copy(id[:], rest)
		n, w := uvarint(rest[idemIDSize:])
		start := idemIDSize + w
		if w <= 0 || n > uint64(len(rest)-start) {
			return errIdemBucket
		}
		end := start + int(n)
		if err := fn(id, rest[:end], rest[start:end]); err != nil {
			return err
		}
		rest = rest[end:]
	}
	return nil
}

// appendIdemEntry appends the entry of r, with its id and expiry, to b.
func appendIdemEntry(b []byte, id idemID, r sandbox.IdempotencyRecord, expires uint64) []byte {
	body := make([]byte, 0, 48+len(r.Kind)+len(r.ResourceID)+len(r.Method)+len(r.Path)+len(r.BodyHash)+len(r.Response))
	body = binary.AppendUvarint(body, expires)
	body = binary.AppendVarint(body, r.Time.Unix())
	body = binary.AppendUvarint(body, uint64(r.Time.Nanosecond()))
	body = binary.AppendUvarint(body, uint64(r.HTTPStatus))
	for _, s := range []string{r.Kind, r.ResourceID, r.Method, r.Path, r.BodyHash, string(r.Response)} {
		body = binary.AppendUvarint(body, uint64(len(s)))
		body = append(body, s...)
	}
	b = append(b, id[:]...)
	b = binary.AppendUvarint(b, uint64(len(body)))
	return append(b, body...)
}

// idemEntryExpiry reads only the expiry of an entry's body.
func idemEntryExpiry(body string) (uint64, error) {
	e, w := uvarint(body)
	if w <= 0 {
		return 0, errIdemBucket
	}
	return e, nil
}

// decodeIdemEntry decodes an entry's body (all but the app and key, which the caller
// knows) and its expiry.
func decodeIdemEntry(body string) (sandbox.IdempotencyRecord, uint64, error) {
	d := idemDecoder{rest: body}
	expires := d.uvarint()
	sec := d.varint()
	nsec := d.uvarint()
	rec := sandbox.IdempotencyRecord{HTTPStatus: int(d.uvarint())}
	rec.Time = time.Unix(sec, int64(nsec)).UTC()
	rec.Kind, rec.ResourceID, rec.Method = d.str(), d.str(), d.str()
	rec.Path, rec.BodyHash = d.str(), d.str()
	if resp := d.str(); resp != "" {
		rec.Response = json.RawMessage(resp)
	}
	if d.bad || d.rest != "" {
		return sandbox.IdempotencyRecord{}, 0, errIdemBucket
	}
	return rec, expires, nil
}

// idemDecoder reads an entry's fields in order; a short or malformed field sets bad.
type idemDecoder struct {
	rest string
	bad  bool
}

func (d *idemDecoder) uvarint() uint64 {
	v, w := uvarint(d.rest)
	if w <= 0 {
		d.bad, d.rest = true, ""
		return 0
	}
	d.rest = d.rest[w:]
	return v
}

func (d *idemDecoder) varint() int64 {
	u := d.uvarint()
	return int64(u>>1) ^ -int64(u&1) // binary.AppendVarint's zig-zag
}

func (d *idemDecoder) str() string {
	n := d.uvarint()
	if n > uint64(len(d.rest)) {
		d.bad, d.rest = true, ""
		return ""
	}
	s := d.rest[:n]
	d.rest = d.rest[n:]
	return s
}

// uvarint is binary.Uvarint over a string, without copying it.
func uvarint(s string) (uint64, int) {
	var x uint64
	var shift uint
	for i := 0; i < len(s) && i < binary.MaxVarintLen64; i++ {
		c := s[i]
		if c < 0x80 {
			if i == binary.MaxVarintLen64-1 && c > 1 {
				return 0, -1
			}
			return x | uint64(c)<<shift, i + 1
		}
		x |= uint64(c&0x7f) << shift
		shift += 7
	}
	return 0, 0
}

// legacyIdemKey is where earlier versions kept a key's record, one item per key.
func legacyIdemKey(appID, key string) string { return "idem:" + appID + ":" + key }

// hasLegacyIdem reports whether the database holds records in the earlier layout.
func hasLegacyIdem(db *buntdb.DB) (bool, error) {
	found := false
	err := db.View(func(t *buntdb.Tx) error {
		return t.AscendKeys("idem:*", func(string, string) bool {
			found = true
			return false
		})
	})
	return found, err
}
