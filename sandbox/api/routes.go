package api

import (
	"encoding/json"
	"net/http"
	"net/url"

	"github.com/gorilla/mux"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/api/ui"
)

// routes is the router of every route the sandbox serves, the profiles of
// net/http/pprof included when pprof is set.
//
// Paths arrive canonical (setCanonicalPath): runs of slashes folded and the /ucp
// base-URL prefix dropped, so the /ucp form needs no routes of its own. The router
// never cleans a path (a redirect: SDKs do not follow redirects on POST), and
// matches the path as sent, so that %2F is never taken for a segment separator
// (pathVars unescapes the variables). Routes are registered flat: a mux subrouter
// with several routes answers 404 where 405 is due.
func (s *Server) routes(pprof bool) *mux.Router {
	r := mux.NewRouter().SkipClean(true).UseEncodedPath()
	r.NotFoundHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, r, sandbox.UnknownPath(r.URL.EscapedPath()))
	})
	r.MethodNotAllowedHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, r, withStatus(http.StatusMethodNotAllowed, sandbox.MethodNotAllowed(r.Method, r.URL.EscapedPath())))
	})

	r.Handle("/accesstoken", s.endpoint(accessToken)).Methods(http.MethodPost)
	r.Handle("/transactions/{id}/adjustment", s.endpoint(adjustment)).Methods(http.MethodPost)
	r.Handle("/merchants/{merchant_id}/transactions/{id}/adjustment", s.endpoint(adjustment)).Methods(http.MethodPost)
	r.Handle("/merchants/{merchant_id}/orders", s.endpoint(orders)).Methods(http.MethodPost)
	// The card-present lifecycle, at its plain path and at the partner form.
	for _, prefix := range []string{"", "/merchants/{merchant_id}"} {
		r.Handle(prefix+"/transactions", s.endpoint(createTransaction)).Methods(http.MethodPost)
		r.Handle(prefix+"/transactions/{id}", s.endpoint(getTransaction)).Methods(http.MethodGet)
		r.Handle(prefix+"/transactions", s.endpoint(listTransactions)).Methods(http.MethodGet)
		r.Handle(prefix+"/verifications", s.endpoint(verification)).Methods(http.MethodPost)
		r.Handle(prefix+"/transactions/{id}/capture", s.endpoint(captureOp)).Methods(http.MethodPost)
		r.Handle(prefix+"/transactions/{id}/refund", s.endpoint(refundOp)).Methods(http.MethodPost)
		r.Handle(prefix+"/transactions/{id}/reversal", s.endpoint(reversalOp)).Methods(http.MethodPost)
		r.Handle(prefix+"/transactions/{id}/reauthorization", s.endpoint(reauthorizationOp)).Methods(http.MethodPost)
		r.Handle(prefix+"/transactions/{id}/incremental", s.endpoint(incrementalOp)).Methods(http.MethodPost)
		r.Handle(prefix+"/batches/{batch_id}", s.endpoint(closeBatch)).Methods(http.MethodPost)
		r.Handle(prefix+"/batches/{batch_id}", s.endpoint(getBatch)).Methods(http.MethodGet)
		r.Handle(prefix+"/batches", s.endpoint(closeOpenBatch)).Methods(http.MethodPost)
		r.Handle(prefix+"/batches/", s.endpoint(closeBatchWithoutID)).Methods(http.MethodPost)
		r.Handle(prefix+"/payment-methods", s.endpoint(createPaymentMethod)).Methods(http.MethodPost)
		r.Handle(prefix+"/payment-methods/{id}", s.endpoint(getPaymentMethod)).Methods(http.MethodGet)
		r.Handle(prefix+"/payment-methods/{id}", s.endpoint(editPaymentMethod)).Methods(http.MethodPatch)
		r.Handle(prefix+"/payment-methods/{id}", s.endpoint(deletePaymentMethod)).Methods(http.MethodDelete)
		r.Handle(prefix+"/devices", s.endpoint(deviceOp)).Methods(http.MethodPost)
	}

	// The sandbox's own endpoints live under /_sandbox/, apart from the GP API.
	r.Handle("/_sandbox/batches/{id}", s.admin(s.adminGetBatch)).Methods(http.MethodGet)
	r.HandleFunc(healthPath, s.health).Methods(http.MethodGet)
	r.HandleFunc("/_sandbox/openapi.yaml", s.openapi).Methods(http.MethodGet)
	r.Handle("/_sandbox/reset", s.admin(s.adminReset)).Methods(http.MethodPost)
	r.Handle("/_sandbox/transactions/{id}", s.admin(s.adminGetTransaction)).Methods(http.MethodGet)
	r.Handle("/_sandbox/transactions/{id}", s.admin(s.adminPutTransaction)).Methods(http.MethodPut)
	r.Handle("/_sandbox/transactions", s.admin(s.adminPostTransaction)).Methods(http.MethodPost)
	r.Handle("/_sandbox/orders/{id}", s.admin(s.adminGetOrder)).Methods(http.MethodGet)
	r.Handle("/_sandbox/orders/{id}/status", s.admin(s.adminOrderStatus)).Methods(http.MethodPost)
	r.Handle("/_sandbox/devices", s.admin(s.adminListDevices)).Methods(http.MethodGet)
	r.Handle("/_sandbox/devices/{id}", s.admin(s.adminChangeDevice)).Methods(http.MethodPost)
	r.Handle("/_sandbox/device-requests/{id}", s.admin(s.adminGetDeviceRequest)).Methods(http.MethodGet)
	// The customer's actions on a terminal, named by their journal operation
	// (terminalAction); the two present routes share one, and no URL is built by name.
	r.Handle("/_sandbox/device-requests/{id}/present", s.admin(s.adminPresentCard)).Methods(http.MethodPost).Name(opTerminalPresent)
	r.Handle("/_sandbox/devices/{id}/present", s.admin(s.adminPresentOnDevice)).Methods(http.MethodPost).Name(opTerminalPresent)
	r.Handle("/_sandbox/devices/{id}/tip", s.admin(s.adminChooseTip)).Methods(http.MethodPost).Name(opTerminalTip)
	r.Handle("/_sandbox/devices/{id}/cancel", s.admin(s.adminCancelOnDevice)).Methods(http.MethodPost).Name(opTerminalCancel)
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
	r.Handle("/_sandbox/snapshots", s.admin(s.adminSaveSnapshot)).Methods(http.MethodPost)
	r.Handle("/_sandbox/snapshots", s.admin(s.adminListSnapshots)).Methods(http.MethodGet)
	r.Handle("/_sandbox/snapshots/{name}/restore", s.admin(s.adminRestoreSnapshot)).Methods(http.MethodPost)
	r.Handle("/_sandbox/snapshots/{name}", s.admin(s.adminDeleteSnapshot)).Methods(http.MethodDelete)
	r.Handle("/_sandbox/coverage", s.admin(s.adminCoverage)).Methods(http.MethodGet)

	// The web inspector: its page and assets (which hold no data, so need no token),
	// and the admin calls only it needs.
	r.Handle("/_sandbox/ui", http.RedirectHandler("/_sandbox/ui/", http.StatusMovedPermanently)).Methods(http.MethodGet)
	r.PathPrefix("/_sandbox/ui/").Handler(http.StripPrefix("/_sandbox/ui", ui.Handler())).Methods(http.MethodGet, http.MethodHead)
	r.Handle("/_sandbox/requests/stream", s.adminOnly(http.HandlerFunc(s.adminRequestStream))).Methods(http.MethodGet)
	r.Handle("/_sandbox/transactions", s.admin(s.adminListTransactions)).Methods(http.MethodGet)
	r.Handle("/_sandbox/orders", s.admin(s.adminListOrders)).Methods(http.MethodGet)
	r.Handle("/_sandbox/batches", s.admin(s.adminListBatches)).Methods(http.MethodGet)
	r.Handle("/_sandbox/scenario-state", s.admin(s.adminScenarioState)).Methods(http.MethodGet)
	r.Handle("/_sandbox/terminals", s.admin(s.adminTerminals)).Methods(http.MethodGet)
	for _, op := range terminalOperations {
		s.operations[op] = true // journaled, so a journal filter may name them
	}

	if pprof {
		r.PathPrefix("/_sandbox/debug/pprof/").Handler(s.adminOnly(http.StripPrefix("/_sandbox", profiles())))
	}
	return r
}

// pathVars returns the path variables of the route that matched r, unescaped: the
// router matched the escaped path. A variable that does not unescape is left as
// sent; the id checks refuse it.
func pathVars(r *http.Request) map[string]string {
	vars := mux.Vars(r)
	unescaped := make(map[string]string, len(vars))
	for name, v := range vars {
		if u, err := url.PathUnescape(v); err == nil {
			v = u
		}
		unescaped[name] = v
	}
	return unescaped
}

// pathVar returns a path variable of the route that matched r, unescaped.
func pathVar(r *http.Request, name string) string { return pathVars(r)[name] }

func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	if !s.ready() {
		writeBody(w, r, http.StatusServiceUnavailable, []byte(`{"status":"starting"}`))
		return
	}
	if err := s.check(); err != nil {
		problem := err.Error()
		if gp, ok := sandbox.AsError(err); ok {
			problem = gp.Description
		}
		body, _ := json.Marshal(healthView{Status: "failing", Problem: problem})
		writeBody(w, r, http.StatusServiceUnavailable, body)
		return
	}
	writeBody(w, r, http.StatusOK, []byte(`{"status":"ok"}`))
}
