package admin

import (
	"net/http"

	"github.com/gorilla/mux"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/api"
	"github.com/gp-sandbox/gp-sandbox/sandbox/web"
)

// The boarded merchants' review, decided by the admin API rather than waiting for the
// sandbox clock to pass sandbox.ReviewDelay.

func (s *Server) registerMerchants(r *mux.Router) {
	r.Handle("/_sandbox/merchants", s.adminRecords(s.adminListMerchants)).Methods(http.MethodGet)
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

// adminMerchant is a merchant as the admin API lists it: the API's view with its
// accounts, its documents (hash and size, never the content), the orders its boarding
// placed, the app that boarded it and when its review ends.
type adminMerchant struct {
	api.MerchantView
	Accounts    []api.MerchantAccountView `json:"accounts"`
	Documents   []adminDocument           `json:"documents"`
	OrderIDs    []string                  `json:"order_ids"`
	AppID       string                    `json:"app_id"`
	ReviewUntil string                    `json:"review_until"`
}

type adminDocument struct {
	ID          string `json:"id"`
	Function    string `json:"function"`
	Format      string `json:"format"`
	SHA256      string `json:"sha256"`
	Size        int    `json:"size"`
	TimeCreated string `json:"time_created"`
}

// GET /_sandbox/merchants: every merchant by id with its accounts and documents.
func (s *Server) adminListMerchants(*http.Request) (any, error) {
	records, now, err := s.svc.MerchantRecords()
	if err != nil {
		return nil, err
	}
	out := make([]adminMerchant, 0, len(records))
	for _, r := range records {
		b := r.Merchant.Profile()
		m := adminMerchant{
			MerchantView: api.NewAdminMerchantView(sandbox.MerchantView{Merchant: r.Merchant, Now: now}),
			Accounts:     []api.MerchantAccountView{}, Documents: []adminDocument{}, OrderIDs: b.OrderIDs,
			AppID: b.AppID, ReviewUntil: sandbox.FormatOptionalTime(b.ReviewUntil),
		}
		if m.OrderIDs == nil {
			m.OrderIDs = []string{}
		}
		for _, a := range r.Accounts {
			m.Accounts = append(m.Accounts, api.NewMerchantAccountView(a))
		}
		for _, d := range b.Documents {
			m.Documents = append(m.Documents, adminDocument{ID: d.ID, Function: d.Function, Format: d.Format,
				SHA256: d.SHA256, Size: d.Size, TimeCreated: sandbox.FormatTime(d.TimeCreated)})
		}
		out = append(out, m)
	}
	return map[string]any{"merchants": out}, nil
}
