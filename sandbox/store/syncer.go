package store

import (
	"os"
	"sync/atomic"
	"time"
)

// syncer fsyncs the database file once a second when something was committed since
// the last time. buntdb's own EverySecond policy does the same but holds the
// database's lock during the fsync, and every View and Update waits for it: on a busy
// disk an fsync takes 25 to 140 ms, which was the longest pause requests saw. An
// fsync on any descriptor of the file flushes every write made to it, so this one
// runs beside the writer. It opens the file by its path each time: a compaction
// replaces the file with a new one under the same name.
//
// It also fsyncs a compaction's new file while buntdb writes it (buntdb 1.3 writes it
// at <path>.tmp), every tick. buntdb ends a compaction by renaming that file over the
// database with its lock held, and ext4 (auto_da_alloc) writes out a file's unwritten
// data when it is renamed over another: 100 MB of it took 73 ms here. Written out in
// the background, little is left for the rename to wait for.
type syncer struct {
	path            string
	every           time.Duration
	dirty           atomic.Bool
	syncs           atomic.Int64 // fsyncs of the database file that succeeded
	compactionSyncs atomic.Int64 // and of a compaction's new file
	stop            chan struct{}
	done            chan struct{}
}

// syncerTicks is how many times per syncer interval it looks for a compaction file.
const syncerTicks = 10

func startSyncer(path string, every time.Duration) *syncer {
	s := &syncer{path: path, every: every, stop: make(chan struct{}), done: make(chan struct{})}
	go s.run()
	return s
}

// committed notes that a write reached the file and wants an fsync.
func (s *syncer) committed() { s.dirty.Store(true) }

func (s *syncer) run() {
	defer close(s.done)
	t := time.NewTicker(s.every / syncerTicks)
	defer t.Stop()
	last := time.Now()
	for {
		select {
		case <-s.stop:
			return
		case now := <-t.C:
			if fsync(s.path + ".tmp") { // a compaction's new file, while one is written
				s.compactionSyncs.Add(1)
			}
			if now.Sub(last) >= s.every && s.dirty.Swap(false) {
				if fsync(s.path) {
					s.syncs.Add(1)
				}
				last = now
			}
		}
	}
}

// fsync fsyncs the file at path and reports whether it did. Like buntdb, the store
// has no one to report a failure to: a write that reached the file survives a crash
// of the process whatever the fsync says.
func fsync(path string) bool {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	return f.Sync() == nil
}

// close stops the syncer; the database's Close syncs the file one last time.
func (s *syncer) close() {
	close(s.stop)
	<-s.done
}
