package admin

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"maps"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/api"
	"github.com/gp-sandbox/gp-sandbox/sandbox/carddata"
	"github.com/gp-sandbox/gp-sandbox/sandbox/scenario"
	"github.com/gp-sandbox/gp-sandbox/sandbox/web"
)

// The admin API under /_sandbox/: JSON in and out, errors in the GP shape. It reads and
// steers the sandbox from outside; the scenario routes are registered elsewhere.

// adminHandler serves one admin call and returns the value to render as JSON.
type adminHandler func(r *http.Request) (any, error)

// admin wraps h with the admin token check. API tokens never open admin calls: only
// the configured admin token does, compared in constant time; without one configured
// the admin API is open. query names the query parameters h reads (see onlyQuery).
func (s *Server) admin(h adminHandler, query ...string) http.Handler {
	return s.adminCall(h, func(body []byte) []byte { return body }, query)
}

// adminRecords is admin for the calls that show records a client's requests wrote
// (transactions, orders, terminals and their requests): their free text is masked
// (see masked).
func (s *Server) adminRecords(h adminHandler, query ...string) http.Handler {
	return s.adminCall(h, masked, query)
}

func (s *Server) adminCall(h adminHandler, shown func([]byte) []byte, query []string) http.Handler {
	return s.adminOnly(queried(query, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v, err := h(r)
		if err != nil {
			web.WriteError(w, r, err)
			return
		}
		body, err := json.Marshal(v)
		if err != nil {
			web.WriteError(w, r, err)
			return
		}
		web.WriteBody(w, r, http.StatusOK, shown(body))
	})))
}

// queried refuses, before h runs, a query that names a parameter other than known
// or one of them twice (onlyQuery). It runs inside adminOnly, which parsed the query.
func queried(known []string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := onlyQuery(adminQuery(r), known); err != nil {
			web.WriteError(w, r, err)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// masked is an admin answer as the inspector shows it. A record keeps what a client
// sent as sent, but for its card members (masked where the record is built), so a
// card number typed into free text (an address, an authcode) is masked here, as the
// journal masks a body (carddata.MaskJSON): ids, references and URLs shown as sent
// but for a card number standing whole in them, every other value with its card
// numbers masked. An answer without a card-like
// sequence of digits, nearly every one, is kept as it is.
func masked(body []byte) []byte {
	if carddata.NoneIn(body) {
		return body
	}
	return carddata.MaskJSON(body)
}

// adminOnly lets a request through to h only with the admin token, when one is set,
// and never a browser's cross-origin write.
func (s *Server) adminOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rec := web.RecordOf(r); rec != nil && rec.Operation == "" {
			rec.Operation = "admin" // a terminal action keeps its own (terminalAction)
		}
		// Without an admin token, any web page open in the user's browser could
		// otherwise POST a reset to the sandbox on loopback: a browser's cross-origin
		// writes (told by Sec-Fetch-Site or Origin) are refused. Clients that are not
		// browsers send neither header and pass.
		if err := s.crossOrigin.Check(r); err != nil {
			web.WriteError(w, r, sandbox.CrossOriginAdmin())
			return
		}
		// A page that rebinds its own name to the sandbox's address is same-origin
		// for the browser, and may read answers too: an open admin API answers only
		// under the names it is known by. A token is what a page cannot guess.
		if s.adminToken == "" && !s.hostAllowed(r.Host) {
			web.WriteError(w, r, sandbox.HostNotAllowed(r.Host))
			return
		}
		if s.adminToken != "" {
			got := web.BearerToken(r)
			// ConstantTimeCompare returns early on a length difference; comparing
			// digests keeps even the token's length from leaking through timing.
			if subtle.ConstantTimeCompare(digest(got), digest(s.adminToken)) != 1 {
				web.WriteError(w, r, sandbox.InvalidAdminToken())
				return
			}
		}
		q, err := web.Query(r)
		if err != nil {
			web.WriteError(w, r, err)
			return
		}
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), queryKey{}, q)))
	})
}

type queryKey struct{}

// adminQuery is the query string of an admin call, as adminOnly parsed it.
func adminQuery(r *http.Request) url.Values {
	q, _ := r.Context().Value(queryKey{}).(url.Values)
	return q
}

// hostAllowed reports whether an open admin API answers a request for host (the Host
// header, with or without its port): an IP address (a rebinding page has a name, and
// its address is the sandbox's), localhost and *.localhost, which browsers resolve to
// loopback themselves, and the names configured in AllowedHosts. A request without a
// Host (HTTP/1.0) comes from no browser.
func (s *Server) hostAllowed(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.ToLower(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
	switch {
	case host == "", host == "localhost", strings.HasSuffix(host, ".localhost"), net.ParseIP(host) != nil:
		return true
	}
	return s.allowedHosts[host]
}

func digest(s string) []byte {
	sum := sha256.Sum256([]byte(s))
	return sum[:]
}

// onlyQuery refuses a query parameter an admin call does not read, naming it, and one
// it reads given twice: a filter mistyped (?merchant=) must not answer the whole list
// as if it had matched, a filter given twice must not be half applied, and a call
// that wipes (DELETE /_sandbox/requests?operation=...) must not wipe everything when
// the client meant only part.
func onlyQuery(q url.Values, known []string) error {
	names := slices.Sorted(maps.Keys(q))
	if unknown := slices.DeleteFunc(slices.Clone(names), func(name string) bool { return slices.Contains(known, name) }); len(unknown) > 0 {
		if unknown[0] == "" {
			unknown[0] = `""` // ?=1: a parameter without a name, named as it can be
		}
		for i, name := range unknown {
			unknown[i] = carddata.Mask(name) // a name is the client's text, card numbers and all
		}
		return sandbox.UnexpectedFields(unknown)
	}
	for _, name := range names {
		if len(q[name]) > 1 {
			return sandbox.InvalidField(name)
		}
	}
	return nil
}

// noOptions refuses a body on a call that takes none, but for nothing, {} or [] (PHP's
// empty payload, which web.DecodeObject reads as {}): a client
// sending options it expects honoured must not have a wipe done without them. The
// Content-Type of an empty body says nothing: curl sends a form's with an empty -d.
func noOptions(r *http.Request) error {
	raw, err := web.ReadBody(nil, r)
	if err != nil || len(bytes.TrimSpace(raw)) == 0 {
		return err
	}
	body, err := web.DecodeObject(raw)
	if err == nil && len(body) > 0 {
		err = sandbox.UnexpectedFields(slices.Sorted(maps.Keys(body)))
	}
	return err
}

// POST /_sandbox/reset
func (s *Server) adminReset(r *http.Request) (any, error) {
	if err := noOptions(r); err != nil {
		return nil, err
	}
	var fx sandbox.Fixtures
	if s.fixtures != nil {
		var err error
		if fx, err = s.fixtures(); err != nil {
			return nil, sandbox.FixturesUnreadable(err.Error())
		}
	}
	if err := s.svc.Reset(fx); err != nil {
		return nil, err
	}
	if s.journal != nil {
		s.journal.clear() // a reset is a fresh start for a test: its journal starts empty
	}
	return map[string]string{"status": "reset"}, nil
}

// GET /_sandbox/transactions/{id}
func (s *Server) adminGetTransaction(r *http.Request) (any, error) {
	t, history, err := s.svc.TransactionHistory(api.PathVar(r, "id"))
	if err != nil {
		return nil, err
	}
	return adminTransactionView(t, history), nil
}

// PUT /_sandbox/transactions/{id}: creates or replaces the transaction of the path.
// The body (JSON, or YAML) has the keys of a fixture transaction, each checked by the
// same rules, but any may be left out: SeedTransaction gives it its default. An id in
// the body must be the path's.
func (s *Server) adminPutTransaction(r *http.Request) (any, error) {
	id := api.PathVar(r, "id")
	t, err := s.seedDocument(r)
	if err != nil {
		return nil, err
	}
	if t.ID != "" && t.ID != id {
		return nil, sandbox.InvalidDocument("id: " + t.ID + " is not the id of the path, " + id)
	}
	t.ID = id
	return s.seed(t)
}

// POST /_sandbox/transactions: creates a transaction with a generated TRN_ id, from a
// body as PUT takes it, without an id.
func (s *Server) adminPostTransaction(r *http.Request) (any, error) {
	t, err := s.seedDocument(r)
	if err != nil {
		return nil, err
	}
	if t.ID != "" {
		return nil, sandbox.InvalidDocument("id: the sandbox generates it; PUT /_sandbox/transactions/" + t.ID + " sets it")
	}
	return s.seed(t)
}

// seedDocument reads and checks the transaction document of a PUT or POST.
func (s *Server) seedDocument(r *http.Request) (sandbox.Transaction, error) {
	raw, err := web.ReadBody(nil, r)
	if err != nil {
		return sandbox.Transaction{}, err
	}
	if s.decodeTransaction == nil {
		return sandbox.Transaction{}, sandbox.InvalidDocument("transaction documents are not accepted by this server")
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = []byte("{}") // nothing given: every field its default
	}
	t, err := s.decodeTransaction(raw, "body")
	if err != nil {
		return sandbox.Transaction{}, sandbox.InvalidDocument(strings.ReplaceAll(err.Error(), "\n", "; "))
	}
	return t, nil
}

func (s *Server) seed(t sandbox.Transaction) (any, error) {
	for _, name := range t.Scenarios {
		// As a fixture's binding is checked at start: one to no scenario would do nothing.
		if s.engine != nil && !s.engine.Has(name) {
			return nil, sandbox.InvalidDocument("scenarios: " + (&scenario.UnknownError{Name: name}).Error())
		}
	}
	stored, err := s.svc.SeedTransaction(t)
	if err != nil {
		return nil, err
	}
	return adminTransactionView(stored, nil), nil
}

// GET /_sandbox/orders/{id}
func (s *Server) adminGetOrder(r *http.Request) (any, error) {
	o, err := s.svc.Order(api.PathVar(r, "id"))
	if err != nil {
		return nil, err
	}
	return adminOrderView(o), nil
}

// GET /_sandbox/batches/{id}: a batch as the sandbox keeps it, closed first if its
// merchant's daily close time has passed.
func (s *Server) adminGetBatch(r *http.Request) (any, error) {
	b, err := s.svc.BatchState(api.PathVar(r, "id"))
	if err != nil {
		return nil, err
	}
	return adminBatchView(b), nil
}

var orderStatusBody = web.NewBody[orderStatusRequest]()

// orderStatusRequest is the body of POST /_sandbox/orders/{id}/status: one of
// sandbox.OrderStatuses.
type orderStatusRequest struct {
	Status string `json:"status" gp:"required,enum=INITIATED|PROCESSING|SHIPPED|DELIVERED|CANCELLED"`
}

// POST /_sandbox/orders/{id}/status {"status": "PROCESSING"}: answers the order as
// the API shows it, with the action of the change.
func (s *Server) adminOrderStatus(r *http.Request) (any, error) {
	req, err := orderStatusBody.Read(r)
	if err != nil {
		return nil, err
	}
	o, err := s.svc.ChangeOrderStatus(api.PathVar(r, "id"), req.Status)
	if err != nil {
		return nil, err
	}
	return api.NewOrderView(o), nil
}

// GET /_sandbox/requests?<filters>&limit=: the matching entries, newest first, and
// when more match, next: this query for the entries before the last one answered.
func (s *Server) adminRequests(r *http.Request) (any, error) {
	f, limit, err := s.parseJournalQuery(adminQuery(r), true)
	if err != nil || s.journal == nil {
		return map[string]any{"requests": []JournalEntry{}}, err
	}
	entries, more := s.journal.list(f, limit)
	answer := map[string]any{"requests": entries}
	if more {
		q := maps.Clone(adminQuery(r))
		q.Set("before", strconv.FormatUint(entries[len(entries)-1].Seq, 10))
		answer["next"] = r.URL.Path + "?" + q.Encode()
	}
	return answer, nil
}

// GET /_sandbox/requests/count?<filters>: how many entries match, e.g. to verify
// that a client called an operation exactly once.
func (s *Server) adminCountRequests(r *http.Request) (any, error) {
	f, _, err := s.parseJournalQuery(adminQuery(r), false)
	if err != nil || s.journal == nil {
		return map[string]int{"count": 0}, err
	}
	return map[string]int{"count": s.journal.count(f)}, nil
}

// DELETE /_sandbox/requests: forgets every journal entry.
func (s *Server) adminClearRequests(r *http.Request) (any, error) {
	if err := noOptions(r); err != nil {
		return nil, err
	}
	if s.journal != nil {
		s.journal.clear()
	}
	return map[string]string{"status": "cleared"}, nil
}

// GET /_sandbox/notifications?order_id=
func (s *Server) adminNotifications(r *http.Request) (any, error) {
	list, err := s.svc.Notifications(adminQuery(r).Get("order_id"))
	if err != nil {
		return nil, err
	}
	out := make([]notificationView, 0, len(list))
	for _, n := range list {
		// Rendered as the worker renders it, so body and signature are what is sent.
		body, err := api.NotificationBody(n)
		if err != nil {
			return nil, err
		}
		action, status := n.Order.Action.Type, n.Order.Status
		if d := n.DeviceRequest; d != nil {
			action, status = d.Action.Type, d.Status
		}
		if d := n.Dispute; d != nil {
			action, status = d.Action.Type, d.Status
		}
		v := notificationView{
			OrderID: n.OrderID, Seq: n.Seq, Action: action, OrderStatus: status, URL: n.URL,
			Signature: sandbox.Sign(body, n.AppKey),
			State:     n.State, Created: sandbox.FormatTime(n.Created), NextAttempt: sandbox.FormatOptionalTime(n.NextAttempt),
			Attempts: []attemptView{}, Body: masked(body), // signed as sent, shown masked

		}
		for _, a := range n.Attempts {
			v.Attempts = append(v.Attempts, attemptView{
				Time: sandbox.FormatTime(a.Time), HTTPStatus: a.HTTPStatus, Error: a.Error,
				NextAttempt: sandbox.FormatOptionalTime(a.NextAttempt),
			})
		}
		out = append(out, v)
	}
	return map[string]any{"notifications": out}, nil
}

var clockBody = web.NewBody[clockRequest]()

// clockRequest is the body of POST /_sandbox/clock; an empty string (the tags
// refuse one) or a nil Freeze is a member left out.
type clockRequest struct {
	Advance string `json:"advance" gp:"max=50"`
	Set     string `json:"set" gp:"max=50"`
	Freeze  *bool  `json:"freeze"`
}

// GET /_sandbox/clock
func (s *Server) adminGetClock(*http.Request) (any, error) { return s.clockView(), nil }

// POST /_sandbox/clock {"set": time} {"advance": "25h"} {"freeze": bool}, applied in
// that order when several are given.
func (s *Server) adminPostClock(r *http.Request) (any, error) {
	req, err := clockBody.Read(r)
	if err != nil {
		return nil, err
	}
	clock, ok := s.svc.Clock().(sandbox.MovableClock)
	if !ok {
		return nil, sandbox.InvalidDocument("the sandbox clock cannot be moved")
	}
	if req.Set == "" && req.Advance == "" && req.Freeze == nil {
		return nil, sandbox.MissingFields("[advance or set or freeze]")
	}
	var at time.Time
	if req.Set != "" {
		if at, err = time.Parse(time.RFC3339Nano, req.Set); err != nil {
			return nil, sandbox.InvalidFieldBecause("set", "a time with its zone, like 2021-03-22T10:00:00.000Z")
		}
	}
	var d time.Duration
	if req.Advance != "" {
		if d, err = time.ParseDuration(req.Advance); err != nil || d <= 0 {
			return nil, sandbox.InvalidFieldBecause("advance", "a positive duration, like 90s, 25h or 1h30m")
		}
	}
	// Both given: check where they lead together before moving, so that a refused
	// advance leaves the clock where it was, not at the set time.
	if req.Set != "" && req.Advance != "" {
		if err := sandbox.InClockRange("advance", at.Add(d)); err != nil {
			return nil, err
		}
	}
	if req.Set != "" {
		if err := clock.Set(at); err != nil {
			return nil, err
		}
	}
	if req.Advance != "" {
		if err := clock.Advance(d); err != nil {
			return nil, err
		}
	}
	if req.Freeze != nil {
		clock.Freeze(*req.Freeze)
	}
	// The orders whose scheduled steps fell due are moved before the answer, so that
	// what a client reads next is as of the new time.
	if _, err := s.svc.CarryOrders(); err != nil {
		return nil, err
	}
	return s.clockView(), nil
}

func (s *Server) clockView() clockView {
	v := clockView{Now: sandbox.FormatTime(s.svc.Clock().Now())}
	if c, ok := s.svc.Clock().(sandbox.MovableClock); ok {
		v.Frozen = c.Frozen()
	}
	return v
}

// GET /_sandbox/devices?merchant_id=&order_id=: every terminal and its state, or
// those of a merchant or delivered by an order.
func (s *Server) adminListDevices(r *http.Request) (any, error) {
	devices, err := s.svc.Devices()
	if err != nil {
		return nil, err
	}
	q := adminQuery(r)
	views := []adminDeviceView{}
	for _, d := range devices {
		if (q.Has("merchant_id") && d.MerchantID != q.Get("merchant_id")) || (q.Has("order_id") && d.OrderID != q.Get("order_id")) {
			continue
		}
		views = append(views, newAdminDeviceView(d))
	}
	return map[string]any{"devices": views}, nil
}

var deviceChangeBody = web.NewBody[deviceChangeRequest]()

// deviceChangeRequest is the body of POST /_sandbox/devices/{id}.
type deviceChangeRequest struct {
	Mode      string `json:"mode" gp:"enum=COMPLETE|INITIATED"`
	Status    string `json:"status" gp:"enum=ACTIVE|INACTIVE"`
	Card      string `json:"card" gp:"max=50"` // a terminal test card's name: the terminal's default
	AccountID string `json:"account_id" gp:"max=50"`
}

// POST /_sandbox/devices/{id} {"mode":"INITIATED"}: a terminal's answer mode, status
// or default card, or {"account_id":"TRA_..."} the account it is bound to.
func (s *Server) adminChangeDevice(r *http.Request) (any, error) {
	req, err := deviceChangeBody.Read(r)
	if err != nil {
		return nil, err
	}
	d, err := s.svc.ChangeDevice(api.PathVar(r, "id"), sandbox.DeviceChange(req))
	if err != nil {
		return nil, err
	}
	return newAdminDeviceView(d), nil
}

var presentBody = web.NewBody[presentRequest]()

// presentRequest is the body of POST /_sandbox/device-requests/{id}/present.
type presentRequest struct {
	Card      string `json:"card" gp:"max=50"` // a terminal test card's name or a card number
	EntryMode string `json:"entry_mode" gp:"enum=CHIP|SWIPE|CONTACTLESS_CHIP|MANUAL"`
	Tip       string `json:"tip" gp:"digits,max=50"`
	PIN       string `json:"pin" gp:"enum=wrong"`
	Outcome   string `json:"outcome" gp:"enum=customer_cancels|terminal_timeout|host_decline"`
}

// POST /_sandbox/device-requests/{id}/present: a person presents a card on the
// terminal of an INITIATED command (or cancels it); answers the completed request.
func (s *Server) adminPresentCard(r *http.Request) (any, error) {
	return s.present(r, s.svc.CompleteDeviceRequest)
}

// GET /_sandbox/device-requests/{id}: a command sent to a terminal, as POST /devices
// answers it now.
func (s *Server) adminGetDeviceRequest(r *http.Request) (any, error) {
	d, err := s.svc.DeviceRequestState(api.PathVar(r, "id"))
	if err != nil {
		return nil, err
	}
	return api.NewDeviceRequestView(d), nil
}
