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
type syncer struct {
	path  string
	dirty atomic.Bool
	syncs atomic.Int64 // fsyncs that succeeded
	stop  chan struct{}
	done  chan struct{}
}

func startSyncer(path string, every time.Duration) *syncer {
	s := &syncer{path: path, stop: make(chan struct{}), done: make(chan struct{})}
	go s.run(every)
	return s
}

// committed notes that a write reached the file and wants an fsync.
func (s *syncer) committed() { s.dirty.Store(true) }

func (s *syncer) run(every time.Duration) {
	defer close(s.done)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			if s.dirty.Swap(false) {
				s.sync()
			}
		}
	}
}

// sync fsyncs the file. Like buntdb, it has no one to report a failure to: a write
// that reached the file survives a crash of the process whatever the fsync says.
func (s *syncer) sync() {
	f, err := os.OpenFile(s.path, os.O_RDWR, 0)
	if err != nil {
		return
	}
	if f.Sync() == nil {
		s.syncs.Add(1)
	}
	_ = f.Close()
}

// close stops the syncer; the database's Close syncs the file one last time.
func (s *syncer) close() {
	close(s.stop)
	<-s.done
}
