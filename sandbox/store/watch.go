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
// inode) of the file at the path and checks it before every write.
//
// buntdb's own rewrite (Shrink) renames a new file over the path, changing its
// identity legitimately, and buntdb does not show its descriptor. So the store turns
// buntdb's AutoShrink off and shrinks itself, on the same terms (the file doubled
// since the last rewrite, from 1 MiB), recording the identity of the new file; a
// check during a rewrite passes.

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
}

// watchFile records the identity of the file at path, opened in db, and starts the
// shrink loop.
func watchFile(path string, db *buntdb.DB) (*fileWatch, error) {
	id, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	w := &fileWatch{path: path, db: db, id: id, lastSize: id.Size(), done: make(chan struct{})}
	w.stopped.Go(w.shrinkLoop)
	return w, nil
}

// check answers nil while the path names the file buntdb writes to, and the GP error
// naming the file from the first time it does not, for good.
func (w *fileWatch) check() error {
	if lost := w.lost.Load(); lost != nil {
		return lost
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
	return w.lost.Load()
}

// shrinkLoop rewrites the file once a second when it has doubled, as buntdb's
// AutoShrink would, until stop.
func (w *fileWatch) shrinkLoop() {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-w.done:
			return
		case <-tick.C:
			w.shrinkIfDoubled()
		}
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
	w.mu.Lock()
	w.shrinking = true
	w.mu.Unlock()
	err = w.db.Shrink()
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

// stop ends the shrink loop and waits for a rewrite under way.
func (w *fileWatch) stop() {
	select {
	case <-w.done:
	default:
		close(w.done)
	}
	w.stopped.Wait()
}
