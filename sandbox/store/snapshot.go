package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/tidwall/buntdb"
)

// A snapshot is a copy of the database in buntdb's own format (DB.Save): the mark,
// then every record in key order, with its expiry if it has one. A file database keeps
// its snapshots as files beside it, <db>.snapshots/<name>.db, each streamed into a
// temporary file (no second copy of the database in memory), synced and renamed, so
// that a snapshot is whole or absent and the live file is never touched; they
// outlive the process. An in-memory database keeps them in memory for the run.
//
// A session snapshot holds only the call counters of one scope (step:*:<scope>)
// and, after the mark, sessionKey naming the scope. Restoring replaces that scope's
// counters and nothing else; restoring a whole snapshot replaces every record. Either
// way it is one Update on the live database, so that a request sees the state before
// or after, and the file stays the one the lock and the watch know. A restore reads
// the file once (a --snapshot start checks it before, with CheckSnapshot): the check (check.go, which refuses a snapshot cut short too) and the
// load work on the same bytes.

// sessionKey records the scope of a session snapshot. It sorts right after the mark,
// so that listing reads it from the head of the file.
const sessionKey = markKey + "-session"

// snapshotExt ends the name of every snapshot file.
const snapshotExt = ".db"

// snapshots is where a Store keeps its snapshots.
type snapshots struct {
	dir    string // "" for an in-memory database
	mu     sync.Mutex
	memory map[string]memorySnapshot // when dir is ""
}

type memorySnapshot struct {
	data    []byte
	created time.Time
	scope   string
}

func newSnapshots(path string) *snapshots {
	if path == ":memory:" {
		return &snapshots{memory: map[string]memorySnapshot{}}
	}
	return &snapshots{dir: path + ".snapshots"}
}

var _ sandbox.Snapshots = (*Store)(nil)

// SaveSnapshot copies the state (or, with a scope, that scope's call counters)
// under name. An existing snapshot of that name is sandbox.ErrSnapshotExists unless
// overwrite.
func (s *Store) SaveSnapshot(name, scope string, overwrite bool) (sandbox.Snapshot, error) {
	sn := s.snapshots
	sn.mu.Lock()
	defer sn.mu.Unlock()
	if _, err := sn.info(name); err == nil && !overwrite {
		return sandbox.Snapshot{}, sandbox.ErrSnapshotExists
	} else if err != nil && !errors.Is(err, sandbox.ErrNotFound) {
		return sandbox.Snapshot{}, err
	}
	saved, err := sn.write(name, scope, func(w io.Writer) error { return s.save(w, scope) })
	if err != nil {
		return sandbox.Snapshot{}, fmt.Errorf("store: snapshot %s: %w", name, err)
	}
	return saved, nil
}

// save writes the whole database, or the counters of scope, in buntdb's format.
func (s *Store) save(w io.Writer, scope string) error {
	if scope == "" {
		return s.db.Save(w) // blocks writes while it copies: a consistent state
	}
	mem, err := buntdb.Open(":memory:")
	if err != nil {
		return err
	}
	defer mem.Close()
	err = s.db.View(func(live *buntdb.Tx) error {
		return mem.Update(func(t *buntdb.Tx) error {
			if err := putMark(t); err != nil {
				return err
			}
			if err := put(t, sessionKey, scope); err != nil {
				return err
			}
			return copyKeys(live, t, func(key string) bool { return isStepOf(key, scope) })
		})
	})
	if err != nil {
		return err
	}
	return mem.Save(w)
}

// write stores the snapshot save writes. A file is streamed into a temporary file,
// synced and renamed over the name, so that the copy is never held in memory beside
// the database, and a save that fails leaves the name as it was.
func (sn *snapshots) write(name, scope string, save func(io.Writer) error) (sandbox.Snapshot, error) {
	if sn.dir == "" {
		var buf bytes.Buffer
		if err := save(&buf); err != nil {
			return sandbox.Snapshot{}, err
		}
		m := memorySnapshot{data: buf.Bytes(), created: time.Now(), scope: scope}
		sn.memory[name] = m
		return sandbox.Snapshot{Name: name, Created: m.created, Size: int64(len(m.data)), Scope: scope}, nil
	}
	if err := os.MkdirAll(sn.dir, 0o755); err != nil {
		return sandbox.Snapshot{}, err
	}
	if st, err := os.Lstat(sn.file(name)); err == nil && st.IsDir() {
		// A rename over a folder would fail after the whole copy was written, as a bare
		// 500; over a file or a link it replaces it.
		return sandbox.Snapshot{}, sandbox.UnwritableSnapshot(name, sn.file(name)+" is a folder")
	}
	tmp, err := os.CreateTemp(sn.dir, "."+name+".*.tmp")
	if err != nil {
		return sandbox.Snapshot{}, err
	}
	err = save(tmp) // buntdb writes it in chunks of a few MiB
	if err == nil {
		err = tmp.Sync()
	}
	var st os.FileInfo
	if err == nil {
		st, err = tmp.Stat()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), sn.file(name))
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return sandbox.Snapshot{}, err
	}
	return sandbox.Snapshot{Name: name, Created: st.ModTime(), Size: st.Size(), Scope: scope}, nil
}

func (sn *snapshots) file(name string) string { return filepath.Join(sn.dir, name+snapshotExt) }

// read returns a snapshot's bytes and when it was saved, reading its file once:
// sandbox.ErrNotFound when there is none, a GP error naming it when the file is not
// one write left whole.
func (sn *snapshots) read(name string) ([]byte, time.Time, error) {
	if sn.dir == "" {
		m, ok := sn.memory[name]
		if !ok {
			return nil, time.Time{}, sandbox.ErrNotFound
		}
		return m.data, m.created, nil
	}
	f, st, err := openSnapshotFile(name, sn.file(name))
	if err != nil {
		return nil, time.Time{}, err
	}
	defer f.Close()
	buf := bytes.NewBuffer(make([]byte, 0, st.Size()+bytes.MinRead))
	if _, err := buf.ReadFrom(f); err != nil {
		return nil, time.Time{}, sandbox.UnreadableSnapshot(name, err.Error())
	}
	data := buf.Bytes()
	return data, st.ModTime(), checkSnapshotContent(name, f.Name(), bytes.NewReader(data), int64(len(data)))
}

// openSnapshotFile opens the file of the snapshot name: sandbox.ErrNotFound when
// there is none, an UnreadableSnapshot naming why when it is no file to read (a
// folder, one the sandbox may not open).
func openSnapshotFile(name, path string) (*os.File, os.FileInfo, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, sandbox.ErrNotFound
	}
	if err != nil {
		return nil, nil, sandbox.UnreadableSnapshot(name, err.Error())
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = fmt.Errorf("%s is not a file", path)
	}
	if err != nil {
		_ = f.Close()
		return nil, nil, sandbox.UnreadableSnapshot(name, err.Error())
	}
	return f, st, nil
}

// checkSnapshotContent refuses a snapshot file cut or damaged since it was written,
// whole, as a database is (its commands, and every record decoded), but in words for
// a snapshot.
func checkSnapshotContent(name, path string, ra io.ReaderAt, size int64) error {
	scan, err := scanFile(path, ra, size, false)
	if err == nil {
		var damaged []damagedRecord
		damaged, err = checkRecords(ra, 0, scan.end, false)
		if err == nil && len(damaged) > 0 {
			err = damaged[0].error(path)
		}
	}
	var damaged *DamagedError
	switch {
	case errors.As(err, &damaged) && damaged.Foreign:
		return sandbox.ForeignSnapshot(name)
	case errors.As(err, &damaged):
		return sandbox.DamagedSnapshot(name, damaged.Offset)
	}
	return err
}

// info describes one snapshot, sandbox.ErrNotFound when there is none.
func (sn *snapshots) info(name string) (sandbox.Snapshot, error) {
	if sn.dir == "" {
		m, ok := sn.memory[name]
		if !ok {
			return sandbox.Snapshot{}, sandbox.ErrNotFound
		}
		return sandbox.Snapshot{Name: name, Created: m.created, Size: int64(len(m.data)), Scope: m.scope}, nil
	}
	path := sn.file(name)
	st, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return sandbox.Snapshot{}, sandbox.ErrNotFound
	}
	if err != nil {
		return sandbox.Snapshot{}, err
	}
	scope, err := fileScope(path)
	if err != nil {
		return sandbox.Snapshot{}, err
	}
	return sandbox.Snapshot{Name: name, Created: st.ModTime(), Size: st.Size(), Scope: scope}, nil
}

// fileScope reads the scope a session snapshot file names after its mark; "" for a
// whole snapshot.
func fileScope(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", err
	}
	s := newScanner(f, 0, st.Size(), false)
	s.window = 4 << 10 // two records
	var c command
	for range 2 { // the mark, then the record that names the scope
		if err := s.next(&c); err != nil {
			return "", nil // an empty database, or one that is not whole: no scope
		}
	}
	if !c.isSet() || string(c.parts[1]) != sessionKey {
		return "", nil // the first record of a whole snapshot
	}
	var scope string
	if err := json.Unmarshal(c.parts[2], &scope); err != nil {
		return "", fmt.Errorf("store: snapshot %s: %w", path, err)
	}
	return scope, nil
}

// RestoreSnapshot brings back the state saved under name, in one Update, and
// describes the snapshot: sandbox.ErrNotFound when there is none.
func (s *Store) RestoreSnapshot(name string) (sandbox.Snapshot, error) {
	sn := s.snapshots
	sn.mu.Lock()
	defer sn.mu.Unlock()
	data, created, err := sn.read(name)
	if err != nil {
		return sandbox.Snapshot{}, err
	}
	mem, scope, err := load(data)
	if err != nil {
		return sandbox.Snapshot{}, fmt.Errorf("store: snapshot %s: %w", name, err)
	}
	defer mem.Close()
	info := sandbox.Snapshot{Name: name, Created: created, Size: int64(len(data)), Scope: scope}
	if err := s.Check(); err != nil {
		return info, err // a file that is no longer ours takes no writes
	}
	err = s.update(func(live *buntdb.Tx) error {
		return mem.View(func(saved *buntdb.Tx) error {
			if info.Scope == "" {
				if err := (tx{live}).DeleteAll(); err != nil {
					return err
				}
				if err := copyKeys(saved, live, func(string) bool { return true }); err != nil {
					return err
				}
				return upgradeLayout(live) // a snapshot of an older layout: no sort records, actions by id
			}
			if err := deleteSteps(live, info.Scope); err != nil {
				return err
			}
			return copyKeys(saved, live, func(key string) bool { return isStepOf(key, info.Scope) })
		})
	})
	return info, err
}

// CheckSnapshot checks the snapshot saved under name beside the database at path as
// RestoreSnapshot does, and answers as it would, without opening the database (nor
// holding the file in memory): a start that would restore it is refused before it
// writes anything.
func CheckSnapshot(path, name string) error {
	sn := newSnapshots(path)
	if sn.dir == "" {
		return sandbox.ErrNotFound // a database in memory starts with no snapshot
	}
	f, st, err := openSnapshotFile(name, sn.file(name))
	if err != nil {
		return err
	}
	defer f.Close()
	return checkSnapshotContent(name, f.Name(), f, st.Size())
}

// load reads a snapshot's bytes into an in-memory database, where buntdb loads (not
// into a file's), and returns it with the scope it holds, "" for a whole snapshot.
func load(data []byte) (*buntdb.DB, string, error) {
	mem, err := buntdb.Open(":memory:")
	if err != nil {
		return nil, "", err
	}
	scope := ""
	err = mem.Load(bytes.NewReader(data))
	if err == nil {
		err = mem.View(func(t *buntdb.Tx) error {
			s, err := get[string](t, sessionKey)
			if errors.Is(err, sandbox.ErrNotFound) {
				return nil
			}
			scope = s
			return err
		})
	}
	if err != nil {
		_ = mem.Close()
		return nil, "", err
	}
	return mem, scope, nil
}

// Snapshots lists the snapshots by name.
func (s *Store) Snapshots() ([]sandbox.Snapshot, error) {
	sn := s.snapshots
	sn.mu.Lock()
	defer sn.mu.Unlock()
	var names []string
	if sn.dir == "" {
		for name := range sn.memory {
			names = append(names, name)
		}
	} else {
		entries, err := os.ReadDir(sn.dir)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		for _, e := range entries {
			name, ok := strings.CutSuffix(e.Name(), snapshotExt)
			if ok && e.Type().IsRegular() && sandbox.ValidSnapshotName(name) {
				names = append(names, name)
			}
		}
	}
	slices.Sort(names)
	out := []sandbox.Snapshot{}
	for _, name := range names {
		info, err := sn.info(name)
		if err != nil {
			return nil, err
		}
		out = append(out, info)
	}
	return out, nil
}

// DeleteSnapshot forgets the snapshot saved under name: sandbox.ErrNotFound when there
// is none.
func (s *Store) DeleteSnapshot(name string) error {
	sn := s.snapshots
	sn.mu.Lock()
	defer sn.mu.Unlock()
	if sn.dir == "" {
		if _, ok := sn.memory[name]; !ok {
			return sandbox.ErrNotFound
		}
		delete(sn.memory, name)
		return nil
	}
	err := os.Remove(sn.file(name))
	if errors.Is(err, os.ErrNotExist) {
		return sandbox.ErrNotFound
	}
	return err
}

// isStepOf reports whether key is a sequence counter of scope (see stepKey: the
// scope comes last, after the scenario and the rule, which hold no ':').
func isStepOf(key, scope string) bool {
	rest, ok := strings.CutPrefix(key, "step:")
	if !ok {
		return false
	}
	parts := strings.SplitN(rest, ":", 3)
	// A session's scope: transaction and scope: order counters are scoped under it
	// (session:<s>/transaction:<id>).
	return len(parts) == 3 && (parts[2] == scope || strings.HasPrefix(parts[2], scope+"/"))
}

// copyKeys sets in to every record of from that keep selects, with what is left of
// its TTL, as it walks them: no list of the records is held beside them. The mark,
// sessionKey and closeKey are the snapshot's own: the live database keeps its mark
// (DeleteAll wrote it again), and a clean close's records stand only where it put
// them (close.go).
func copyKeys(from, to *buntdb.Tx, keep func(key string) bool) error {
	var err error
	iterErr := from.Ascend("", func(key, value string) bool {
		if key == markKey || key == sessionKey || key == closeKey || !keep(key) {
			return true
		}
		err = copyKey(from, to, key, value)
		return err == nil
	})
	if err == nil {
		err = iterErr
	}
	return err
}

// copyKey sets key to value in to, with what is left of its TTL in from.
func copyKey(from, to *buntdb.Tx, key, value string) error {
	ttl, err := from.TTL(key)
	switch {
	case errors.Is(err, buntdb.ErrNotFound):
		return nil // expired since: buntdb has not evicted it yet
	case err != nil:
		return err
	}
	var opts *buntdb.SetOptions
	if ttl > 0 {
		opts = &buntdb.SetOptions{Expires: true, TTL: ttl}
	}
	_, _, err = to.Set(key, value, opts)
	return err
}

// deleteSteps deletes the sequence counters of scope.
func deleteSteps(t *buntdb.Tx, scope string) error {
	return deleteMatching(t, "step:", func(key string) bool { return isStepOf(key, scope) })
}
