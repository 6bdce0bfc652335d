package admin

import (
	"net/http"

	"github.com/gorilla/mux"

	"github.com/gp-sandbox/gp-sandbox/sandbox/api"
)

// The back office's deposits and disputes as the admin API and the inspector list
// them: every stored one, also those GP's API does not show yet.

func (s *Server) registerBackOffice(r *mux.Router) {
	r.Handle("/_sandbox/deposits", s.adminRecords(s.adminListDeposits)).Methods(http.MethodGet)
	r.Handle("/_sandbox/disputes", s.adminRecords(s.adminListDisputes)).Methods(http.MethodGet)
}

// adminDeposit is a deposit as GET /settlement/deposits/{id} shows it, with whether
// GP's API shows it yet (its day has come), the transactions it paid and the
// disputes whose funds it moved.
type adminDeposit struct {
	api.DepositView
	Visible        bool     `json:"visible"`
	TransactionIDs []string `json:"transaction_ids"`
	DisputeIDs     []string `json:"dispute_ids"`
}

// GET /_sandbox/deposits: every deposit by id.
func (s *Server) adminListDeposits(*http.Request) (any, error) {
	deposits, now, err := s.svc.DepositRecords()
	if err != nil {
		return nil, err
	}
	out := make([]adminDeposit, 0, len(deposits))
	for _, d := range deposits {
		v := adminDeposit{DepositView: api.NewAdminDepositView(d), Visible: d.Seen(now),
			TransactionIDs: []string{}, DisputeIDs: append([]string{}, d.Disputes...)}
		for _, row := range d.Rows {
			v.TransactionIDs = append(v.TransactionIDs, row.TransactionID)
		}
		out = append(out, v)
	}
	return map[string]any{"deposits": out}, nil
}

// adminDispute is a dispute as GET /disputes/{id} shows it, as stored, with whether
// GP's API shows it yet, the disputed transaction and the deposit that moved its
// funds ("" when none has).
type adminDispute struct {
	api.DisputeView
	Visible       bool   `json:"visible"`
	TransactionID string `json:"transaction_id"`
	DepositID     string `json:"deposit_id"`
}

// GET /_sandbox/disputes: every dispute by id.
func (s *Server) adminListDisputes(*http.Request) (any, error) {
	disputes, now, err := s.svc.DisputeRecords()
	if err != nil {
		return nil, err
	}
	out := make([]adminDispute, 0, len(disputes))
	for _, d := range disputes {
		out = append(out, adminDispute{DisputeView: api.NewAdminDisputeView(d), Visible: d.Seen(now),
			TransactionID: d.Transaction.ID, DepositID: d.DepositID})
	}
	return map[string]any{"disputes": out}, nil
}
