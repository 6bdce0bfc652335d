package sandbox

import (
	"errors"
	"math/big"
	"slices"
	"time"
)

// transactionRule says from which statuses an operation may act on a transaction
// and how it refuses the others. The table is the whole state machine of a
// transaction; the operations below only say what each does once allowed.
type transactionRule struct {
	from   []string
	refuse func() *Error
}

// transactionRules is the transaction lifecycle [GP] (wording of refusals [SB] where
// GP's tests show none):
//
//	PREAUTHORIZED --capture--> CAPTURED --reversal--> REVERSED --reauthorization--> (new) CAPTURED
//	PREAUTHORIZED --reversal--> REVERSED --reauthorization--> (new) PREAUTHORIZED
//	CAPTURED --refund--> (new REFUND, CAPTURED)
//	PREAUTHORIZED --incremental--> PREAUTHORIZED (a higher authorization)
//
// DECLINED and VERIFIED transactions accept none of them. What a transaction has been
// through narrows it further (allows): one with refunds that are not reversed cannot
// be reversed (the money would go back twice), a reversed one is reauthorized once,
// and the refunds of a sale stay within 115% of its amount however they change
// (refundCap): a refund's adjusted amount counts, a reversed refund does not [SB].
var transactionRules = map[Operation]transactionRule{
	OpCapture: {from: []string{StatusPreauthorized}, refuse: func() *Error {
		return NotInStatus("Capture", StatusPreauthorized)
	}},
	OpRefund: {from: []string{StatusCaptured}, refuse: func() *Error {
		return NotInStatus("Refund", StatusCaptured)
	}},
	OpReversal: {from: []string{StatusCaptured, StatusPreauthorized}, refuse: func() *Error {
		return NotInStatus("Reversal", StatusCaptured+" or "+StatusPreauthorized)
	}},
	OpReauthorization: {from: []string{StatusReversed}, refuse: NotReauthorizable},
	OpIncremental: {from: []string{StatusPreauthorized}, refuse: func() *Error {
		return NotInStatus("Incremental Authorization", StatusPreauthorized)
	}},
	OpAdjustment: {from: []string{StatusCaptured, StatusPreauthorized}, refuse: NotAdjustableStatus},
}

// allows reports whether op may act on t, and GP's refusal when not. Beyond the
// status: a MULTIPLE authorization takes further captures once CAPTURED, a refund
// cannot be refunded or reauthorized, and a transaction in a closed batch can be
// refunded but no longer reversed or adjusted.
func allows(op Operation, t Transaction) error {
	rule, ok := transactionRules[op]
	if !ok {
		return nil
	}
	switch {
	case op == OpCapture && t.Status == StatusCaptured && t.CaptureMode == CaptureMultiple:
		return nil
	case t.Type == TypeRefund && op == OpReauthorization:
		return RefundNotReauthorizable() // whatever the status [GP]
	case !slices.Contains(rule.from, t.Status):
		return rule.refuse()
	}
	switch {
	case t.Type == TypeRefund && op == OpRefund:
		return rule.refuse()
	case t.BatchClosed && (op == OpReversal || op == OpAdjustment):
		return BatchClosedFor(op)
	case op == OpReversal && hasRefunds(t):
		return RefundedReversal()
	case op == OpReauthorization && t.ReauthorizedBy != "":
		return NotReauthorizable() // GP's tuple for an original that no longer qualifies
	}
	return nil
}

// LifecycleRequest is a validated capture, refund, reversal, reauthorization or
// incremental authorization of an existing transaction.
type LifecycleRequest struct {
	Operation      Operation
	TransactionID  string
	MerchantID     string // the partner path's merchant
	Amount         string // empty: the operation's default
	GratuityAmount string
	Lodging        *Lodging
	RateID         string // currency_conversion.id: a looked-up DCC rate (dcc.go)
	Version        string
	Idempotency    Idempotency
}

// Lodging is the lodging data of an incremental authorization, kept on the
// transaction as sent.
type Lodging struct {
	BookingReference string        `json:"booking_reference,omitempty"`
	DurationDays     int           `json:"duration_days,omitempty"`
	CheckedIn        string        `json:"date_checked_in,omitempty"`
	CheckedOut       string        `json:"date_checked_out,omitempty"`
	DailyRateAmount  string        `json:"daily_rate_amount,omitempty"`
	ChargeItems      []LodgingItem `json:"charge_items,omitempty"`
}

// LodgingItem is one charge item of lodging data.
type LodgingItem struct {
	Types        []string `json:"types,omitempty"`
	Reference    string   `json:"reference,omitempty"`
	TotalAmount  string   `json:"total_amount,omitempty"`
	ProgramCodes []string `json:"payment_method_program_codes,omitempty"`
}

// ChangeTransaction runs one lifecycle operation on a transaction in one store
// transaction: it reads the transaction, checks the state table, and writes the
// result (the changed transaction, or a new one for refunds and reauthorizations).
func (s *Service) ChangeTransaction(c Caller, req LifecycleRequest) (Transaction, error) {
	v, _, err := execute(s, c, req.Idempotency, "transaction", func(tx Tx, now time.Time) (string, Transaction, error) {
		t, err := s.changeTransaction(tx, c, req, now)
		return t.ID, t, err
	})
	return v, err
}

// changeTransaction runs a lifecycle operation inside a store transaction and returns
// the transaction to answer with: the one code path of a capture, refund or reversal,
// whether an API request or a terminal asked for it.
func (s *Service) changeTransaction(tx Tx, c Caller, req LifecycleRequest, now time.Time) (Transaction, error) {
	t, err := visible(c, req.MerchantID, req.TransactionID, tx.Transaction, NotFoundTransaction)
	if err != nil {
		return Transaction{}, err
	}
	if req.Operation == OpIncremental && req.Amount == "" {
		return Transaction{}, MissingFields("[amount]")
	}
	if err := s.refreshBatch(tx, &t, now); err != nil {
		return Transaction{}, err
	}
	if err := allows(req.Operation, t); err != nil {
		return Transaction{}, err
	}
	out, err := s.apply(tx, c, req, t, now)
	if err != nil {
		return Transaction{}, err
	}
	answer := &out[len(out)-1]
	if req.RateID != "" {
		if answer.CurrencyConversion, err = convertWithRate(tx, c, req.MerchantID, req.RateID, answer.Amount); err != nil {
			return Transaction{}, err
		}
	}
	for _, w := range out {
		if err := tx.PutTransaction(w); err != nil {
			return Transaction{}, err
		}
	}
	return out[len(out)-1], nil
}

// apply performs an allowed operation and returns the transactions to write, the one
// to answer with last.
func (s *Service) apply(tx Tx, c Caller, req LifecycleRequest, t Transaction, now time.Time) ([]Transaction, error) {
	switch req.Operation {
	case OpCapture:
		return s.capture(tx, c, req, t, now)
	case OpRefund:
		return s.refund(tx, c, req, t, now)
	case OpReversal:
		return s.reverse(tx, c, req, t, now)
	case OpReauthorization:
		return s.reauthorize(tx, c, req, t, now)
	default:
		return s.increment(c, req, t, now)
	}
}

// CaptureAuthcodeCNP is the authcode of a card-not-present capture (the .NET SDK's
// GpApiCreditCardNotPresentTest.CreditAuthorization) [GP].
const CaptureAuthcodeCNP = "000000"

// capture settles an authorization for its amount or the one asked: at most 115% of
// the authorized amount (all captures together for MULTIPLE), never zero [GP].
func (s *Service) capture(tx Tx, c Caller, req LifecycleRequest, t Transaction, now time.Time) ([]Transaction, error) {
	authorized := authorizedAmount(t)
	amount := amountOr(req.Amount, authorized)
	captured := amount
	if t.CaptureMode == CaptureMultiple && t.Status == StatusCaptured {
		captured = add(t.CapturedAmount, amount)
	}
	switch {
	case isZero(amount):
		return nil, AmountInsufficient()
	case overLimit(captured, authorized):
		return nil, CaptureOverLimit()
	}
	t.Status, t.Amount, t.CapturedAmount = StatusCaptured, captured, captured
	if req.GratuityAmount != "" {
		t.GratuityAmount = NormalizeAmount(req.GratuityAmount)
	}
	t.Action = s.newAction(c, ActionCapture, now)
	if t.Channel == ChannelCNP {
		t.PaymentMethod.Card.Authcode = CaptureAuthcodeCNP
	}
	if t.BatchID == "" {
		if err := s.joinBatch(tx, &t, now); err != nil {
			return nil, err
		}
	}
	return []Transaction{t}, nil
}

// refund pays back a captured sale, fully by default: all refunds together at most
// 115% of the sale [GP]. The refund is a new transaction, joining the open batch.
func (s *Service) refund(tx Tx, c Caller, req LifecycleRequest, t Transaction, now time.Time) ([]Transaction, error) {
	amount := amountOr(req.Amount, t.Amount)
	total := add(t.RefundedAmount, amount)
	switch {
	case isZero(amount):
		return nil, AmountInsufficient()
	case overLimit(total, t.Amount):
		return nil, RefundOverLimit()
	}
	t.RefundedAmount = total
	r := s.child(c, t, TypeRefund, StatusCaptured, amount, "REFUND", now)
	if err := s.joinBatch(tx, &r, now); err != nil {
		return nil, err
	}
	return []Transaction{t, r}, nil
}

// reverse voids a transaction for its whole amount. An amount less than the
// transaction's is a partial reversal: card-not-present GP refuses it [GP], card
// present it keeps the transaction in its status for the rest [GP] (partialReverse).
// A reversed refund no longer counts against its sale's refund limit.
func (s *Service) reverse(tx Tx, c Caller, req LifecycleRequest, t Transaction, now time.Time) ([]Transaction, error) {
	if req.Amount != "" && NormalizeAmount(req.Amount) != NormalizeAmount(t.Amount) {
		return s.partialReverse(tx, c, NormalizeAmount(req.Amount), t, now)
	}
	out, err := refundCap(tx, t, "0")
	if err != nil {
		return nil, err
	}
	t.ReversedStatus, t.Status = t.Status, StatusReversed
	t.Action = s.newAction(c, ActionReverse, now)
	return append(out, t), nil
}

// partialReverse gives back part of a card-present transaction: it keeps its status
// (CAPTURED, or PREAUTHORIZED) for the rest of its amount [GP]. GP's card-not-present
// channel supports no partial reversal [GP], and a card-present amount of zero or
// above the transaction's is refused as there [SB]. A partly reversed refund counts
// for the rest against its sale's refund limit.
func (s *Service) partialReverse(tx Tx, c Caller, amount string, t Transaction, now time.Time) ([]Transaction, error) {
	if t.Channel != ChannelCP || isZero(amount) || bigAmount(amount).Cmp(bigAmount(t.Amount)) > 0 {
		return nil, PartialReversal()
	}
	rest := sub(t.Amount, amount)
	out, err := refundCap(tx, t, rest)
	if err != nil {
		return nil, err
	}
	t.Amount = rest
	if t.AuthorizationAmount != "" {
		t.AuthorizationAmount = sub(t.AuthorizationAmount, amount)
	}
	if t.CapturedAmount != "" {
		t.CapturedAmount = rest
	}
	t.Action = s.newAction(c, ActionReverse, now)
	return append(out, t), nil
}

// reauthorize authorizes a reversed transaction again, as a new transaction with the
// status the reversal ended (CAPTURED or PREAUTHORIZED) and the amount asked or the
// original [GP], at most 115% of the original, as a capture [SB]. The original
// remembers it: it is reauthorized once.
func (s *Service) reauthorize(tx Tx, c Caller, req LifecycleRequest, t Transaction, now time.Time) ([]Transaction, error) {
	amount := amountOr(req.Amount, t.Amount)
	if overLimit(amount, t.Amount) {
		return nil, ReauthorizationOverLimit()
	}
	status := orDefault(t.ReversedStatus, StatusCaptured)
	n := s.child(c, t, t.Type, status, amount, ActionReauthorization, now)
	n.CaptureMode = t.CaptureMode
	n.PaymentMethod.Card.Authcode = ReauthorizationAuthcode
	if status == StatusCaptured {
		if err := s.joinBatch(tx, &n, now); err != nil {
			return nil, err
		}
	}
	t.ReauthorizedBy = n.ID
	return []Transaction{t, n}, nil
}

// hasRefunds reports whether refunds of t that are not reversed remain.
func hasRefunds(t Transaction) bool {
	return t.RefundedAmount != "" && !isZero(t.RefundedAmount)
}

// refundCap checks that t may take amount as its amount under the refund limit: a
// sale's live refunds stay within 115% of it, and a refund's new amount (zero when it
// is reversed) keeps its sale's refunds within that limit. For a refund it returns
// the sale with its refunded total moved, to be written in the same transaction; a
// standalone refund, or one whose sale is gone, has no limit to keep.
func refundCap(tx Tx, t Transaction, amount string) ([]Transaction, error) {
	if t.Type != TypeRefund {
		if overLimit(t.RefundedAmount, amount) {
			return nil, RefundOverLimit()
		}
		return nil, nil
	}
	if t.ParentID == "" {
		return nil, nil
	}
	sale, err := tx.Transaction(t.ParentID)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	sale.RefundedAmount = add(sub(sale.RefundedAmount, t.Amount), amount)
	if overLimit(sale.RefundedAmount, sale.Amount) {
		return nil, RefundOverLimit()
	}
	return []Transaction{sale}, nil
}

// increment raises the authorized amount of a PREAUTHORIZED transaction; zero is
// accepted and changes nothing [GP].
func (s *Service) increment(c Caller, req LifecycleRequest, t Transaction, now time.Time) ([]Transaction, error) {
	t.Amount = add(t.Amount, NormalizeAmount(req.Amount))
	t.AuthorizationAmount = t.Amount
	if req.Lodging != nil {
		t.Lodging = req.Lodging
	}
	t.Action = s.newAction(c, ActionIncrement, now)
	return []Transaction{t}, nil
}

// child makes a new transaction from t: a refund of it or its reauthorization.
func (s *Service) child(c Caller, t Transaction, typ, status, amount, action string, now time.Time) Transaction {
	n := t
	n.ID, n.ParentID, n.TimeCreated = "TRN_"+s.ids.Alphanumeric(30), t.ID, now
	n.Type, n.Status, n.Amount, n.AuthorizationAmount = typ, status, amount, amount
	n.GratuityAmount, n.RefundedAmount, n.CapturedAmount, n.ReversedStatus, n.ReauthorizedBy = "", "", "", "", ""
	n.ExtraAmounts = ExtraAmounts{} // the cash went out with the payment, not again with its refund or reauthorization [SB]
	n.BatchID, n.BatchClosed, n.AdjustmentCount, n.EMVTag, n.Scenarios, n.Lodging = "", false, 0, "", nil, nil
	n.CaptureMode, n.AuthorizationMode = CaptureAuto, ""
	n.AppID = c.App.ID
	n.PaymentMethod.Result, n.PaymentMethod.Message = "00", "SUCCESS"
	n.PaymentMethod.Card.Authcode = s.ids.Alphanumeric(6)
	n.PaymentMethod.Card.BrandReference = s.ids.Alphanumeric(15)
	n.PaymentMethod.Card.BrandTimeCreated = FormatTime(now)
	n.PaymentMethod.Card.TagResponse, n.PaymentMethod.Card.CVVResult = "", ""
	n.PaymentMethod.Card.AVSAddressResult, n.PaymentMethod.Card.AVSPostalResult, n.PaymentMethod.Card.Provider = "", "", nil
	n.Action = s.newAction(c, action, now)
	return n
}

// refreshBatch marks t as in a closed batch when its batch was closed, on request or
// by its merchant's daily close time. The batch is read every time: a transaction's
// own flag is not enough to go by (a transaction can name a batch that lists it not,
// or another merchant's batch).
func (s *Service) refreshBatch(tx Tx, t *Transaction, now time.Time) error {
	if t.BatchID == "" || t.BatchClosed {
		return nil
	}
	b, err := tx.Batch(t.BatchID)
	if errors.Is(err, ErrNotFound) {
		return nil // a fixture's batch the sandbox never opened: open
	} else if err != nil {
		return err
	}
	closed, err := s.closeIfDue(tx, &b, now)
	t.BatchClosed = closed
	return err
}

func authorizedAmount(t Transaction) string { return orDefault(t.AuthorizationAmount, t.Amount) }

func amountOr(asked, dflt string) string {
	if asked == "" {
		return NormalizeAmount(dflt)
	}
	return NormalizeAmount(asked)
}

func isZero(amount string) bool { return NormalizeAmount(amount) == "0" }

// bigAmount reads an amount in minor units; anything else reads as zero.
func bigAmount(s string) *big.Int {
	n, ok := new(big.Int).SetString(NormalizeAmount(s), 10)
	if !ok {
		return new(big.Int)
	}
	return n
}

func add(a, b string) string { return new(big.Int).Add(bigAmount(a), bigAmount(b)).String() }

func sub(a, b string) string { return new(big.Int).Sub(bigAmount(a), bigAmount(b)).String() }

// overLimit reports whether amount exceeds 115% of base: amount*100 > base*115.
func overLimit(amount, base string) bool {
	lhs := new(big.Int).Mul(bigAmount(amount), big.NewInt(100))
	rhs := new(big.Int).Mul(bigAmount(base), big.NewInt(115))
	return lhs.Cmp(rhs) > 0
}
