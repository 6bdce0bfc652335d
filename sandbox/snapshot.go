package sandbox

import (
	"errors"
	"regexp"
	"strings"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox/carddata"
)

// Snapshot describes a named copy of the sandbox's state: the whole database, or the
// sequence counters of one scope (a session's, see the api's X-Sandbox-Session).
type Snapshot struct {
	Name    string
	Created time.Time // wall-clock time it was written
	Size    int64     // bytes
	Scope   string    // "" for the whole state, else the scope whose counters it holds
}

// Snapshots keeps named copies of the state; the store provides it. A name is one
// ValidSnapshotName accepts.
type Snapshots interface {
	// SaveSnapshot copies the state, or with a scope only its sequence counters;
	// an existing name is ErrSnapshotExists unless overwrite.
	SaveSnapshot(name, scope string, overwrite bool) (Snapshot, error)
	// RestoreSnapshot replaces the state (or the scope's counters) by the copy, in one
	// store transaction; an unknown name is ErrNotFound, a copy damaged since it was
	// saved a DamagedSnapshot or ForeignSnapshot, restoring nothing.
	RestoreSnapshot(name string) (Snapshot, error)
	// Snapshots lists them by name.
	Snapshots() ([]Snapshot, error)
	// DeleteSnapshot forgets one; an unknown name is ErrNotFound.
	DeleteSnapshot(name string) error
}

// ErrSnapshotExists is a snapshot saved under a name already taken, without overwrite.
var ErrSnapshotExists = errors.New("snapshot exists")

// snapshotName is what a snapshot may be called: it names a file beside the
// database, so no separator, no dot and no leading dash.
var snapshotName = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_-]{0,63}$`)

// ValidSnapshotName reports whether name may name a snapshot. A name that holds a
// card number is refused: it would be kept in clear as a file name.
func ValidSnapshotName(name string) bool {
	return snapshotName.MatchString(name) && !carddata.HoldsCardData(name)
}

// SessionScope is the scope of the sequence counters of an X-Sandbox-Session: the
// session as sent, or its hash when it carries card data (see carddata.KeyWithout).
func SessionScope(session string) string { return "session:" + carddata.KeyWithout(session) }

// ScopeSession is the session of a SessionScope, "" for any other scope.
func ScopeSession(scope string) string {
	session, _ := strings.CutPrefix(scope, "session:")
	if session == scope {
		return ""
	}
	return session
}

// UseSnapshots gives the service its snapshot keeper. Call it before serving.
func (s *Service) UseSnapshots(sn Snapshots) { s.snapshots = sn }

// SaveSnapshot saves the state under name, or with a session that session's sequence
// counters only.
func (s *Service) SaveSnapshot(name, session string, overwrite bool) (Snapshot, error) {
	if err := s.snapshotsFor(name); err != nil {
		return Snapshot{}, err
	}
	scope := ""
	if session != "" {
		scope = SessionScope(session)
	}
	sn, err := s.snapshots.SaveSnapshot(name, scope, overwrite)
	if errors.Is(err, ErrSnapshotExists) {
		return sn, SnapshotExists(name)
	}
	return sn, err
}

// RestoreSnapshot brings back the state saved under name. What the service derives
// from the stored records (cached callers, whether any record binds a scenario) is
// derived again, and the workers wake: the outbox and the terminals may differ.
func (s *Service) RestoreSnapshot(name string) (Snapshot, error) {
	if err := s.snapshotsFor(name); err != nil {
		return Snapshot{}, err
	}
	sn, err := s.snapshots.RestoreSnapshot(name)
	err = snapshotError(name, err)
	if err != nil || sn.Scope != "" {
		return sn, err // a session's counters change nothing the service derives
	}
	bound := false
	err = s.store.View(func(tx Tx) error {
		_, err := tx.Meta(bindingsMeta)
		bound = err == nil
		if errors.Is(err, ErrNotFound) {
			err = nil
		}
		return err
	})
	if err == nil {
		s.bound.Store(bound)
	}
	s.callers.Clear()
	s.orders.forget()
	s.notifyWritten()
	s.terminalWaiting()
	return sn, err
}

// Snapshots lists the snapshots by name.
func (s *Service) Snapshots() ([]Snapshot, error) {
	if s.snapshots == nil {
		return []Snapshot{}, nil
	}
	return s.snapshots.Snapshots()
}

// DeleteSnapshot forgets the snapshot saved under name.
func (s *Service) DeleteSnapshot(name string) error {
	if err := s.snapshotsFor(name); err != nil {
		return err
	}
	return snapshotError(name, s.snapshots.DeleteSnapshot(name))
}

// CheckSnapshot answers as Service.RestoreSnapshot would for a snapshot that check
// reads, restoring nothing: a start calls it, with the store's check of the file,
// before the store is open.
func CheckSnapshot(name string, check func(name string) error) error {
	if !ValidSnapshotName(name) {
		return InvalidSnapshotName()
	}
	return snapshotError(name, check(name))
}

// snapshotError is the GP error of a store's ErrNotFound for the snapshot name.
func snapshotError(name string, err error) error {
	if errors.Is(err, ErrNotFound) {
		return NotFoundSnapshot(name)
	}
	return err
}

// snapshotsFor checks a snapshot name, and that the service keeps snapshots.
func (s *Service) snapshotsFor(name string) error {
	if !ValidSnapshotName(name) {
		return InvalidSnapshotName()
	}
	if s.snapshots == nil {
		return NotFoundSnapshot(name)
	}
	return nil
}
