package store

import (
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/tidwall/buntdb"
)

// A database file deleted or replaced under a running sandbox (rm, a restore copied
// over it, a volume swapped) is no longer the file buntdb writes to: buntdb keeps its
// descriptor, so writes would go on into a file nobody reads again, and be lost
// without a word at the next start. fileWatch remembers the identity (device and
// inode) of the file at the path and checks it every checkEvery, off the request
// path: a write only reads the answer of the last check, so one made less than
// checkEvery after the file was lost is lost with it, as one made just before.
//
// buntdb's own rewrite (Shrink) renames a new file over the path, changing its
// identity legitimately, and buntdb does not show its descriptor. So the store turns
// buntdb's AutoShrink off and shrinks itself, on the same terms (the file doubled
// since the last rewrite, from 1 MiB), recording the identity of the new file; a
// check during a rewrite passes.
//
// The store also syncs the file itself, every syncEvery, on a descriptor of its own
// (an fsync flushes the file, whichever descriptor asks): buntdb's SyncPolicy
// EverySecond syncs under the lock every Update takes, so that every request waited
// on the disk once a second.

const (
	checkEvery = 100 * time.Millisecond
	syncEvery  = time.Second
)

// fileWatch is the identity of the database file, its syncs and the store's own
// rewrites.
type fileWatch struct {
	path      string
	db        *buntdb.DB
	mu        sync.Mutex
	id        os.FileInfo // the file at path when last known to be ours
	shrinking bool        // a rewrite is under way: the identity is about to change
	lastSize  int64       // the size after the last rewrite (or at open)
	lost      atomic.Pointer[sandbox.Error]
	onLost    atomic.Pointer[func(error)]
	done      chan struct{}
	stopped   sync.WaitGroup
	stopOnce  sync.Once

	// Only the loop, and stop once the loop has ended, use the descriptor.
	file  *os.File     // the file at path, for its syncs
	syncs atomic.Int64 // how many syncs were asked, for the tests
}

// watchFile records the identity of the file at path, opened in db, and starts the
// loop that checks, syncs and rewrites it.
func watchFile(path string, db *buntdb.DB) (*fileWatch, error) {
	file, err := os.OpenFile(path, os.O_WRONLY, 0) // writable: Windows syncs no other
	if err != nil {
		return nil, err
	}
	id, err := file.Stat()
	if err != nil {
		_ = file.Close()
		return nil, err
	}
	w := &fileWatch{path: path, db: db, id: id, lastSize: id.Size(), file: file, done: make(chan struct{})}
	w.stopped.Go(w.loop)
	return w, nil
}

// err answers what the last check found: nil while the path names the file buntdb
// writes to, and the GP error naming the file from the first check that found it
// did not, for good.
func (w *fileWatch) err() error {
	if lost := w.lost.Load(); lost != nil {
		return lost
	}
	return nil
}

// check looks at the file at the path now, and answers as err does.
func (w *fileWatch) check() error {
	if err := w.err(); err != nil {
		return err
	}
	now, err := os.Stat(w.path)
	w.mu.Lock()
	ok := err == nil && os.SameFile(now, w.id) || w.shrinking
	w.mu.Unlock()
	if ok {
		return nil
	}
	lost := sandbox.DatabaseFileLost(w.path)
	if w.lost.CompareAndSwap(nil, lost) {
		if f := w.onLost.Load(); f != nil {
			(*f)(lost)
		}
	}
	return w.err()
}

// loop checks the file every checkEvery, and every syncEvery syncs it and rewrites it
// when it has doubled, as buntdb's AutoShrink would, until stop.
func (w *fileWatch) loop() {
	tick := time.NewTicker(checkEvery)
	defer tick.Stop()
	for n := 1; ; n++ {
		select {
		case <-w.done:
			return
		case <-tick.C:
		}
		if w.check() != nil || n%int(syncEvery/checkEvery) != 0 {
			continue
		}
		w.sync()
		w.shrinkIfDoubled()
	}
}

// sync flushes what buntdb wrote to the disk. An error is buntdb's to meet at its
// next write, as with its own syncs, which ignore it.
func (w *fileWatch) sync() {
	w.syncs.Add(1)
	_ = w.file.Sync()
}

func (w *fileWatch) shrinkIfDoubled() {
	if w.check() != nil {
		return // never rewrite over a file that is not ours
	}
	st, err := os.Stat(w.path)
	if err != nil || st.Size() <= autoShrinkMinSize || st.Size() <= 2*w.lastSize {
		return
	}
	w.shrink()
}

// shrink has buntdb rewrite the file with its live records only, and follows the new
// file at the path.
func (w *fileWatch) shrink() {
	w.mu.Lock()
	w.shrinking = true
	w.mu.Unlock()
	err := forgetCloses(w.db)
	if err == nil {
		err = w.db.Shrink()
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.shrinking = false
	if err != nil {
		return // the old file is still the one at the path, or the check says not
	}
	file, err := os.OpenFile(w.path, os.O_WRONLY, 0)
	if err != nil {
		return // the next check finds out what happened to it
	}
	if now, err := file.Stat(); err == nil {
		_ = w.file.Close()
		w.file, w.id, w.lastSize = file, now, now.Size()
		return
	}
	_ = file.Close()
}

// stop ends the loop, waiting for a rewrite under way, and syncs the file a last time
// unless it is lost: whatever the store does next with it (Close rewrites it), what
// was written is on the disk. Only the first stop does that and reports true.
func (w *fileWatch) stop() (first bool) {
	w.stopOnce.Do(func() {
		first = true
		close(w.done)
		w.stopped.Wait()
		if w.check() == nil {
			w.sync()
		}
		_ = w.file.Close()
	})
	return first
}
