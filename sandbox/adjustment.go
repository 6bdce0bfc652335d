package sandbox

import (
	"encoding/json"
	"strings"
	"time"
)

// AdjustmentHistoryLimit is how many adjustments of one transaction are remembered;
// older entries are dropped [SB]. A till adjusts a sale a handful of times; a load test
// adjusting one sale a million times must not grow the database by a million entries.
const AdjustmentHistoryLimit = 100

// AdjustRequest is a validated adjustment: which transaction, the fields to change
// (empty means absent) and the request's idempotency data.
type AdjustRequest struct {
	TransactionID  string
	MerchantID     string // set on the partner path /merchants/{mid}/transactions/{id}/adjustment
	Amount         string
	GratuityAmount string
	Tag            string
	Version        string
	Idempotency    Idempotency
}

// transactionView is the Transaction resource as GP returns it, fields in GP's order.
type transactionView struct {
	ID            string        `json:"id"`
	TimeCreated   string        `json:"time_created"`
	Type          string        `json:"type"`
	Status        string        `json:"status"`
	Amount        string        `json:"amount"`
	Currency      string        `json:"currency"`
	Country       string        `json:"country"`
	Reference     string        `json:"reference"`
	PaymentMethod PaymentResult `json:"payment_method"`
	Order         *OrderAmounts `json:"order,omitempty"`
	BatchID       string        `json:"batch_id"`
	Action        Action        `json:"action"`
}

// View returns the transaction as the API shows it: GP's full resource for a
// transaction with a channel (made through the API), the service document's shape
// for the fixtures' older records.
func (t Transaction) View() any {
	if t.Channel != "" {
		return t.resourceView()
	}
	return transactionView{
		ID: t.ID, TimeCreated: FormatTime(t.TimeCreated), Type: t.Type, Status: t.Status,
		Amount: t.Amount, Currency: t.Currency, Country: t.Country, Reference: t.Reference,
		PaymentMethod: t.PaymentMethod, Order: t.Order, BatchID: t.BatchID, Action: t.Action,
	}
}

// Adjust changes the data of a card-present transaction (amount, gratuity, EMV tag),
// never its status, and records the change as a new action.
func (s *Service) Adjust(c Caller, req AdjustRequest) (Result, error) {
	if err := s.Authorize(c, OpAdjustment); err != nil {
		return Result{}, err
	}
	return s.execute(c, req.Idempotency, "transaction", func(tx Tx, now time.Time) (string, any, error) {
		t, err := tx.Transaction(req.TransactionID)
		if err != nil {
			return "", nil, notFoundAs(err, NotFoundTransaction(req.TransactionID))
		}
		// Another merchant's transaction is indistinguishable from a missing one.
		if !c.App.ActsFor(t.MerchantID) || (req.MerchantID != "" && req.MerchantID != t.MerchantID) {
			return "", nil, NotFoundTransaction(req.TransactionID)
		}
		if err := s.refreshBatch(tx, &t, now); err != nil {
			return "", nil, err
		}
		if err := allows(OpAdjustment, t); err != nil {
			return "", nil, err
		}
		t.Action = s.newAction(c, "AUTHORIZE", now)
		t.AdjustmentCount++
		record := Adjustment{
			Seq: t.AdjustmentCount, ActionID: t.Action.ID, Time: t.Action.TimeCreated, AppID: c.App.ID,
			Version: req.Version, Changes: applyAdjustment(&t, req),
		}
		// A ring of AdjustmentHistoryLimit slots: the newest entry replaces the oldest.
		slot := (t.AdjustmentCount - 1) % AdjustmentHistoryLimit
		if err := tx.PutAdjustment(t.ID, slot, record); err != nil {
			return "", nil, err
		}
		if err := tx.PutTransaction(t); err != nil {
			return "", nil, err
		}
		return t.ID, t.View(), nil
	})
}

// applyAdjustment writes the requested fields onto t and returns what changed.
func applyAdjustment(t *Transaction, req AdjustRequest) map[string]Change {
	changes := map[string]Change{}
	set := func(name string, field *string, value string) {
		if value == "" {
			return
		}
		changes[name] = Change{From: *field, To: value}
		*field = value
	}
	if t.AuthorizationAmount == "" {
		t.AuthorizationAmount = t.Amount // the authorization amount is never replaced [DOC]
	}
	set("amount", &t.Amount, NormalizeAmount(req.Amount))
	set("gratuity_amount", &t.GratuityAmount, NormalizeAmount(req.GratuityAmount))
	set("payment_method.card.tag", &t.EMVTag, req.Tag)
	return changes
}

// NormalizeAmount strips leading zeros from a digit string: SDKs send zero as "000".
func NormalizeAmount(digits string) string {
	if digits == "" {
		return ""
	}
	trimmed := strings.TrimLeft(digits, "0")
	if trimmed == "" {
		return "0"
	}
	return trimmed
}

func jsonBody(v any) ([]byte, error) { return json.Marshal(v) }
