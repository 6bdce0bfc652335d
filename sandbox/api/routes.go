package api

import (
	"net/http"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// routes lists every route the sandbox serves. Routes are registered flat: a mux
// subrouter with several routes answers 404 where 405 is due. Paths arrive already
// canonical (see canonicalPath), so the /ucp form needs no routes of its own.
func (s *Server) routes() *routeTable {
	r := newRouteTable(
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			writeError(w, r, sandbox.UnknownPath(r.URL.EscapedPath()))
		}),
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			writeError(w, r, withStatus(http.StatusMethodNotAllowed, sandbox.MethodNotAllowed(r.Method, r.URL.EscapedPath())))
		}),
	)
	r.Handle("/accesstoken", s.endpoint(accessToken)).Methods(http.MethodPost)
	r.Handle("/transactions/{id}/adjustment", s.endpoint(adjustment)).Methods(http.MethodPost)
	r.Handle("/merchants/{merchant_id}/transactions/{id}/adjustment", s.endpoint(adjustment)).Methods(http.MethodPost)
	r.Handle("/merchants/{merchant_id}/orders", s.endpoint(orders)).Methods(http.MethodPost)
	s.cardPresentRoutes(r)

	// The sandbox's own endpoints live under /_sandbox/, apart from the GP API.
	r.HandleFunc(healthPath, s.health).Methods(http.MethodGet)
	r.HandleFunc("/_sandbox/openapi.yaml", s.openapi).Methods(http.MethodGet)
	r.Handle("/_sandbox/reset", s.admin(s.adminReset)).Methods(http.MethodPost)
	r.Handle("/_sandbox/transactions/{id}", s.admin(s.adminGetTransaction)).Methods(http.MethodGet)
	r.Handle("/_sandbox/transactions/{id}", s.admin(s.adminPutTransaction)).Methods(http.MethodPut)
	r.Handle("/_sandbox/transactions", s.admin(s.adminPostTransaction)).Methods(http.MethodPost)
	r.Handle("/_sandbox/orders/{id}", s.admin(s.adminGetOrder)).Methods(http.MethodGet)
	r.Handle("/_sandbox/orders/{id}/status", s.admin(s.adminOrderStatus)).Methods(http.MethodPost)
	r.Handle("/_sandbox/requests", s.admin(s.adminRequests)).Methods(http.MethodGet)
	r.Handle("/_sandbox/requests", s.admin(s.adminClearRequests)).Methods(http.MethodDelete)
	r.Handle("/_sandbox/requests/count", s.admin(s.adminCountRequests)).Methods(http.MethodGet)
	r.Handle("/_sandbox/notifications", s.admin(s.adminNotifications)).Methods(http.MethodGet)
	r.Handle("/_sandbox/clock", s.admin(s.adminGetClock)).Methods(http.MethodGet)
	r.Handle("/_sandbox/clock", s.admin(s.adminPostClock)).Methods(http.MethodPost)
	r.Handle("/_sandbox/scenarios", s.admin(s.adminScenarios)).Methods(http.MethodGet)
	r.Handle("/_sandbox/scenarios", s.admin(s.adminInstallScenario)).Methods(http.MethodPost)
	r.Handle("/_sandbox/scenarios/active", s.admin(s.adminSetActiveScenarios)).Methods(http.MethodPut)
	r.Handle("/_sandbox/scenarios/{name}", s.admin(s.adminRemoveScenario)).Methods(http.MethodDelete)
	s.inspectorRoutes(r)

	return r
}

func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	if !s.ready() {
		writeBody(w, r, http.StatusServiceUnavailable, []byte(`{"status":"starting"}`))
		return
	}
	writeBody(w, r, http.StatusOK, []byte(`{"status":"ok"}`))
}
