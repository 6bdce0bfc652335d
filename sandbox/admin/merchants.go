package admin

import (
	"net/http"

	"github.com/gorilla/mux"

	"github.com/gp-sandbox/gp-sandbox/sandbox/api"
	"github.com/gp-sandbox/gp-sandbox/sandbox/web"
)

// The boarded merchants' review, decided by the admin API rather than waiting for the
// sandbox clock to pass sandbox.ReviewDelay.

func (s *Server) registerMerchants(r *mux.Router) {
	r.Handle("/_sandbox/merchants/{id}/status", s.adminRecords(s.adminMerchantStatus)).Methods(http.MethodPost)
}

// merchantStatusRequest is the body of POST /_sandbox/merchants/{id}/status.
type merchantStatusRequest struct {
	Status string `json:"status" gp:"required,enum=ACTIVE|INACTIVE|UNDER_REVIEW|DECLINED"`
}

var merchantStatusBody = web.NewBody[merchantStatusRequest]()

// POST /_sandbox/merchants/{id}/status {"status": "ACTIVE"}: answers the merchant as
// GET /merchants/{id} shows it.
func (s *Server) adminMerchantStatus(r *http.Request) (any, error) {
	req, err := merchantStatusBody.Read(r)
	if err != nil {
		return nil, err
	}
	v, err := s.svc.SetMerchantStatus(api.PathVar(r, "id"), req.Status)
	if err != nil {
		return nil, err
	}
	return api.NewAdminMerchantView(v), nil
}
