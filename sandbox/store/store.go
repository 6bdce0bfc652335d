// Package store keeps the sandbox's state in buntdb, an embedded key-value store with an
// append-only file. It is the only package that imports buntdb; the rest of the sandbox
// sees it as a sandbox.Store.
//
// # Key layout
//
// Every record is one key holding the JSON (encoding/json) of its sandbox type:
//
//	!gp-sandbox                     the mark: the first record of every file (check.go)
//	app:<id>                        sandbox.App
//	merchant:<id>                   sandbox.Merchant
//	pricing:<name>                  sandbox.PricingProfile
//	txn:<id>                        sandbox.Transaction
//	adj:<txn id>:<seq>              sandbox.Adjustment, seq zero-padded to 10 digits
//	order:<id>                      sandbox.Order
//	device:<id>                     sandbox.Device, a card-present terminal (indexed: device.go)
//	devreq:<id>                     sandbox.DeviceRequest, a command sent to a terminal
//	token:<hash>                    sandbox.Token (SHA-256 of its value), with a buntdb TTL
//	idem:<app id>:<key>             sandbox.IdempotencyRecord without its app and key, with a buntdb TTL
//	paid:<duplicate key>            sandbox.PaymentMark (a SHA-256, no card data), with a buntdb TTL
//	batch:<id>                      sandbox.Batch
//	bmember:<batch id>:<txn id>     a JSON string: the id of a transaction in the batch
//	ntf:<order id>:<seq>            sandbox.Notification, seq zero-padded to 8 digits
//	outbox:<order id>:<seq>         "" while that notification is pending
//	meta:<key>                      a JSON string
//	sort:txn:<id>                   what the transaction lists order by (walk.go), not JSON
//	count:txn:<merchant id>         a JSON number: the merchant's transactions (walk.go)
//	step:<scenario>:<rule>:<scope>  a JSON number: a scope's calls of a rule (sequence steps, probability draws), with a buntdb TTL
//
// Every listing is in key order (ids, then zero-padded sequence numbers), but for the
// transaction lists in an order other than the id's, which walk buntdb indexes over
// sort:txn:* (walk.go), rebuilt in memory on every open. Tokens and idempotency keys carry a buntdb TTL, kept in the
// file, so they vanish by themselves once nobody can use them; so do call counters
// once their scope has stopped calling.
//
// # Durability
//
// buntdb writes a committed transaction to its file (one write(2), no user-space
// buffer) before Update returns, so a write that Update reported survives a kill -9.
// When the OS puts it on the disk is the sync policy's choice: by default the store
// syncs the file once a second itself (watch.go), outside the lock every Update takes,
// so an OS crash or power loss can lose about the last second of writes; with
// Options.SyncAlways buntdb fsyncs every commit before Update returns. The store
// rewrites the file (watch.go, with buntdb's AutoShrink off) once it has doubled since
// the last rewrite.
//
// A file is opened by one process at a time (lock.go), and checked before buntdb
// reads it (check.go): buntdb would take a foreign file, or drop everything after a
// damaged record. While it is open, the path must still name it (watch.go): buntdb
// would go on writing into a deleted file, or beside the one that replaced it.
package store

import (
	"errors"
	"fmt"
	"os"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/tidwall/buntdb"
)

// autoShrinkMinSize is the smallest file buntdb rewrites. buntdb's own minimum
// (32 MiB) would let a sandbox's file, a few hundred kilobytes of live data,
// accumulate rewrites of the same keys for a long time.
const autoShrinkMinSize = 1 << 20

// Options tune OpenWith.
type Options struct {
	// SyncAlways fsyncs every commit before Update returns, so that not even an OS
	// crash loses a reported write. The default syncs once a second.
	SyncAlways bool
	// Reset opens a file that check.go refuses (damaged, or not the sandbox's) as an
	// empty database, for --reset. A good file is opened as it is: the reset itself
	// is the caller's DeleteAll, which commits with the fixtures or not at all.
	Reset bool
}

// Store is a sandbox.Store over one buntdb database.
type Store struct {
	db        *buntdb.DB
	lock      *os.File // nil for ":memory:"
	file      *fileWatch
	snapshots *snapshots // snapshot.go
}

var _ sandbox.Store = (*Store)(nil)

// Open opens the store at path with default Options. The path ":memory:" keeps
// nothing; any other path is a file, created if missing.
func Open(path string) (*Store, error) { return OpenWith(path, Options{}) }

// OpenWith opens the store at path with opts. A file another process has open is
// refused with a *LockedError, a damaged or foreign one with a *DamagedError; both
// leave the file as it is.
func OpenWith(path string, opts Options) (*Store, error) {
	if path == ":memory:" {
		db, err := buntdb.Open(path)
		if err == nil {
			err = createIndexes(db)
		}
		if err != nil {
			return nil, err
		}
		return &Store{db: db, snapshots: newSnapshots(path)}, nil
	}
	lock, err := lockFile(path)
	if err != nil {
		return nil, err
	}
	db, err := openFile(path, opts)
	var file *fileWatch
	if err == nil {
		file, err = watchFile(path, db)
		if err != nil {
			_ = db.Close()
		}
	}
	if err != nil {
		unlockFile(lock)
		return nil, err
	}
	return &Store{db: db, lock: lock, file: file, snapshots: newSnapshots(path)}, nil
}

// openFile checks the file at path and opens it in buntdb, configured and marked.
func openFile(path string, opts Options) (*buntdb.DB, error) {
	err := checkFile(path)
	var damaged *DamagedError
	if errors.As(err, &damaged) && opts.Reset {
		err = os.Truncate(path, 0)
	}
	if err != nil {
		return nil, err
	}
	db, err := buntdb.Open(path)
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	cfg := buntdb.Config{
		SyncPolicy:         buntdb.Never, // fileWatch syncs, outside buntdb's lock
		AutoShrinkDisabled: true,         // fileWatch shrinks, knowing the file it renames
	}
	if opts.SyncAlways {
		cfg.SyncPolicy = buntdb.Always
	}
	if err == nil {
		err = db.SetConfig(cfg)
	}
	if err == nil {
		err = db.Update(putMark)
	}
	if err == nil {
		err = createIndexes(db)
	}
	if err == nil {
		err = db.Update(indexTransactions)
	}
	if err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("store: start %s: %w", path, err)
	}
	return db, nil
}

// createIndexes builds the buntdb indexes, which live in memory only, at every open:
// the transaction lists' over the sort records (walk.go) and the terminals' (device.go).
func createIndexes(db *buntdb.DB) error {
	if err := createTransactionIndexes(db); err != nil {
		return err
	}
	return createDeviceIndexes(db)
}

// View runs fn in a read-only transaction; many may run at once.
func (s *Store) View(fn func(sandbox.Tx) error) error {
	return s.db.View(func(t *buntdb.Tx) error { return fn(tx{t}) })
}

// Inspect runs fn in a read-only transaction, as View does, with the admin
// inspector's listings (list.go).
func (s *Store) Inspect(fn func(sandbox.Tx, sandbox.InspectTx) error) error {
	return s.db.View(func(t *buntdb.Tx) error { return fn(tx{t}, tx{t}) })
}

// Update runs fn in the single read-write transaction, which blocks every other View
// and Update until it ends, so fn must not wait on anything (nor call View or Update).
// If fn returns an error nothing it wrote is kept and Update returns that error. Once
// the file was found deleted or replaced under the sandbox (watch.go looks every
// 100 ms), every Update is refused with a GP SYSTEM_ERROR naming it: its writes would
// be lost at the next start.
func (s *Store) Update(fn func(sandbox.Tx) error) error {
	if s.file != nil {
		if err := s.file.err(); err != nil { // what the watch last found: no system call
			return err
		}
	}
	return s.db.Update(func(t *buntdb.Tx) error { return fn(tx{t}) })
}

// Check reports whether the store still keeps what it writes, looking at the file
// now: nil, or the GP error that names a database file deleted or replaced while the
// sandbox ran.
func (s *Store) Check() error {
	if s.file == nil {
		return nil
	}
	return s.file.check()
}

// OnLost calls f once, with the error, when the store finds its file deleted or
// replaced.
func (s *Store) OnLost(f func(error)) {
	if s.file != nil {
		s.file.onLost.Store(&f)
	}
}

// Close syncs and closes the file, then lets another process open it. Transactions
// must have ended.
func (s *Store) Close() error {
	if s.file != nil {
		s.file.stop()
		if s.file.check() == nil {
			// A clean stop leaves only live records in the file, so the next start
			// reads none of the dead ones a shrink tolerates (up to as many again). A
			// failed rewrite leaves the file as it was, which buntdb can still read;
			// a file that is no longer ours is not rewritten.
			_ = s.db.Shrink()
		}
	}
	err := s.db.Close()
	if s.lock != nil && !errors.Is(err, buntdb.ErrDatabaseClosed) {
		unlockFile(s.lock)
	}
	return err
}
