package admin

import (
	"encoding/json"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/api"
)

// The admin views: every shape the admin API (/_sandbox/...) sends, beside the public
// views of views.go. An admin view extends the public one where a resource has one
// (an order is the API's order plus who placed it and its history) and shows the
// sandbox's own state the public API never echoes (gratuity, EMV tag, batch state,
// adjustment history, notification attempts).

// adminTransaction is a stored transaction as the admin API shows it: the fixture
// fields, the sandbox's own state and the history. Its head, money, payment method
// and order block are the public views'; its action shows an app it lacks as "",
// where the public one leaves the member out. The members are in the order of the
// public resource, the admin API's own after them. It is not a fixture document: a
// PUT refuses its history and an action without an app.
type adminTransaction struct {
	api.TransactionHead
	api.MoneyView
	MerchantID          string                `json:"merchant_id"`
	AuthorizationAmount string                `json:"authorization_amount,omitempty"`
	GratuityAmount      string                `json:"gratuity_amount,omitempty"`
	Reference           string                `json:"reference,omitempty"`
	PaymentMethod       api.PaymentMethodView `json:"payment_method"`
	Order               *sandbox.OrderAmounts `json:"order,omitempty"`
	BatchID             string                `json:"batch_id,omitempty"`
	BatchClosed         bool                  `json:"batch_closed"`
	EMVTag              string                `json:"emv_tag,omitempty"`
	Action              sandbox.Action        `json:"action"`
	Adjustments         []sandbox.Adjustment  `json:"adjustments"`
}

func adminTransactionView(t sandbox.Transaction, history []sandbox.Adjustment) adminTransaction {
	if history == nil {
		history = []sandbox.Adjustment{}
	}
	return adminTransaction{
		TransactionHead: api.NewTransactionHead(t), MoneyView: api.TransactionMoney(t), MerchantID: t.MerchantID,
		AuthorizationAmount: t.AuthorizationAmount, GratuityAmount: t.GratuityAmount, Reference: t.Reference,
		PaymentMethod: api.NewPaymentMethodView(t.PaymentMethod), Order: t.Order,
		BatchID: t.BatchID, BatchClosed: t.BatchClosed, EMVTag: t.EMVTag, Action: t.Action, Adjustments: history,
	}
}

// adminOrder is a stored order as the admin API shows it: the API's view plus who
// placed it, where its notifications go and every action of its life.
type adminOrder struct {
	api.OrderView                      // the order as the API shows it
	AppID         string               `json:"app_id"`
	Version       string               `json:"version,omitempty"`
	StatusURL     string               `json:"status_url,omitempty"`
	Request       sandbox.OrderRequest `json:"request"`
	History       []sandbox.Action     `json:"history"`
}

func adminOrderView(o sandbox.Order) adminOrder {
	return adminOrder{
		OrderView: api.NewOrderView(o), AppID: o.AppID, Version: o.Version, StatusURL: o.Request.StatusURL,
		Request: o.Request, History: o.History,
	}
}

// notificationView is one delivery as GET /_sandbox/notifications shows it, with the
// X-GP-Signature header it is sent with: the listener sees it anyway, and a partner
// checking their signature code needs the value to compare.
type notificationView struct {
	OrderID     string          `json:"order_id"`
	Seq         int             `json:"seq"`
	Action      string          `json:"action"`
	OrderStatus string          `json:"order_status"`
	URL         string          `json:"url"`
	Signature   string          `json:"signature"`
	State       string          `json:"state"`
	Created     string          `json:"created"`
	NextAttempt string          `json:"next_attempt,omitempty"`
	Attempts    []attemptView   `json:"attempts"`
	Body        json.RawMessage `json:"body"`
}

type attemptView struct {
	Time        string `json:"time"`
	HTTPStatus  int    `json:"http_status,omitempty"`
	Error       string `json:"error,omitempty"`
	NextAttempt string `json:"next_attempt,omitempty"`
}

type clockView struct {
	Now    string `json:"now"`
	Frozen bool   `json:"frozen"`
}

type scenarioView struct {
	Name        string `json:"name,omitempty"`
	Description string `json:"description,omitempty"` // free text: card data masked
	File        string `json:"file"`
	Installed   bool   `json:"installed"`
	Rules       int    `json:"rules"`
	Global      bool   `json:"global"`
	LoadError   string `json:"load_error,omitempty"`
}

type scenariosView struct {
	Scenarios []scenarioView `json:"scenarios"`
	Active    []string       `json:"active"`
	// Seed is the seed of the chance draws, in decimal: a string, since a JSON number
	// loses digits past 2^53 in most clients.
	Seed string `json:"seed"`
}

// installedView answers POST /_sandbox/scenarios: the scenario as listed, and whether
// it replaced one installed before under the same name.
type installedView struct {
	scenarioView
	Replaced bool `json:"replaced"`
}

func adminBatchView(b sandbox.Batch) adminBatch {
	return adminBatch{
		ID: b.ID, Status: b.Status, MerchantID: b.MerchantID, AccountID: b.AccountID,
		TimeCreated: sandbox.FormatTime(b.TimeCreated), TimeClosed: sandbox.FormatOptionalTime(b.TimeClosed),
		ClosedBy: b.ClosedBy, TransactionCount: b.Count, Amount: b.Amount, Currency: b.Currency,
		Transactions: b.Members, Summary: api.NewBatchView(b),
	}
}

type adminBatch struct {
	ID               string        `json:"id"`
	Status           string        `json:"status"`
	MerchantID       string        `json:"merchant_id"`
	AccountID        string        `json:"account_id"`
	TimeCreated      string        `json:"time_created"`
	TimeClosed       string        `json:"time_closed,omitempty"`
	ClosedBy         string        `json:"closed_by,omitempty"`
	TransactionCount int           `json:"transaction_count"`
	Amount           string        `json:"amount"`
	Currency         string        `json:"currency"`
	Transactions     []string      `json:"transactions"`
	Summary          api.BatchView `json:"summary"` // what GET /batches/{id} answers
}

// scenarioStateView is GET /_sandbox/scenario-state: where scenarios are active
// besides globally, and how far each sequence has gone.
type scenarioStateView struct {
	sandbox.ScenarioState
	Sessions []sessionView `json:"sessions"`
}

// sessionView is a session seen in the journal and the scenarios its requests named.
type sessionView struct {
	Session   string   `json:"session"`
	Scenarios []string `json:"scenarios"` // X-Sandbox-Scenario values, newest first, each once
	Requests  int      `json:"requests"`
	LastSeen  string   `json:"last_seen"`
}

// healthView is GET /_sandbox/health of a sandbox that can no longer keep its writes.
type healthView struct {
	Status  string `json:"status"` // failing
	Problem string `json:"problem"`
}

// adminDeviceView is a terminal as the sandbox keeps it: the domain's record, whose
// JSON is the admin API's shape. Its tags are not the wire's alone: they name the
// members of the store's device record, which its indexes read (merchant_id,
// account_id, pending), so a view declared here would copy them member for member.
// Only what the admin answer shows otherwise is declared here: the time, which Go's
// own time encoding would write without its trailing zeros (…38.58Z for …38.580Z).
type adminDeviceView struct {
	sandbox.Device
	TimeCreated string `json:"time_created,omitempty"` // in GP's millisecond form; none for a fixture's terminal
}

func newAdminDeviceView(d sandbox.Device) adminDeviceView {
	return adminDeviceView{Device: d, TimeCreated: sandbox.FormatOptionalTime(d.TimeCreated)}
}

// snapshotView is one snapshot, as POST and GET /_sandbox/snapshots show it.
type snapshotView struct {
	Name        string `json:"name"`
	TimeCreated string `json:"time_created"` // wall clock, not the sandbox clock
	Size        int64  `json:"size"`
	Session     string `json:"session,omitempty"` // a session snapshot's session
}

func newSnapshotView(sn sandbox.Snapshot) snapshotView {
	return snapshotView{
		Name: sn.Name, TimeCreated: sandbox.FormatTime(sn.Created), Size: sn.Size,
		Session: sandbox.ScopeSession(sn.Scope),
	}
}

// snapshotsView is GET /_sandbox/snapshots.
type snapshotsView struct {
	Snapshots []snapshotView `json:"snapshots"`
}

// restoredView is POST /_sandbox/snapshots/{name}/restore.
type restoredView struct {
	snapshotView
	Status string `json:"status"`
}
