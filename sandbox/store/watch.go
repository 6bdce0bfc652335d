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

const (
	checkEvery  = 100 * time.Millisecond
	shrinkEvery = time.Second
)

// fileWatch is the identity of the database file and the store's own rewrites.
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
}

// watchFile records the identity of the file at path, opened in db, and starts the
// loop that checks and rewrites it.
func watchFile(path string, db *buntdb.DB) (*fileWatch, error) {
	id, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	w := &fileWatch{path: path, db: db, id: id, lastSize: id.Size(), done: make(chan struct{})}
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

// loop checks the file every checkEvery, and every shrinkEvery rewrites it when it
// has doubled, as buntdb's AutoShrink would, until stop.
func (w *fileWatch) loop() {
	tick := time.NewTicker(checkEvery)
	defer tick.Stop()
	for n := 1; ; n++ {
		select {
		case <-w.done:
			return
		case <-tick.C:
		}
		if w.check() != nil || n%int(shrinkEvery/checkEvery) != 0 {
			continue
		}
		w.shrinkIfDoubled()
	}
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
	err := w.db.Shrink()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.shrinking = false
	if err != nil {
		return // the old file is still the one at the path, or the check says not
	}
	if now, err := os.Stat(w.path); err == nil {
		w.id, w.lastSize = now, now.Size()
	}
}

// stop ends the loop and waits for a rewrite under way. A second stop does nothing.
func (w *fileWatch) stop() {
	w.stopOnce.Do(func() {
		close(w.done)
		w.stopped.Wait()
	})
}
