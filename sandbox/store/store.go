// Package store keeps the sandbox's state in buntdb, an embedded key-value store with an
// append-only file. It is the only package that imports buntdb; the rest of the sandbox
// sees it as a sandbox.Store.
//
// # Key layout
//
// Every record is one key holding the JSON (encoding/json) of its sandbox type:
//
//	!gp-sandbox                     the mark: the first record of every file (check.go)
//	!gp-sandbox-close               the records of a clean close, not JSON kept (close.go)
//	app:<id>                        sandbox.App
//	merchant:<id>                   sandbox.Merchant
//	macct:<id>                      sandbox.MerchantAccount, an account of a merchant (boarding.go)
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
//	deposit:<id>                    sandbox.Deposit, with its settlement rows
//	dispute:<id>                    sandbox.Dispute, its documents by hash and size
//	ntf:<order id>:<seq>            sandbox.Notification, seq zero-padded to 8 digits
//	outbox:<order id>:<seq>         "" while that notification is pending
//	meta:<key>                      a JSON string
//	sort:txn:<id>                   what the transaction lists order by (walk.go), not JSON
//	count:listed:<merchant id>      a JSON number: the merchant's listed transactions (walk.go)
//	count:txn:<merchant id>         the same, verifications included, in older files: indexed again at start
//	step:<scenario>:<rule>:<scope>  a JSON number: a scope's calls of a rule (sequence steps, probability draws), with a buntdb TTL
//	pmt:<id>                        sandbox.PaymentMethod, a card token
//	act:<seq>, rate:<id>            action records in their order, rate lookups (action.go)
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
// the last rewrite, at the end of a second with fewer than ten writes, and at Close when
// anything was written since the open.
//
// A file is opened by one process at a time (lock.go), and checked before buntdb
// reads it (check.go): buntdb would take a foreign file, or drop everything after a
// damaged record. A clean close writes it afresh with a checksum (close.go), so that a
// start refuses a file cut short or changed since; every record that checksum does
// not prove is decoded as its kind while buntdb loads it (records.go). While it is
// open, the path must still name it (watch.go): buntdb would go on writing into a
// deleted file, or beside the one that replaced it, and what it acknowledged is
// saved beside it.
package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

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
	// Reset opens a sandbox database that check.go refuses as damaged as an empty
	// one, for --reset; a file that is not the sandbox's is refused still, and left as
	// it is. A good file is opened as it is: the reset itself is the caller's
	// DeleteAll, which commits with the fixtures or not at all.
	Reset bool
	// SetAside opens a file whose records do not all decode, moving them into a file
	// beside it, and one cut short or changed since its clean close as it is, for
	// --set-aside-damaged; Repairs says what was done. A file whose commands are
	// damaged is refused still.
	SetAside bool
}

// Store is a sandbox.Store over one buntdb database.
type Store struct {
	db        *buntdb.DB
	lock      *os.File // nil for ":memory:"
	inode     *os.File // the database file's own lock (lockInode); nil for ":memory:"
	file      *fileWatch
	snapshots *snapshots // snapshot.go

	path    string
	records int         // how many the file held at open, beside the store's own
	opened  os.FileInfo // the file once opened, to tell whether anything was written since
	proven  bool        // a clean close left it so, and the start proved it (close.go)
	repairs []string    // what SetAside did
}

var _ sandbox.Store = (*Store)(nil)

// Open opens the store at path with default Options. The path ":memory:" keeps
// nothing; any other path is a file, created if missing.
func Open(path string) (*Store, error) { return OpenWith(path, Options{}) }

// OpenWith opens the store at path with opts. A file another process has open is
// refused with a *LockedError, a damaged or foreign one with a *DamagedError; both
// leave the file as it is.
func OpenWith(path string, opts Options) (*Store, error) {
	// Snapshots stay beside the path as given, where they always were; the lock, the
	// writes and the rewrite at close go to the file it names.
	s := &Store{snapshots: newSnapshots(path)}
	if path != ":memory:" {
		path = realPath(path)
	}
	s.path = path
	if path == ":memory:" {
		db, err := buntdb.Open(path)
		if err == nil {
			err = createIndexes(db)
		}
		if err != nil {
			return nil, err
		}
		s.db = db
		return s, nil
	}
	if err := folderOf(path); err != nil {
		return nil, err
	}
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		// A folder, a device (/dev/null would take every write and keep none): refused
		// before a lock file is made beside it.
		return nil, fmt.Errorf("database file %s is not a regular file: name a file, or :memory: to keep nothing", path)
	}
	lock, err := lockFile(path)
	if err != nil {
		return nil, err
	}
	if s.inode, err = lockInode(path); err != nil {
		unlockFile(lock)
		return nil, err
	}
	err = s.openFile(opts)
	var damaged *DamagedError
	if errors.As(err, &damaged) && opts.Reset && !damaged.Foreign {
		if err = os.Truncate(path, 0); err == nil {
			err = s.openFile(opts)
		}
	}
	if err == nil {
		if err = s.relockInode(); err != nil { // a new file, locked before another can link to it
			_ = s.db.Close()
		}
	}
	if err == nil {
		s.file, err = watchFile(path, s.db)
		if err != nil {
			_ = s.db.Close()
		}
	}
	if err != nil {
		s.unlockInode()
		unlockFile(lock)
		return nil, err
	}
	s.lock = lock
	return s, nil
}

// unlockInode lets go of the file's own lock (lockInode), if it was taken.
func (s *Store) unlockInode() {
	if s.inode != nil {
		_ = s.inode.Close()
		s.inode = nil
	}
}

// openFile checks the file at the store's path and opens it in buntdb, configured and
// marked.
func (s *Store) openFile(opts Options) error {
	path := s.path
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		if err := s.load(nil, fileScan{}, 0, opts); err != nil {
			return err
		}
		s.opened, err = os.Stat(path)
		return err
	}
	if err != nil {
		return fmt.Errorf("store: check %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("store: check %s: %w", path, err)
	}
	scan, whole := scanClosed(f, st.Size())
	if !whole {
		if scan, err = scanFile(path, f, st.Size(), true); err != nil {
			return err
		}
	}
	proven, err := scan.checkCloses(path)
	var damaged *DamagedError
	if errors.As(err, &damaged) && (damaged.Cut || damaged.Changed) {
		if !opts.SetAside {
			// A record that does not decode says where, better than the checksum.
			if bad, derr := checkRecords(f, 0, scan.end, false); derr == nil && len(bad) > 0 {
				return bad[0].error(path)
			}
			return err
		}
		s.repairs = append(s.repairs, "it "+damaged.Problem()+"; it was opened with what it holds")
		err = nil
	}
	if err != nil {
		return err
	}
	if err := s.load(f, scan, proven, opts); err != nil {
		return err
	}
	s.proven = proven == st.Size() && len(s.repairs) == 0
	s.opened, err = os.Stat(path)
	return err
}

// load opens the file in buntdb while the records the scan did not prove are decoded
// from f (records.go), on another core: buntdb writes nothing as it loads a file whose
// commands are whole, and its own writes wait for the decoding. A file that ends in a
// command cut short, which buntdb cuts off, is decoded first.
func (s *Store) load(f *os.File, scan fileScan, proven int64, opts Options) error {
	type decoded struct {
		damaged []damagedRecord
		err     error
	}
	decode := func() (d decoded) {
		if f != nil {
			d.damaged, d.err = checkRecords(f, proven, scan.end, opts.SetAside)
		}
		if d.err == nil && len(d.damaged) > 0 && !opts.SetAside {
			d.err = d.damaged[0].error(s.path)
		}
		return d
	}
	result := make(chan decoded, 1)
	if scan.torn {
		d := decode()
		if d.err != nil {
			return d.err // before buntdb cuts the torn command off
		}
		result <- d
	} else {
		go func() { result <- decode() }()
	}
	cfg := buntdb.Config{
		SyncPolicy:         buntdb.Never, // fileWatch syncs, outside buntdb's lock
		AutoShrinkDisabled: true,         // fileWatch shrinks, knowing the file it renames
	}
	if opts.SyncAlways {
		cfg.SyncPolicy = buntdb.Always
	}
	db, err := buntdb.Open(s.path)
	if err == nil {
		held := cfg
		held.OnExpired = func([]string) {} // no deletes written until the records are checked
		err = db.SetConfig(held)
	}
	d := <-result
	if err == nil {
		err = d.err
	}
	if err == nil && len(d.damaged) > 0 {
		err = s.setAside(db, d.damaged)
	}
	if err == nil && len(s.repairs) > 0 {
		err = rewriteLive(db) // the file no longer holds what was refused
	}
	if err == nil {
		err = s.start(db, cfg)
	}
	if err != nil {
		if db != nil {
			_ = db.Close()
		}
		var damaged *DamagedError
		if errors.As(err, &damaged) {
			return err
		}
		return fmt.Errorf("store: open %s: %w", s.path, err)
	}
	s.db = db
	return nil
}

// start configures db, marks it, builds the indexes and counts its records.
func (s *Store) start(db *buntdb.DB, cfg buntdb.Config) error {
	err := db.SetConfig(cfg)
	if err == nil {
		err = db.Update(putMark)
	}
	if err == nil {
		err = createIndexes(db)
	}
	if err == nil {
		err = db.Update(upgradeLayout)
	}
	if err == nil {
		err = db.View(func(t *buntdb.Tx) error {
			n, err := t.Len()
			for _, own := range []string{markKey, closeKey} {
				if _, gerr := t.Get(own); gerr == nil {
					n--
				}
			}
			s.records = n
			return err
		})
	}
	return err
}

// upgradeLayout brings what a file or a snapshot of an older layout holds to this
// one, at every open and restore: the transactions' sort records and counts
// (indexTransactions), and no record the store no longer reads.
func upgradeLayout(t *buntdb.Tx) error {
	if err := upgradeActions(t, sandbox.ActionsKept); err != nil {
		return err
	}
	return indexTransactions(t)
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
// be lost at the next start. That is decided inside buntdb's lock, which the rescue of
// what the store holds waits for: a write is in the rescued file or refused.
func (s *Store) Update(fn func(sandbox.Tx) error) error {
	return s.update(func(t *buntdb.Tx) error { return fn(tx{t}) })
}

// update is Update over buntdb's own transaction.
func (s *Store) update(fn func(*buntdb.Tx) error) error {
	if s.file == nil {
		return s.db.Update(fn)
	}
	if err := s.file.err(); err != nil { // what the watch last found: no system call
		return err
	}
	s.file.writes.Add(1)
	return s.db.Update(func(t *buntdb.Tx) error {
		if err := s.file.err(); err != nil {
			return err
		}
		return fn(t)
	})
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

// Close syncs the file, writes it afresh as a clean close leaves it (close.go) unless
// nothing was written to it since it was opened, and closes it, then lets another
// process open it: a start refused after the open (its fixtures, say) leaves the file
// as it found it. Transactions must have ended. A second Close reports
// buntdb.ErrDatabaseClosed.
func (s *Store) Close() error {
	if s.file != nil && s.file.stop() && s.file.check() == nil && !s.unchangedSinceOpen() {
		// A failed rewrite leaves the file as it was, which the next start can still
		// read; a file that is no longer ours is not rewritten (the watch rescued
		// what it held).
		_ = rewriteClosed(s.db, s.path)
	}
	err := s.db.Close()
	if s.lock != nil && !errors.Is(err, buntdb.ErrDatabaseClosed) {
		s.unlockInode()
		unlockFile(s.lock)
	}
	return err
}

// unchangedSinceOpen reports whether the file is as it was once opened: nothing was
// written to it since (buntdb only appends, and a rewrite makes another file).
func (s *Store) unchangedSinceOpen() bool {
	now, err := os.Stat(s.path)
	return err == nil && os.SameFile(now, s.opened) && now.Size() == s.opened.Size()
}

// Records is how many records the file held at open, beside the store's own (its
// mark): 0 for a new database.
func (s *Store) Records() int { return s.records }

// Repairs says what Options.SetAside did at open, one sentence each; none when the
// file opened as it was.
func (s *Store) Repairs() []string { return s.repairs }

// folderOf checks the folder a database file is to be in, before the lock file beside
// it is made, whose error would name the lock file instead.
func folderOf(path string) error {
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("database file %s: the folder %s does not exist: create it, or name another file", path, dir)
	case err != nil:
		return fmt.Errorf("database file %s: %w", path, err)
	case !st.IsDir():
		return fmt.Errorf("database file %s: %s is not a folder", path, dir)
	}
	return nil
}
