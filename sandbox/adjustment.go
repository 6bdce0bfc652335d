package sandbox

import (
	"strings"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox/carddata"
)

// AdjustmentHistoryLimit is how many adjustments of one transaction are remembered;
// older entries are dropped [SB]. A till adjusts a sale a handful of times; a load test
// adjusting one sale a million times must not grow the database by a million entries.
const AdjustmentHistoryLimit = 100

// AdjustRequest is a validated adjustment: which transaction, the fields to change
// (empty means absent; all empty is refused once the transaction is found) and the
// request's idempotency data.
type AdjustRequest struct {
	TransactionID  string
	MerchantID     string // set on the partner path /merchants/{mid}/transactions/{id}/adjustment
	Amount         string
	GratuityAmount string
	Tag            string // EMV TLV data in hex, as sent: masked where it is kept
	Version        string
	Idempotency    Idempotency
}

// Adjust changes the data of a card-present transaction (amount, gratuity, EMV tag),
// never its status, and records the change as a new action. The transaction is looked
// up before anything about the change is judged: GP answers an empty change of an
// unknown transaction with 404, not with the "at least one field" error.
func (s *Service) Adjust(c Caller, req AdjustRequest) (Transaction, error) {
	t, _, err := execute(s, c, req.Idempotency, "transaction", func(tx Tx, now time.Time) (string, Transaction, error) {
		t, err := s.adjustTransaction(tx, c, req, now)
		return t.ID, t, err
	})
	return t, err
}

// adjustTransaction adjusts inside a store transaction: the one code path of an
// adjustment, whether an API request or a terminal's tip adjust asked for it.
func (s *Service) adjustTransaction(tx Tx, c Caller, req AdjustRequest, now time.Time) (Transaction, error) {
	t, err := visible(c, req.MerchantID, req.TransactionID, tx.Transaction, NotFoundTransaction)
	if err != nil {
		return t, err
	}
	if req.Amount == "" && req.GratuityAmount == "" && req.Tag == "" {
		return t, MissingFields("[amount or tag or gratuityAmount]")
	}
	if err := s.refreshBatch(tx, &t, now); err != nil {
		return t, err
	}
	if err := allows(OpAdjustment, t); err != nil {
		return t, err
	}
	if req.Amount != "" {
		// A refund's new amount moves its sale's refunded total, within the cap.
		sale, err := refundCap(tx, t, NormalizeAmount(req.Amount))
		if err != nil {
			return t, err
		}
		for _, w := range sale {
			if err := tx.PutTransaction(w); err != nil {
				return t, err
			}
		}
	}
	t.Action = s.newAction(c, ActionAuthorize, now)
	t.AdjustmentCount++
	record := Adjustment{
		Seq: t.AdjustmentCount, ActionID: t.Action.ID, Time: t.Action.TimeCreated, AppID: c.App.ID,
		Version: req.Version, Changes: applyAdjustment(&t, req),
	}
	if err := tx.AddAdjustment(t.ID, record, AdjustmentHistoryLimit); err != nil {
		return t, err
	}
	return t, tx.PutTransaction(t)
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
	set("payment_method.card.tag", &t.EMVTag, carddata.MaskEMV(req.Tag)) // the one card member an adjustment keeps
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

// Adjustment is one entry of a transaction's adjustment history.
type Adjustment struct {
	Seq      int               `json:"seq"` // 1 for the transaction's first adjustment
	ActionID string            `json:"action_id"`
	Time     string            `json:"time"`
	AppID    string            `json:"app_id"`
	Version  string            `json:"version,omitempty"`
	Changes  map[string]Change `json:"changes"`
}

// Change is a field's value before and after an adjustment.
type Change struct {
	From string `json:"from"`
	To   string `json:"to"`
}
