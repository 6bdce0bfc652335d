package store

import (
	"os"
	"sync/atomic"
	"time"

	"github.com/tidwall/buntdb"
)

// compactor decides when the file is rewritten, instead of buntdb's auto-shrink.
//
// A compaction copies the live records to a new file while requests go on, then
// copies what was written meanwhile and renames the new file over the old with the
// writer's lock held; nothing is read or written until it ends. Under sustained
// load that copy is tens of megabytes, ext4 writes the renamed file's unwritten
// data out before the rename returns, and frees the replaced file's blocks in it
// unless someone holds that file open (see compact): in 40 s runs of keyed
// adjustments (one core, 64 connections) the requests waiting on it made the
// longest answers 208-335 ms, against 53 ms with compaction turned off.
//
// So the file is compacted when it is due (grown to compactFactor times its size
// after the last compaction, and at least autoShrinkMinSize) and the store has been
// idle for 250 ms, which a test suite's pauses between tests give at once; a store
// that is never idle is compacted anyway once the file has grown by 1 GiB more (a
// 60 s run at 64 connections writes about half that). The allowance bounds the disk
// a busy sandbox uses. Close compacts too, so a restart after a clean stop reads
// live records only; after kill -9, Open copies the live records out of the file
// before buntdb replays it (reopen.go).
type compactor struct {
	compaction
	db        *buntdb.DB
	path      string
	lastWrite atomic.Int64 // Unix nanoseconds of the last commit
	base      int64        // the file's size after the last compaction (or at open)
	runs      atomic.Int64 // compactions done, for tests
	stop      chan struct{}
	done      chan struct{}
}

// compaction is when the compactor compacts; tests shorten it.
type compaction struct {
	idle      time.Duration // how long without a write makes the store idle
	allowance int64         // how much further a busy store's file may grow
	every     time.Duration // how often the file is looked at
}

// compactFactor is how many times its size after the last compaction the file grows
// to before it is due again: 4, as with buntdb's auto-shrink at 300% before. At 100%
// a file under sustained load compacted every few seconds.
const compactFactor = 4

var defaultCompaction = compaction{idle: 250 * time.Millisecond, allowance: 1 << 30, every: 100 * time.Millisecond}

func startCompactor(db *buntdb.DB, path string, when compaction) *compactor {
	c := &compactor{
		compaction: when, db: db, path: path, base: fileSize(path),
		stop: make(chan struct{}), done: make(chan struct{}),
	}
	go c.run()
	return c
}

// committed notes a write, which puts off a compaction that waits for idleness.
func (c *compactor) committed(now time.Time) { c.lastWrite.Store(now.UnixNano()) }

func (c *compactor) run() {
	defer close(c.done)
	t := time.NewTicker(c.every)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case now := <-t.C:
			idleFor := now.Sub(time.Unix(0, c.lastWrite.Load()))
			if compactionDue(fileSize(c.path), c.base, idleFor, c.idle, c.allowance) {
				c.compact()
			}
		}
	}
}

// compactionDue decides on a file of size bytes, base bytes after its last
// compaction, idle for idleFor.
func compactionDue(size, base int64, idleFor, idle time.Duration, allowance int64) bool {
	due := max(compactFactor*base, autoShrinkMinSize)
	return size >= due && (idleFor >= idle || size >= due+allowance)
}

// compact rewrites the file. A failed compaction leaves the file as it was (buntdb
// works on a copy), and is tried again at the next check that finds it due.
//
// It holds the file being replaced open until the compaction is over. buntdb closes
// its own descriptor before renaming the new file over the old one, under its lock,
// so without another one the rename drops the old file's last reference and the
// kernel frees its blocks right there: 330-345 ms for a 1 GiB file on ext4 here,
// the longest pause requests saw under load. Freed when this descriptor closes, they
// cost the compactor's goroutine, not the writer's lock.
func (c *compactor) compact() {
	if old, err := os.Open(c.path); err == nil {
		defer old.Close()
	}
	if err := c.db.Shrink(); err == nil {
		c.base = fileSize(c.path)
		c.runs.Add(1)
	}
}

// close stops the compactor, after the compaction under way if there is one.
func (c *compactor) close() {
	close(c.stop)
	<-c.done
}

// fileSize is the size of the file at path, 0 when it cannot be read.
func fileSize(path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return st.Size()
}
