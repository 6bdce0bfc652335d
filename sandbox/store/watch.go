package store

import (
	"fmt"
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
// What the sandbox acknowledged before it found the file lost is still in buntdb's
// memory: the watch writes it (rescue) into a new file beside the lost one,
// <db>.rescued-<time>.db, as a clean close writes a database (close.go), and names it
// in the error of every refused write, the health check and the log, with the way to
// go on from it. A rescue that fails is tried again every syncEvery, and once more at
// Close.
//
// buntdb's own rewrite (Shrink) renames a new file over the path, changing its
// identity legitimately, and buntdb does not show its descriptor. So the store turns
// buntdb's AutoShrink off and shrinks itself, recording the identity of the new file;
// a check during a rewrite passes. It rewrites a file that has doubled since the last
// rewrite (from 1 MiB) at the end of a second the store was idle in, one with fewer
// than idleWrites writes: a rewrite ends with the new file renamed over the old under
// buntdb's lock, and the disk writing out the new file stalled every request for 20 to
// 130 ms, each time, under sustained load; in an idle second its stall meets a few
// requests at most, and a client polling a few times a second still gets its file
// rewritten. A store under sustained load is rewritten when the file has doubled and
// grown busyGrowth past the last rewrite: a keyed adjustment writes about 2.3 KB, so
// a load test at 5,000 a second writes 230 MB in 20 s, and a limit relative to the
// file (four times its size) stalled every request of such a run in its middle (p99
// 116 ms at 64 connections).
//
// The store also syncs the file itself, every syncEvery, on a descriptor of its own
// (an fsync flushes the file, whichever descriptor asks): buntdb's SyncPolicy
// EverySecond syncs under the lock every Update takes, so that every request waited
// on the disk once a second.

const (
	checkEvery = 100 * time.Millisecond
	syncEvery  = time.Second
	idleWrites = 10      // writes in a second below which the store counts as idle
	busyGrowth = 1 << 30 // bytes past the last rewrite that a store never idle is rewritten at
)

// fileWatch is the identity of the database file, its syncs and the store's own
// rewrites.
type fileWatch struct {
	path          string
	db            *buntdb.DB
	mu            sync.Mutex
	id            os.FileInfo   // the file at path when last known to be ours
	shrinking     bool          // a rewrite is under way: the identity is about to change
	lastSize      int64         // the size after the last rewrite (or at open), under mu
	file          *os.File      // the file at path, for its syncs; a rewrite replaces it under mu
	writes        atomic.Uint64 // Updates begun, for the loop to tell an idle store
	noIdleRewrite atomic.Bool   // a test turns the loop's idle rewrite off, to call shrinkIfDue itself
	lost          atomic.Pointer[sandbox.Error]
	onLost        atomic.Pointer[func(error)]
	done          chan struct{}
	stopped       sync.WaitGroup
	stopOnce      sync.Once

	// Only the loop, and stop once the loop has ended, use these.
	syncs          atomic.Int64 // how many syncs were asked, for the tests
	tried, rescued bool         // a rescue was tried; it saved what the store held
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
	lost := sandbox.DatabaseFileLost(w.path, "what it acknowledged is being saved beside it")
	if w.lost.CompareAndSwap(nil, lost) {
		w.tell(lost)
	}
	return w.err()
}

// tell passes what happened to the file to OnLost's function.
func (w *fileWatch) tell(err error) {
	if f := w.onLost.Load(); f != nil {
		(*f)(err)
	}
}

// rescue writes what buntdb holds into a new file beside the lost one, and says
// where in the error writes get from then on. Writes are refused already (lost is
// set), and the one that held buntdb's lock when the file was found lost ends before
// the copy starts: every write Update reported is in the copy.
func (w *fileWatch) rescue() {
	w.tried = true
	var name string
	f, err := createBeside(w.path, "rescued", ".db")
	if err == nil {
		name = f.Name()
		err = writeClosedFile(w.db, f)
	}
	var lost *sandbox.Error
	if err != nil {
		lost = sandbox.DatabaseFileLost(w.path, fmt.Sprintf(
			"saving what it acknowledged beside it failed (%v), and is tried again every second: until then it is held in memory only", err))
	} else {
		w.rescued = true
		lost = sandbox.DatabaseFileLost(w.path, fmt.Sprintf(
			"every write it acknowledged is saved in %s: to go on from there, stop the sandbox, move that file to %s and start it again", name, w.path))
	}
	w.lost.Store(lost)
	w.tell(lost)
}

// loop checks the file every checkEvery, every syncEvery syncs it, and rewrites it
// when it is due (shrinkIfDue), until stop.
func (w *fileWatch) loop() {
	tick := time.NewTicker(checkEvery)
	defer tick.Stop()
	var lastWrites uint64      // writes at the last second's tick
	lastSecondAt := time.Now() // a tick is dropped while a sync or rewrite runs long
	for n := 1; ; n++ {
		select {
		case <-w.done:
			return
		case <-tick.C:
		}
		second := n%int(syncEvery/checkEvery) == 0
		if w.check() != nil {
			if !w.rescued && (!w.tried || second) {
				w.rescue()
			}
			continue
		}
		if second {
			w.sync()
			writes := w.writes.Load()
			idle := float64(writes-lastWrites) < idleWrites*time.Since(lastSecondAt).Seconds()
			lastWrites, lastSecondAt = writes, time.Now()
			w.shrinkIfDue(idle && !w.noIdleRewrite.Load())
		}
	}
}

// sync flushes what buntdb wrote to the disk. An error is buntdb's to meet at its
// next write, as with its own syncs, which ignore it.
func (w *fileWatch) sync() {
	w.syncs.Add(1)
	w.mu.Lock()
	file := w.file
	w.mu.Unlock()
	_ = file.Sync()
}

// shrinkIfDue rewrites the file when it has doubled since the last rewrite and the
// store is idle or the file has grown busyGrowth past it.
func (w *fileWatch) shrinkIfDue(idle bool) {
	if w.check() != nil {
		return // never rewrite over a file that is not ours
	}
	st, err := os.Stat(w.path)
	w.mu.Lock()
	lastSize := w.lastSize
	w.mu.Unlock()
	if err != nil || st.Size() <= autoShrinkMinSize || st.Size() <= 2*lastSize {
		return
	}
	if idle || st.Size() > lastSize+busyGrowth {
		w.shrink()
	}
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
	_ = flockNow(file) // the new file is the one a hard link made from now on names
	if now, err := file.Stat(); err == nil {
		_ = w.file.Close()
		w.file, w.id, w.lastSize = file, now, now.Size()
		return
	}
	_ = file.Close()
}

// stop ends the loop, waiting for a rewrite under way, and syncs the file a last time
// unless it is lost: whatever the store does next with it (Close rewrites it), what
// was written is on the disk. A lost file's rescue is tried once more if it has not
// succeeded. Only the first stop does that and reports true.
func (w *fileWatch) stop() (first bool) {
	w.stopOnce.Do(func() {
		first = true
		close(w.done)
		w.stopped.Wait()
		if w.check() == nil {
			w.sync()
		} else if !w.rescued {
			w.rescue()
		}
		_ = w.file.Close()
	})
	return first
}
