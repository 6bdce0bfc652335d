// Package store keeps the sandbox's state in buntdb, an embedded key-value store with an
// append-only file. It is the only package that imports buntdb; the rest of the sandbox
// sees it as a sandbox.Store.
//
// # Key layout
//
// Every record is one key holding the JSON (encoding/json) of its sandbox type, or a
// compact binary encoding for the records written on every request (transactions:
// txnbin.go; adjustment history; idempotency entries), behind an 8-digit checksum
// of key and value (file.go); the file starts with a header record at "!gpsandbox"
// that marks it as the sandbox's own and names its format, 2 since transactions may
// hold patches (header.go):
//
//	app:<id>               sandbox.App
//	merchant:<id>          sandbox.Merchant
//	pricing:<name>         sandbox.PricingProfile
//	txn:<id>               sandbox.Transaction
//	txp:<id>               the fields by which txn:<id> is out of date, when it is
//	                       (a patch: txnpatch.go)
//	order:<id>             sandbox.Order
//	token:<value>          sandbox.Token
//	idemlog:<seq>          sandbox.IdempotencyRecord, up to 8 per chunk, in the order
//	                       written (idemlog.go; earlier layouts are read: idempotency.go)
//	adj:<txn id>:<slot>    sandbox.Adjustment (a ring of history slots)
//	batch:<id>             sandbox.Batch
//	bmember:<batch id>:<txn id>   a JSON string: the id of a transaction in the batch
//	ntf:<order>:<seq>      sandbox.Notification (the outbox and delivery log)
//	outbox:<order>:<seq>   "" while that notification is pending
//	meta:<key>             a JSON string
//	step:<scenario>:<rule>:<scope>   a JSON number: sequence steps a scope consumed
//
// Tokens and idempotency chunks carry a buntdb TTL (kept in the file), so they
// vanish by themselves once nobody can use them; no sweep is needed. Which chunk
// holds an idempotency key is indexed in memory, rebuilt at open.
// Decoded apps, merchants, pricing profiles, transactions, batches and notifications
// are cached (cache.go), committed values only.
//
// # Durability
//
// buntdb writes a committed transaction to its file (a write(2), no user-space buffer)
// before Update returns, so a write that Update reported is never lost to a crash or
// kill -9 of the process. What the sync policy decides is when the OS is told to put it
// on the disk: by default once a second, by a syncer of our own (syncer.go) rather than
// buntdb's EverySecond, which fsyncs under the database's lock; so an OS crash or power
// loss can lose about the last second of writes. With Options.SyncAlways every commit
// is fsynced before Update returns, at the cost of one fsync per API action (buntdb
// ignores an fsync error). The file is compacted when it has grown fourfold since the
// last compaction and the store is idle, or when a busy store's file has grown 1 GiB
// past that (compactor.go), on Close once it holds 1 MiB, and on Open when at least
// half of the file is dead, as a kill -9 under load leaves it (reopen.go).
package store

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/bounded"
	"github.com/tidwall/buntdb"
)

// autoShrinkMinSize is the smallest file the store compacts (see compactor.go).
// buntdb's own minimum (32 MiB) would let a sandbox's file, a few hundred kilobytes
// of live data, accumulate rewrites of the same keys for a long time.
const autoShrinkMinSize = 1 << 20

// syncEvery is how often the syncer fsyncs a file that was written to.
const syncEvery = time.Second

// Options tune OpenWith.
type Options struct {
	// SyncAlways fsyncs every commit before Update returns, so that not even an OS
	// crash loses a reported write. The default syncs once a second.
	SyncAlways bool

	compaction *compaction // when to compact; defaultCompaction when nil (tests shorten it)
}

// Store is a sandbox.Store over one buntdb database.
type Store struct {
	db    *buntdb.DB
	cache *recordCache
	idem  *idemIndex // which chunk holds each idempotency key (idemlog.go)
	// legacyIdem is set when the file held idempotency records of an earlier
	// layout when it was opened (buckets, or one item per key): a key the chunks do
	// not hold is then also looked up there. They expire by themselves, so a later
	// open clears it.
	legacyIdem bool
	syncer     *syncer              // nil for ":memory:" and with SyncAlways
	compactor  *compactor           // nil for ":memory:"
	path       string               // ":memory:" for no file
	torn       *TornWrite           // what Open cut off the file, if anything
	scratch    []byte               // an encoding buffer for the Update running (see tx.buffer)
	pending    pendingWrites        // what the Update running wrote, reused (see pendingWrites.start)
	spare      *sandbox.Transaction // see cachedPutTransaction
}

var _ sandbox.Store = (*Store)(nil)

// Open opens the store at path with default Options. The path ":memory:" keeps
// nothing; any other path is a file, created if missing.
func Open(path string) (*Store, error) { return OpenWith(path, Options{}) }

// OpenWith opens the store at path with opts. A file the sandbox did not write, or
// one damaged since, is refused with a *DamagedError and left as it is (see file.go);
// so is a file of a later format than this binary reads, with a *NewerFormatError
// (header.go).
func OpenWith(path string, opts Options) (*Store, error) {
	var torn *TornWrite
	if path != ":memory:" {
		var err error
		if torn, err = prepareFile(path); err != nil {
			var damaged *DamagedError
			var newer *NewerFormatError
			if errors.As(err, &damaged) || errors.As(err, &newer) {
				return nil, err
			}
			return nil, fmt.Errorf("store: open %s: %w", path, err)
		}
	}
	db, err := buntdb.Open(path)
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	if err := writeHeader(db); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("store: start %s: %w", path, err)
	}
	idem := newIdemIndex()
	cfg := buntdb.Config{
		SyncPolicy:         buntdb.Never, // the syncer's job, outside buntdb's lock
		AutoShrinkDisabled: true,         // the compactor's
		OnExpiredSync: func(key, value string, t *buntdb.Tx) error {
			return idem.expire(key, value, t)
		},
	}
	if opts.SyncAlways {
		cfg.SyncPolicy = buntdb.Always
	}
	if err := db.SetConfig(cfg); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("store: configure %s: %w", path, err)
	}
	legacy, err := hasLegacyIdem(db)
	if err == nil {
		err = idem.load(db)
	}
	if errors.Is(err, errIdemBucket) {
		_ = db.Close()
		return nil, fmt.Errorf("store: %s: %w. `gpsandbox repair --db %s` copies what is readable to a new file; or move the file away to start afresh",
			path, err, path)
	}
	if err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("store: scan %s: %w", path, err)
	}
	s := &Store{db: db, cache: bounded.New[any](recordCacheSize), idem: idem, legacyIdem: legacy, path: path, torn: torn}
	if path != ":memory:" && !opts.SyncAlways {
		s.syncer = startSyncer(path, syncEvery)
	}
	if path != ":memory:" {
		when := defaultCompaction
		if opts.compaction != nil {
			when = *opts.compaction
		}
		s.compactor = startCompactor(db, path, when)
	}
	return s, nil
}

// writeHeader makes the header the first command of a new file. In a file already
// started it sets the header again when the value buntdb holds is not this
// binary's, which a compaction would otherwise write first: a format-1 file holds
// a format-1 header after each flushdb (header.go).
func writeHeader(db *buntdb.DB) error {
	return db.Update(func(t *buntdb.Tx) error {
		if v, err := t.Get(headerKey); err == nil && v == headerValue(0) {
			return nil
		}
		_, _, err := t.Set(headerKey, headerValue(0), nil)
		return err
	})
}

// TornWrite reports the torn last write Open cut off the file, left by a crash while
// it was written (so never acknowledged); nil when there was none.
func (s *Store) TornWrite() *TornWrite { return s.torn }

// compactForRestart compacts a file past autoShrinkMinSize before it is closed. The
// next start reads the whole file (check, then load), and a file compacted only when
// it reaches four times its live size can hold three times more dead records than
// live ones: at 1,000,000 idempotency keys that is the difference between about a
// second and over two to be healthy again. A failed compaction changes nothing (it
// works on a copy), so its error is not Close's.
func (s *Store) compactForRestart() {
	if st, err := os.Stat(s.path); err == nil && st.Size() >= autoShrinkMinSize {
		_ = s.db.Shrink()
	}
}

// View runs fn in a read-only transaction; many may run at once.
func (s *Store) View(fn func(sandbox.Tx) error) error {
	return s.db.View(func(t *buntdb.Tx) error { return fn(tx{t: t, cache: s.cache, idem: s.idem, legacyIdem: s.legacyIdem}) })
}

// Update runs fn in the single read-write transaction, which blocks every other View
// and Update until it ends, so fn must not wait on anything (nor call View or Update).
// If fn returns an error nothing it wrote is kept and Update returns that error.
func (s *Store) Update(fn func(sandbox.Tx) error) error {
	applied := false
	err := s.db.Update(func(t *buntdb.Tx) error {
		w := s.pending.start()
		if err := fn(tx{t: t, cache: s.cache, writes: w, idem: s.idem, legacyIdem: s.legacyIdem, scratch: &s.scratch, spare: &s.spare}); err != nil {
			return err
		}
		applyWrites(s.cache, w, &s.spare) // still under the write lock: see recordCache
		s.idem.apply(w)                   // likewise; a failed commit leaves it naming missing entries: idemlog.go
		applied = true
		return nil
	})
	if err != nil && applied {
		s.cache.Clear() // the commit failed after the cache took its writes
	}
	if err == nil && s.syncer != nil {
		s.syncer.committed()
	}
	if err == nil && s.compactor != nil {
		s.compactor.committed(time.Now())
	}
	return err
}

// Close syncs and closes the file, and records its length in the header so that the
// next Open can tell a cleanly closed file from one cut short. Transactions must have
// ended.
func (s *Store) Close() error {
	if s.compactor != nil {
		s.compactor.close() // before compactForRestart: one compaction at a time
		s.compactor = nil
	}
	if s.syncer != nil {
		s.syncer.close()
		s.syncer = nil
	}
	if s.path != ":memory:" {
		s.compactForRestart()
	}
	if err := s.db.Close(); err != nil {
		return err
	}
	if s.path == ":memory:" {
		return nil
	}
	return markClosed(s.path)
}
