package store

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/tidwall/buntdb"
)

// Idempotency records are the one kind of record a test run makes one of per request,
// and the API keeps each for a day, so a long run holds millions of them. One buntdb
// item per key costs about 600 bytes of heap (the item, its TTL, two B-tree slots, the
// key and a JSON value) and four objects for the collector to walk; a day of load
// filled gigabytes. So many entries share an item, a byte string of compact entries
// with no pointers: new entries go to chunks written in time order (idemlog.go),
// about 130 bytes of heap per key with the index that finds them.
//
// A key is known by its idemID, the first 16 bytes of the SHA-256 of its app and key:
// two different keys share an id with a probability of about 2^-128 per pair, far
// below any chance of mattering, and a client's long keys cost 16 bytes.
//
// A chunk's value (and a format-2 bucket's) is its format (idemFormat) then entries,
// each:
//
//	id [16]byte, body length (uvarint), body:
//	  expires (uvarint, Unix milliseconds of the wall clock; 0 = kept for good)
//	  time (varint Unix milliseconds: the record's sandbox time)
//	  HTTP status (uvarint)
//	  kind (1 byte: 1 transaction, 2 order, 0 = spelled out as a string follows)
//	  resource id, method, path, body hash, response (uvarint length + bytes)
//
// An entry past its expiry reads as missing; its chunk carries a buntdb TTL as long
// as its longest-lived entry, so it goes away by itself with all its entries.
//
// Earlier layouts are still read, and expire by their own TTL (see Store.legacyIdem):
// format-2 buckets at idemkeys:<5 hex digits> (131,072 of them, picked by the id's
// first 17 bits, the entries above), one JSON item per key at idem:<app_id>:<key>,
// and format-1 buckets at idem#<4 hex digits> (65,536 of them, times in seconds and
// nanoseconds, the kind spelled out).
const (
	idemBucketBits   = 17
	idemBucketPrefix = "idemkeys:"
	idemFormat       = 2
	idemIDSize       = 16

	idemFormat1Prefix = "idem#"
	idemFormat1       = 1
)

// idemKindCode is the byte that spells a kind in an entry; 0 for a kind spelled out.
func idemKindCode(kind string) byte {
	switch kind {
	case "transaction":
		return 1
	case "order":
		return 2
	}
	return 0
}

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

// idemIDOf is idemIDOf, remembered in an Update for the key it last named.
func (x tx) idemIDOf(appID, key string) idemID {
	if x.writes == nil {
		return idemIDOf(appID, key)
	}
	last := &x.writes.lastIdem
	if !last.known || last.appID != appID || last.key != key {
		last.appID, last.key, last.id, last.known = appID, key, idemIDOf(appID, key), true
	}
	return last.id
}

func (id idemID) bucketKey() string {
	b := binary.BigEndian.Uint32(id[:4]) >> (32 - idemBucketBits)
	return idemBucketPrefix + hexDigits(b, 5)
}

// format1BucketKey is the bucket of the format-1 layout.
func (id idemID) format1BucketKey() string {
	return idemFormat1Prefix + hexDigits(uint32(binary.BigEndian.Uint16(id[:2])), 4)
}

func hexDigits(v uint32, n int) string {
	const hex = "0123456789abcdef"
	b := make([]byte, n)
	for i := n - 1; i >= 0; i-- {
		b[i] = hex[v&15]
		v >>= 4
	}
	return string(b)
}

// Idempotency reads the record of appID's key: in the chunk the index names, then,
// in a file written by an earlier version, where that version kept it.
func (x tx) Idempotency(appID, key string) (sandbox.IdempotencyRecord, error) {
	id := x.idemIDOf(appID, key)
	rec, found, err := x.chunkRecord(id)
	if !found && err == nil && x.legacyIdem {
		rec, found, err = x.legacyRecord(id)
		if !found && err == nil {
			return get[sandbox.IdempotencyRecord](x.t, legacyIdemKey(appID, key))
		}
	}
	if err != nil {
		return sandbox.IdempotencyRecord{}, err
	}
	if !found {
		return sandbox.IdempotencyRecord{}, sandbox.ErrNotFound
	}
	rec.AppID, rec.Key = appID, key
	return rec, nil
}

// chunkRecord reads id's live entry in the chunk the index names.
func (x tx) chunkRecord(id idemID) (sandbox.IdempotencyRecord, bool, error) {
	seq, ok := x.idemChunkOf(id)
	if !ok {
		return sandbox.IdempotencyRecord{}, false, nil
	}
	key := idemChunkKey(seq)
	stored, err := readBucket(x.t, key)
	if err != nil {
		return sandbox.IdempotencyRecord{}, false, err
	}
	return bucketRecord(key, stored, id)
}

// legacyRecord reads id's live entry in the buckets of the earlier layouts: format
// 2, then format 1.
func (x tx) legacyRecord(id idemID) (sandbox.IdempotencyRecord, bool, error) {
	for _, key := range [...]string{id.bucketKey(), id.format1BucketKey()} {
		stored, err := readBucket(x.t, key)
		if err != nil {
			return sandbox.IdempotencyRecord{}, false, err
		}
		if rec, found, err := bucketRecord(key, stored, id); found || err != nil {
			return rec, found, err
		}
	}
	return sandbox.IdempotencyRecord{}, false, nil
}

// readBucket returns the sealed value of the bucket or chunk at key, "" when it is
// missing.
func readBucket(t *buntdb.Tx, key string) (string, error) {
	stored, err := t.Get(key)
	if errors.Is(err, buntdb.ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("store: get %s: %w", key, err)
	}
	return stored, nil
}

// bucketRecord reads id's live entry in the bucket or chunk at key, whose sealed
// value is stored ("" for a missing one).
func bucketRecord(key, stored string, id idemID) (sandbox.IdempotencyRecord, bool, error) {
	if stored == "" {
		return sandbox.IdempotencyRecord{}, false, nil
	}
	stored, err := unseal(key, stored)
	if err != nil {
		return sandbox.IdempotencyRecord{}, false, fmt.Errorf("store: get %s: %w", key, err)
	}
	format, entries, err := splitIdemBucket(stored)
	var body string
	found := false
	if err == nil {
		body, found, err = findIdemEntry(entries, id)
	}
	var rec sandbox.IdempotencyRecord
	var expires uint64
	if err == nil && found {
		rec, expires, err = decodeIdemEntry(format, body)
	}
	if err != nil {
		return sandbox.IdempotencyRecord{}, false, fmt.Errorf("store: idempotency bucket %s: %w", key, err)
	}
	return rec, found && !expired(expires, time.Now()), nil
}

// PutIdempotency appends r's entry to the newest chunk, or to a new one when that is
// full or has expired; a rewrite of the chunk drops the key's earlier entry there.
// With keep > 0 the entry is forgotten once keep has passed on the wall clock.
func (x tx) PutIdempotency(r sandbox.IdempotencyRecord, keep time.Duration) error {
	if x.writes == nil {
		return fmt.Errorf("store: put idempotency record: %w", buntdb.ErrTxNotWritable)
	}
	id := x.idemIDOf(r.AppID, r.Key)
	seq := x.currentChunk()
	key := idemChunkKey(seq)
	stored, err := readBucket(x.t, key)
	if err != nil {
		return err
	}
	old, err := unsealChunk(key, stored)
	if err != nil {
		return err
	}
	tail := &x.idem.tail
	known := tail.describes(key, stored)
	if x.chunkEntries(known, old) >= idemChunkEntries || old == "" && x.expiredChunk(key) {
		seq++
		key, old, known = idemChunkKey(seq), "", false
	}
	over, err := x.idemOverflows(id)
	if err != nil {
		return err
	}
	now := time.Now()
	var expires uint64
	if keep > 0 {
		expires = uint64(now.Add(keep).UnixMilli())
	}
	appended := known && !tail.holds(id)
	var value []byte
	var longest uint64
	if appended { // the chunk as it is, and the entry after it: what rewriteChunk writes
		value = appendIdemEntry(append(x.buffer(), old...), id, r, expires)
		longest = laterExpiry(tail.longest, expires, false)
	} else if value, longest, err = rewriteChunk(x.buffer(), old, id, r, expires); err != nil {
		return fmt.Errorf("store: idempotency chunk %s: %w", key, err)
	}
	var opts *buntdb.SetOptions
	if longest > 0 {
		opts = &buntdb.SetOptions{Expires: true, TTL: time.UnixMilli(int64(longest)).Sub(now)}
	}
	sealed := sealBytes(key, x.keepBuffer(value))
	if _, _, err := x.t.Set(key, sealed, opts); err != nil {
		return fmt.Errorf("store: put %s: %w", key, err)
	}
	if appended {
		tail.appendEntry(sealed, id, expires)
	} else {
		tail.remember(key, sealed, sealed[sumDigits:])
	}
	x.writes.idemPlaced = append(x.writes.idemPlaced, idemPlacement{id: id, seq: seq, overflow: over})
	x.writes.idemCurrent = seq
	return nil
}

// chunkEntries counts the entries of the chunk payload old, from the Store's memory
// of it when known.
func (x tx) chunkEntries(known bool, old string) int {
	if known {
		return x.idem.tail.entries
	}
	return countIdemEntries(old)
}

// expiredChunk reports whether the chunk at key has expired but buntdb has not yet
// deleted it: it is left to that deletion, which takes its keys out of the index.
func (x tx) expiredChunk(key string) bool {
	_, err := x.t.Get(key, true)
	return err == nil
}

// unsealChunk returns the payload of a chunk's sealed value stored, "" for a
// missing chunk ("").
func unsealChunk(key, stored string) (string, error) {
	if stored == "" {
		return "", nil
	}
	payload, err := unseal(key, stored)
	if err != nil {
		return "", fmt.Errorf("store: get %s: %w", key, err)
	}
	return payload, nil
}

// countIdemEntries counts the entries of a bucket or chunk payload, as far as they
// parse (rewriteChunk reports the damage).
func countIdemEntries(payload string) int {
	_, entries, err := splitIdemBucket(payload)
	if err != nil {
		return 0
	}
	n := 0
	for it := (idemEntries{rest: entries}); it.next(); n++ {
	}
	return n
}

// rewriteChunk appends to dst chunk old with r's entry in place of id's entry, and
// returns it and the latest expiry it holds (0 when an entry is kept for good), dst
// grown. Expired entries stay:
// the chunk's expiry takes its keys out of the index (idemIndex.expire), so it must
// still name every key the index may hold it for.
func rewriteChunk(dst []byte, old string, id idemID, r sandbox.IdempotencyRecord, expires uint64) ([]byte, uint64, error) {
	longest := expires
	entries, err := splitIdemChunk(old)
	if err != nil {
		return nil, 0, err
	}
	b := append(slices.Grow(dst, len(old)+idemEntrySize(r)), idemFormat)
	it := idemEntries{rest: entries}
	for it.next() {
		if it.id == id {
			continue
		}
		e, err := idemEntryExpiry(it.body)
		if err != nil {
			return nil, 0, err
		}
		longest = laterExpiry(longest, e, false)
		b = append(b, it.whole...)
	}
	if it.err != nil {
		return nil, 0, it.err
	}
	return appendIdemEntry(b, id, r, expires), longest, nil
}

func expired(expires uint64, now time.Time) bool {
	return expires != 0 && uint64(now.UnixMilli()) >= expires
}

// findIdemEntry returns the body of id's entry in bucket.
func findIdemEntry(bucket string, id idemID) (string, bool, error) {
	it := idemEntries{rest: bucket}
	for it.next() {
		if it.id == id {
			return it.body, true, nil
		}
	}
	return "", false, it.err
}

var errIdemBucket = errors.New("damaged idempotency bucket")

// splitIdemBucket returns a bucket's format and its entries; a missing bucket ("") is
// an empty one of the current format.
func splitIdemBucket(bucket string) (byte, string, error) {
	if bucket == "" {
		return idemFormat, "", nil
	}
	if f := bucket[0]; f != idemFormat && f != idemFormat1 {
		return 0, "", fmt.Errorf("%w: format %d", errIdemBucket, f)
	}
	return bucket[0], bucket[1:], nil
}

// splitIdemChunk returns a chunk's entries: a chunk is always of the current format.
func splitIdemChunk(chunk string) (string, error) {
	format, entries, err := splitIdemBucket(chunk)
	if err == nil && format != idemFormat {
		err = fmt.Errorf("%w: format %d where %d belongs", errIdemBucket, format, idemFormat)
	}
	return entries, err
}

// idemEntries walks a bucket's entries, whose framing is the same in every format:
// after each successful next, id, whole (the entry) and body (past the id and the
// length) are the current entry's. A malformed entry ends the walk with err set.
type idemEntries struct {
	rest        string
	id          idemID
	whole, body string
	err         error
}

func (it *idemEntries) next() bool {
	if len(it.rest) == 0 || it.err != nil {
		return false
	}
	if len(it.rest) < idemIDSize {
		it.err = errIdemBucket
		return false
	}
	copy(it.id[:], it.rest)
	n, w := uvarint(it.rest[idemIDSize:])
	start := idemIDSize + w
	if w <= 0 || n > uint64(len(it.rest)-start) {
		it.err = errIdemBucket
		return false
	}
	end := start + int(n)
	it.whole, it.body, it.rest = it.rest[:end], it.rest[start:end], it.rest[end:]
	return true
}

// appendIdemEntry appends the entry of r, with its id and expiry, to b.
func appendIdemEntry(b []byte, id idemID, r sandbox.IdempotencyRecord, expires uint64) []byte {
	b = append(b, id[:]...)
	b = binary.AppendUvarint(b, uint64(idemBodySize(r, expires)))
	b = binary.AppendUvarint(b, expires)
	b = binary.AppendVarint(b, r.Time.UnixMilli())
	b = binary.AppendUvarint(b, 0) // the format's HTTP status: records keep none now
	b = append(b, idemKindCode(r.Kind))
	if idemKindCode(r.Kind) == 0 {
		b = appendString(b, r.Kind)
	}
	// The format's method and path slots stay empty: the request's identity, all a
	// record keeps of it now, goes in the slot of the body hash.
	for _, s := range [...]string{r.ResourceID, "", "", r.Request, string(r.Response)} {
		b = appendString(b, s)
	}
	return b
}

// idemBodySize is the length of the body appendIdemEntry writes.
func idemBodySize(r sandbox.IdempotencyRecord, expires uint64) int {
	var buf [binary.MaxVarintLen64]byte
	n := len(binary.AppendUvarint(buf[:0], expires)) + len(binary.AppendVarint(buf[:0], r.Time.UnixMilli())) +
		len(binary.AppendUvarint(buf[:0], 0)) + 1
	if idemKindCode(r.Kind) == 0 {
		n += len(binary.AppendUvarint(buf[:0], uint64(len(r.Kind)))) + len(r.Kind)
	}
	for _, s := range [...]string{r.ResourceID, "", "", r.Request, string(r.Response)} {
		n += len(binary.AppendUvarint(buf[:0], uint64(len(s)))) + len(s)
	}
	return n
}

// idemEntrySize is the length of the entry appendIdemEntry writes, at most.
func idemEntrySize(r sandbox.IdempotencyRecord) int {
	return idemIDSize + 2*binary.MaxVarintLen64 + idemBodySize(r, 1<<63)
}

// idemEntryExpiry reads only the expiry of an entry's body.
func idemEntryExpiry(body string) (uint64, error) {
	e, w := uvarint(body)
	if w <= 0 {
		return 0, errIdemBucket
	}
	return e, nil
}

// decodeIdemEntry decodes an entry's body in a bucket of the given format (all but
// the app and key, which the caller knows) and its expiry.
func decodeIdemEntry(format byte, body string) (sandbox.IdempotencyRecord, uint64, error) {
	d := idemDecoder{rest: body}
	expires := d.uvarint()
	var rec sandbox.IdempotencyRecord
	if format == idemFormat1 {
		sec := d.varint()
		nsec := d.uvarint()
		rec.Time = time.Unix(sec, int64(nsec)).UTC()
		d.uvarint() // the HTTP status, no longer kept
		rec.Kind = d.str()
	} else {
		rec.Time = time.UnixMilli(d.varint()).UTC()
		d.uvarint() // the HTTP status, no longer kept
		rec.Kind = d.kind()
	}
	rec.ResourceID = d.str()
	d.str() // the method and path, no longer kept
	d.str()
	rec.Request = d.str()
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

func (d *idemDecoder) kind() string {
	if d.rest == "" {
		d.bad = true
		return ""
	}
	code := d.rest[0]
	d.rest = d.rest[1:]
	switch code {
	case 0:
		return d.str()
	case idemKindCode("transaction"):
		return "transaction"
	case idemKindCode("order"):
		return "order"
	}
	d.bad, d.rest = true, ""
	return ""
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

// hasLegacyIdem reports whether the database holds records in an earlier layout.
func hasLegacyIdem(db *buntdb.DB) (bool, error) {
	found := false
	err := db.View(func(t *buntdb.Tx) error {
		for _, pattern := range []string{"idem:*", idemFormat1Prefix + "*", idemBucketPrefix + "*"} {
			err := t.AscendKeys(pattern, func(string, string) bool {
				found = true
				return false
			})
			if err != nil || found {
				return err
			}
		}
		return nil
	})
	return found, err
}
