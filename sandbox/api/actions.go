package api

import (
	"encoding/json"
	"net/http"
	"net/url"

	"github.com/gorilla/mux"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/carddata"
	"github.com/gp-sandbox/gp-sandbox/sandbox/web"
)

// registerBackOffice puts the back office's reads and the currency conversion on r.
func (s *Server) registerBackOffice(r *mux.Router) {
	r.Handle("/actions", s.endpoint(listActions)).Methods(http.MethodGet)
	r.Handle("/actions/{id}", s.endpoint(getAction)).Methods(http.MethodGet)
	for _, prefix := range []string{"", "/merchants/{merchant_id}"} {
		r.Handle(prefix+"/currency-conversions", s.endpoint(currencyConversion)).Methods(http.MethodPost)
		r.Handle(prefix+"/payment-methods", s.endpoint(listPaymentMethods)).Methods(http.MethodGet)
		r.Handle(prefix+"/payment-methods/search", s.endpoint(searchPaymentMethods)).Methods(http.MethodPost)
	}
}

// listActions is GET /actions: the actions of the merchants the app acts for, with
// GP's filters and paging [GP].
var listActions = read(sandbox.OpActionList, nil, func(s *Server, c *call) (any, error) {
	v, err := web.Query(c.r)
	if err != nil {
		return nil, err
	}
	q, err := actionQuery(v)
	if err != nil {
		return nil, err
	}
	page, err := s.svc.ListActions(c.caller, q)
	if gp, ok := sandbox.AsError(err); ok && gp.Detail == "40003" {
		// A foreign merchant_name is 403, where a foreign account_name is 400 [GP].
		return nil, web.WithStatus(http.StatusForbidden, gp)
	}
	if err != nil {
		return nil, err
	}
	return newActionListView(page), nil
})

// getAction is GET /actions/{id}: one action, with what its request carried and a
// summary of its answer.
var getAction = read(sandbox.OpActionDetail, []string{"id"}, func(s *Server, c *call) (any, error) {
	// GP names the path under its /ucp base, as for a transaction (getTransaction).
	a, err := s.svc.GetAction(c.caller, c.vars["id"], "/ucp"+c.r.URL.EscapedPath())
	if err != nil {
		return nil, err
	}
	return newActionDetailView(a), nil
})

// actionQuery reads a GET /actions query. GP's document spells the HTTP status
// filter http_code, the SDKs http_response_code: both are read.
func actionQuery(v url.Values) (sandbox.ActionQuery, error) {
	var q sandbox.ActionQuery
	r := &queryReader{v: v}
	q.Paging = r.paging(sandbox.ActionOrderings[0], "DESC", sandbox.ActionOrderings...)
	r.text("id", &q.ID)
	r.text("type", &q.Type)
	r.text("resource", &q.Resource)
	r.text("resource_status", &q.ResourceStatus)
	r.text("resource_id", &q.ResourceID)
	r.text("merchant_name", &q.MerchantName)
	r.text("account_name", &q.AccountName)
	r.text("app_id", &q.AppID)
	r.text("app_name", &q.AppName)
	r.text("version", &q.Version)
	r.text("response_code", &q.ResponseCode)
	r.text("http_code", &q.HTTPResponseCode)
	r.text("http_response_code", &q.HTTPResponseCode)
	r.date("from_time_created", &q.From)
	r.date("to_time_created", &q.To)
	return q, r.err
}

// refuse answers a refused request with its GP error, and records the refusal as an
// action when the request got as far as a known caller (RecordRefusal decides which).
// A failure to record is not the client's: the refusal is answered all the same.
func (s *Server) refuse(w http.ResponseWriter, r *http.Request, op operation, c *call, err error) {
	status, body := web.ErrorResponse(r, err)
	if c != nil && c.caller.App.ID != "" {
		_ = s.svc.RecordRefusal(c.caller, op.op, status, err)
	}
	web.WriteBody(w, r, status, body)
}

// received is what an action record keeps of a request's body: its JSON with every
// card member masked; nothing for a read, which is not recorded.
func received(op operation, body web.Object) string {
	if !op.op.Recorded() || len(body) == 0 {
		return ""
	}
	raw, err := json.Marshal(body)
	if err != nil {
		return ""
	}
	return string(carddata.MaskJSON(raw))
}
