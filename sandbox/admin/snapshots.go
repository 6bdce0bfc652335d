package admin

import (
	"net/http"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/api"
	"github.com/gp-sandbox/gp-sandbox/sandbox/web"
)

// Named snapshots of the state: saved, listed, restored and deleted through the admin
// API (README.md, Snapshots). The rules are the domain's (sandbox/snapshot.go), the
// copies the store's.

var snapshotBody = web.NewBody[snapshotRequest]()

// snapshotRequest is the body of POST /_sandbox/snapshots.
type snapshotRequest struct {
	Name      string `json:"name" gp:"required,max=100"` // its form: InvalidSnapshotName
	Session   string `json:"session" gp:"max=100"`       // web.MaxSession
	Overwrite bool   `json:"overwrite"`
}

// POST /_sandbox/snapshots with {"name", "session", "overwrite"}: saves the state, or
// with a session (the member, or X-Sandbox-Session) that session's sequence counters.
func (s *Server) adminSaveSnapshot(r *http.Request) (any, error) {
	req, err := snapshotBody.Read(r)
	if err != nil {
		return nil, err
	}
	session := req.Session
	h, err := web.Session(r)
	if err != nil {
		return nil, err
	}
	if h != "" {
		if session != "" && session != h {
			return nil, sandbox.InvalidField("session") // two sessions: which one?
		}
		session = h
	}
	if session != "" && !web.PrintableASCII(session) {
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
	if err := noOptions(r); err != nil {
		return nil, err
	}
	sn, err := s.svc.RestoreSnapshot(api.PathVar(r, "name"))
	if err != nil {
		return nil, err
	}
	return restoredView{snapshotView: newSnapshotView(sn), Status: "restored"}, nil
}

// DELETE /_sandbox/snapshots/{name}
func (s *Server) adminDeleteSnapshot(r *http.Request) (any, error) {
	if err := noOptions(r); err != nil {
		return nil, err
	}
	name := api.PathVar(r, "name")
	if err := s.svc.DeleteSnapshot(name); err != nil {
		return nil, err
	}
	return map[string]string{"name": name, "status": "deleted"}, nil
}
