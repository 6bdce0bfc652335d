package admin

import (
	"cmp"
	"net/http"
	"slices"

	"github.com/gorilla/mux"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/api"
	"github.com/gp-sandbox/gp-sandbox/sandbox/web"
)

// The admin calls of the inspector's Terminal view: each terminal's screen, and the
// customer's actions on the command waiting on one (choose a tip, present a card,
// cancel). The actions are journaled, unlike other admin calls: they are what the
// customer did at the terminal, and a test reading the journal sees them beside the
// POST /devices they answer.

// Journal operation names of the customer's actions.
const (
	opTerminalPresent = "terminal_present"
	opTerminalTip     = "terminal_tip"
	opTerminalCancel  = "terminal_cancel"
)

var terminalOperations = []string{opTerminalPresent, opTerminalTip, opTerminalCancel}

// terminalAction is the journal operation of a request that is a customer's action on
// a terminal, which the journal records; "" for any other request. It is decided
// before routing (the journal keeps the body as it came), by asking the router which
// route the request would take: the action routes are named by their operation
// (server.go, Register).
func (s *Server) terminalAction(r *http.Request) string {
	var m mux.RouteMatch
	if !s.router.Match(r, &m) || m.MatchErr != nil {
		return "" // no route, or not with this method
	}
	if name := m.Route.GetName(); slices.Contains(terminalOperations, name) {
		return name
	}
	return ""
}

// terminalView is a terminal as the Terminal view shows it: the device, the command
// waiting on its screen, those queued behind it and the last one it answered.
// Amounts are in minor units.
type terminalView struct {
	adminDeviceView
	Screen  string           `json:"screen"` // IDLE, WAITING_FOR_CARD or WAITING_FOR_CUSTOMER
	Waiting *waitingView     `json:"waiting,omitempty"`
	Queued  []queuedView     `json:"queued"`
	Last    *lastCommandView `json:"last,omitempty"`
}

// queuedView is a command waiting its turn behind the one on the screen.
type queuedView struct {
	DeviceRequestID string `json:"device_request_id"`
	Command         string `json:"command"`
	TimeCreated     string `json:"time_created"`
}

// waitingView is the command on a terminal's screen.
type waitingView struct {
	DeviceRequestID string `json:"device_request_id"`
	Command         string `json:"command"`
	Currency        string `json:"currency"`
	BaseAmount      string `json:"base_amount,omitempty"`
	TipPrompt       bool   `json:"tip_prompt"`           // the screen asks the customer for a tip
	TipAmount       string `json:"tip_amount,omitempty"` // the command's, or the one chosen on screen
	TimeCreated     string `json:"time_created"`
}

// lastCommandView is the terminal's last answer, as its screen shows it.
type lastCommandView struct {
	DeviceRequestID string               `json:"device_request_id"`
	Command         string               `json:"command"`
	Status          string               `json:"status"`
	Currency        string               `json:"currency"`
	Response        *sandbox.UPAResponse `json:"response,omitempty"`
	TimeCompleted   string               `json:"time_completed"`
}

func newTerminalView(st sandbox.TerminalState) terminalView {
	v := terminalView{adminDeviceView: newAdminDeviceView(st.Device), Screen: "IDLE", Queued: []queuedView{}}
	if d := st.Waiting; d != nil {
		v.Screen = "WAITING_FOR_CUSTOMER"
		if sandbox.ReadsCard(d.Command) {
			v.Screen = "WAITING_FOR_CARD"
		}
		v.Waiting = &waitingView{
			DeviceRequestID: d.ID, Command: d.Command.Command, Currency: d.Currency,
			BaseAmount: cmp.Or(d.Command.BaseAmount, d.Command.TotalAmount),
			TipPrompt:  sandbox.AsksForTip(d.Command), TipAmount: cmp.Or(d.Presentation.Tip, d.Command.TipAmount),
			TimeCreated: sandbox.FormatTime(d.TimeCreated),
		}
	}
	for _, d := range st.Queue {
		v.Queued = append(v.Queued, queuedView{DeviceRequestID: d.ID, Command: d.Command.Command, TimeCreated: sandbox.FormatTime(d.TimeCreated)})
	}
	if d := st.Last; d != nil {
		v.Last = &lastCommandView{
			DeviceRequestID: d.ID, Command: d.Command.Command, Status: d.Status, Currency: d.Currency,
			Response: d.Response, TimeCompleted: d.Action.TimeCreated,
		}
	}
	return v
}

// GET /_sandbox/terminals: every terminal's screen, and the test cards a person can
// present (names, brands, entry modes and masked numbers only).
func (s *Server) adminTerminals(*http.Request) (any, error) {
	states, err := s.svc.TerminalStates()
	if err != nil {
		return nil, err
	}
	views := make([]terminalView, len(states))
	for i, st := range states {
		views[i] = newTerminalView(st)
	}
	return map[string]any{"terminals": views, "cards": sandbox.TerminalCards()}, nil
}

// presentation checks a present body: a terminal test card by name, or a card number.
func presentation(req presentRequest) (sandbox.Presentation, error) {
	if req.Card != "" && !sandbox.PresentableCard(req.Card) {
		return sandbox.Presentation{}, sandbox.UnknownTerminalCard(req.Card)
	}
	return sandbox.Presentation{Card: req.Card, EntryMode: req.EntryMode, Tip: req.Tip, PIN: req.PIN, Outcome: req.Outcome}, nil
}

// POST /_sandbox/devices/{id}/present: a card presented on the terminal, for the
// command waiting on it; answers the completed device request.
func (s *Server) adminPresentOnDevice(r *http.Request) (any, error) {
	return s.present(r, s.svc.PresentOnTerminal)
}

// present reads a presentRequest and completes, with complete, the device request or
// the waiting command of the device the path names.
func (s *Server) present(r *http.Request, complete func(id string, p sandbox.Presentation) (sandbox.DeviceRequest, error)) (any, error) {
	req, err := presentBody.Read(r)
	if err != nil {
		return nil, err
	}
	p, err := presentation(req)
	if err != nil {
		return nil, err
	}
	d, err := complete(api.PathVar(r, "id"), p)
	if err != nil {
		return nil, err
	}
	web.NoteResource(r, d.ID)
	return api.NewDeviceRequestView(d), nil
}

var tipBody = web.NewBody[tipRequest]()

// tipRequest is the body of POST /_sandbox/devices/{id}/tip.
type tipRequest struct {
	Tip string `json:"tip" gp:"required,digits,max=15"`
}

// POST /_sandbox/devices/{id}/tip {"tip":"200"}: the customer chooses a tip on the
// tip screen ("0": no tip); answers the device request, still waiting for the customer.
func (s *Server) adminChooseTip(r *http.Request) (any, error) {
	req, err := tipBody.Read(r)
	if err != nil {
		return nil, err
	}
	d, err := s.svc.ChooseTip(api.PathVar(r, "id"), req.Tip)
	if err != nil {
		return nil, err
	}
	web.NoteResource(r, d.ID)
	return api.NewDeviceRequestView(d), nil
}

// POST /_sandbox/devices/{id}/cancel: the customer cancels the command waiting on the
// terminal; answers the device request the terminal answered Failed. No body.
func (s *Server) adminCancelOnDevice(r *http.Request) (any, error) {
	d, err := s.svc.PresentOnTerminal(api.PathVar(r, "id"), sandbox.Presentation{Outcome: sandbox.OutcomeCustomerCancels})
	if err != nil {
		return nil, err
	}
	web.NoteResource(r, d.ID)
	return api.NewDeviceRequestView(d), nil
}
