package api

import (
	"net/http"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// Named snapshots of the state: saved, listed, restored and deleted through the admin
// API (ADMIN.md, Snapshots). The rules are the domain's (sandbox/snapshot.go), the
// copies the store's.

var snapshotBody = []field{
	{name: "name", kind: kString, min: 1, max: 100, required: true}, // its form: InvalidSnapshotName
	{name: "session", kind: kString, min: 1, max: maxSession},
	{name: "overwrite", kind: kBool},
}

// snapshotRequest is the body of POST /_sandbox/snapshots.
type snapshotRequest struct {
	Name      string `json:"name"`
	Session   string `json:"session"`
	Overwrite bool   `json:"overwrite"`
}

// POST /_sandbox/snapshots with {"name", "session", "overwrite"}: saves the state, or
// with a session (the member, or X-Sandbox-Session) that session's sequence counters.
func (s *Server) adminSaveSnapshot(r *http.Request) (any, error) {
	req, err := adminRequest[snapshotRequest](s, r, snapshotBody)
	if err != nil {
		return nil, err
	}
	session := req.Session
	if h := r.Header.Get(headerSession); h != "" {
		switch {
		case len(h) > maxSession || !printableASCII(h):
			return nil, sandbox.InvalidField(headerSession)
		case session != "" && session != h:
			return nil, sandbox.InvalidField("session") // two sessions: which one?
		}
		session = h
	}
	if session != "" && !printableASCII(session) {
		return nil, sandbox.InvalidField("session")
	}
	sn, err := s.svc.SaveSnapshot(req.Name, session, req.Overwrite)
	if err != nil {
		return nil, err
	}
	return newSnapshotView(sn), nil
}

// GET /_sandbox/snapshots
func (s *Server) adminListSnapshots(*http.Request) (any, error) {
	list, err := s.svc.Snapshots()
	if err != nil {
		return nil, err
	}
	view := snapshotsView{Snapshots: make([]snapshotView, 0, len(list))}
	for _, sn := range list {
		view.Snapshots = append(view.Snapshots, newSnapshotView(sn))
	}
	return view, nil
}

// POST /_sandbox/snapshots/{name}/restore
func (s *Server) adminRestoreSnapshot(r *http.Request) (any, error) {
	sn, err := s.svc.RestoreSnapshot(pathVar(r, "name"))
	if err != nil {
		return nil, err
	}
	return restoredView{snapshotView: newSnapshotView(sn), Status: "restored"}, nil
}

// DELETE /_sandbox/snapshots/{name}
func (s *Server) adminDeleteSnapshot(r *http.Request) (any, error) {
	name := pathVar(r, "name")
	if err := s.svc.DeleteSnapshot(name); err != nil {
		return nil, err
	}
	return map[string]string{"name": name, "status": "deleted"}, nil
}
