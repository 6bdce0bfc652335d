package admin

import (
	"net/http"
	"strings"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/api"
	"github.com/gp-sandbox/gp-sandbox/sandbox/web"
)

// raiseDisputeRequest is the body of POST /_sandbox/disputes: the transaction a
// cardholder's issuer disputes, at which stage, why, and for how much (the
// transaction's amount when absent).
type raiseDisputeRequest struct {
	TransactionID     string `json:"transaction_id" gp:"required,max=50"`
	Stage             string `json:"stage" gp:"enum=RETRIEVAL|CHARGEBACK|PRE_ARBITRATION|ARBITRATION"`
	ReasonCode        string `json:"reason_code" gp:"max=50"`
	ReasonDescription string `json:"reason_description" gp:"max=255"`
	Amount            string `json:"amount" gp:"max=50"`
	StatusURL         string `json:"status_url" gp:"max=2048"`
}

var raiseDisputeBody = web.NewBody[raiseDisputeRequest]()

// POST /_sandbox/disputes: opens a dispute on a transaction now, answered as
// GET /disputes/{id} shows it; a chargeback takes its amount in the deposit a
// deposit delay later.
func (s *Server) adminRaiseDispute(r *http.Request) (any, error) {
	req, err := raiseDisputeBody.Read(r)
	if err != nil {
		return nil, err
	}
	if strings.Trim(req.Amount, "0123456789") != "" {
		return nil, sandbox.InvalidField("amount")
	}
	d, err := s.svc.RaiseDispute(sandbox.RaiseDispute{
		TransactionID: req.TransactionID, Stage: req.Stage, ReasonCode: req.ReasonCode,
		ReasonDescription: req.ReasonDescription, Amount: req.Amount, StatusURL: req.StatusURL,
	})
	if err != nil {
		return nil, err
	}
	return api.NewAdminDisputeView(d), nil
}
