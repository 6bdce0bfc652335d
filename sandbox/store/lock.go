package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// One process at a time opens a database file: two buntdb instances appending to one
// file interleave their commands and damage it. The lock is an exclusive flock on a
// file beside it, <db>.lock, not on the database file itself: buntdb's AutoShrink
// renames a rewritten file over the database, and a lock on the old inode would no
// longer guard the path. The lock file holds the pid of the process that holds it,
// for the message a second one gets. The holder removes it as it lets go (unlockFile),
// while it still holds the lock; a process that opened the file just before and
// locks it just after holds a lock on a file the path no longer names, which
// lockFile sees and so opens the path again. Another name of the file is the file: a
// symbolic link is followed before anything (realPath), and a hard link meets the
// flock the database file itself holds while it is open (lockInode); a compaction,
// which puts a new file at the path, takes that flock on the new file too
// (flockNow). Snapshots stay beside the path as given.

// LockedError is a database file another process has open. Nothing was written to it.
type LockedError struct {
	Path string
	PID  int // 0 when the lock file names none
}

func (e *LockedError) Error() string {
	holder := "another process"
	if e.PID > 0 {
		holder = "another gpsandbox (pid " + strconv.Itoa(e.PID) + ")"
	}
	return fmt.Sprintf("database file %s is in use by %s: stop it first, or use another --db", e.Path, holder)
}

// realPath is the file path names, its symbolic links followed, the last one even
// when the file it names is yet to be made: a link to a database in use is that
// database, locked as it is, and a write or a rewrite of the file goes to the file,
// not over the link.
func realPath(path string) string {
	for range 40 { // as many links as Linux follows
		if p, err := filepath.EvalSymlinks(path); err == nil {
			return p
		}
		target, err := os.Readlink(path)
		if err != nil {
			break // no link: a file yet to be made, in a folder that may be one
		}
		if !filepath.IsAbs(target) {
			dir := filepath.Dir(path)
			if real, err := filepath.EvalSymlinks(dir); err == nil {
				dir = real // ../ in the target goes up from where the link is, not its name
			}
			target = filepath.Join(dir, target)
		}
		path = target
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(path)); err == nil {
		return filepath.Join(dir, filepath.Base(path))
	}
	return path
}

// lockInode takes an exclusive flock on the database file itself, when there is one:
// a hard link is another path, with another lock file beside it, to the same file.
// The lock file still guards the path (see above); this one guards the file it
// names when it is opened, which is the file a hard link made before names too.
func lockInode(path string) (*os.File, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("store: lock %s: %w", path, err)
	}
	if err := flockNow(f); err != nil {
		_ = f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, &LockedError{Path: path}
		}
		return nil, fmt.Errorf("store: lock %s: %w", path, err)
	}
	return f, nil
}

// flockNow takes an exclusive flock on f without waiting. A rewrite of the database
// (a compaction) takes it on the new file too, which a hard link made since names.
func flockNow(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}

// relockInode keeps the file's own lock on the file now at the path: taken there at
// once when the file was made by the open (a new database), moved there when a
// rewrite while opening (--set-aside-damaged) put another file at the path.
func (s *Store) relockInode() error {
	if s.inode != nil {
		now, err := os.Stat(s.path)
		if err != nil {
			return err
		}
		if locked, err := s.inode.Stat(); err == nil && os.SameFile(now, locked) {
			return nil
		}
	}
	f, err := lockInode(s.path)
	if err != nil {
		return err
	}
	s.unlockInode()
	s.inode = f
	return nil
}

// lockFile takes the lock of the database at path, without waiting, and returns the
// lock file; unlockFile releases it.
func lockFile(path string) (*os.File, error) {
	name := path + ".lock"
	for {
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fmt.Errorf("store: lock %s: %w", path, err)
		}
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if errors.Is(err, syscall.EWOULDBLOCK) {
			_ = f.Close()
			return nil, &LockedError{Path: path, PID: lockHolder(name)}
		}
		if err == nil && !namesFile(name, f) {
			_ = f.Close() // the holder before removed it between the open and the lock
			continue
		}
		if err == nil {
			err = f.Truncate(0)
		}
		if err == nil {
			_, err = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
		}
		if err != nil {
			_ = f.Close()
			return nil, fmt.Errorf("store: lock %s: %w", path, err)
		}
		return f, nil
	}
}

// unlockFile removes the lock file, then releases the lock by closing it. Removed
// while the lock is held, it is never removed from under another holder.
func unlockFile(f *os.File) {
	if namesFile(f.Name(), f) {
		_ = os.Remove(f.Name())
	}
	_ = f.Close() // closing the descriptor releases the flock
}

// namesFile reports whether path names the open file f.
func namesFile(path string, f *os.File) bool {
	opened, err := f.Stat()
	if err != nil {
		return false
	}
	named, err := os.Stat(path)
	return err == nil && os.SameFile(opened, named)
}

// lockHolder reads the pid the lock file names, 0 when it names none. A holder that
// has just taken the lock writes its pid right after: a start racing it waits for
// that a little (lockHolderWait) rather than name no process.
func lockHolder(name string) int {
	deadline := time.Now().Add(lockHolderWait)
	for {
		b, err := os.ReadFile(name)
		if err != nil {
			return 0
		}
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil || time.Now().After(deadline) {
			return pid
		}
		time.Sleep(5 * time.Millisecond)
	}
}

const lockHolderWait = 200 * time.Millisecond
