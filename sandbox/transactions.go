package sandbox

import (
	"slices"
	"time"
)

// The card-present operations, named as scenarios and the apps' live configuration
// name them.
const (
	OpTransaction       Operation = "transaction"        // POST /transactions
	OpTransactionDetail Operation = "transaction_detail" // GET /transactions/{id}
	OpTransactionList   Operation = "transaction_list"   // GET /transactions
	OpCapture           Operation = "capture"
	OpRefund            Operation = "refund"
	OpReversal          Operation = "reversal"
	OpReauthorization   Operation = "reauthorization"
	OpIncremental       Operation = "incremental"
	OpVerification      Operation = "verification"
	OpBatchClose        Operation = "batch_close"
)

// CardPresentOperations lists the operations an app's live configuration can allow.
var CardPresentOperations = []Operation{
	OpTransaction, OpTransactionDetail, OpTransactionList, OpCapture, OpRefund, OpReversal,
	OpReauthorization, OpIncremental, OpVerification, OpBatchClose, OpDevice,
}

// operationPermissions is the token permission each card-present operation needs.
// GP names the permissions; which one guards reauthorization, incremental,
// verification and the batch close is ours [SB].
var operationPermissions = map[Operation]string{
	OpTransaction:       PermAuthorize,
	OpTransactionDetail: PermGetSingle,
	OpTransactionList:   PermGetList,
	OpCapture:           PermCapture,
	OpRefund:            PermRefund,
	OpReversal:          PermReverse,
	OpReauthorization:   PermAuthorize,
	OpIncremental:       PermAuthorize,
	OpVerification:      PermAuthorize,
	OpBatchClose:        PermCapture,
	OpDevice:            PermAuthorize, // a terminal command may take a payment [SB]
}

// authorizeCardPresent checks a card-present operation: the token must carry its
// permission and the app's live configuration must allow it. Other operations pass.
func authorizeCardPresent(c Caller, op Operation) error {
	perm, ok := operationPermissions[op]
	if !ok {
		return nil
	}
	allowed := c.App.Live.Operations == nil || slices.Contains(c.App.Live.Operations, string(op))
	if c.Token.Has(perm) && allowed {
		return nil
	}
	return PermissionDenied()
}

// TransactionRequest is a validated POST /transactions (or /verifications) body.
type TransactionRequest struct {
	MerchantID     string // the partner path's merchant; else the app's own
	AccountID      string
	AccountName    string
	Channel        string
	Type           string // SALE or REFUND
	CaptureMode    string // AUTO, LATER or MULTIPLE
	Amount         string
	Currency       string
	Country        string
	Reference      string
	GratuityAmount string
	Card           CardInput
	IssuerResult   string // a scenario's scripted issuer result ("00" approves); "" for the card's own
	Version        string
	Idempotency    Idempotency
}

// CreateTransaction takes a payment: a sale (capture_mode AUTO, CAPTURED), an
// authorization (LATER or MULTIPLE, PREAUTHORIZED) or a standalone refund. The
// issuer's answer comes from the card, or from a scenario (see decideCard); a decline
// is stored and answered like an approval, with status DECLINED.
func (s *Service) CreateTransaction(c Caller, req TransactionRequest) (Transaction, error) {
	action := actionSale
	switch {
	case req.Type == TypeRefund:
		action = actionRefund
	case req.CaptureMode == CaptureLater || req.CaptureMode == CaptureMultiple:
		action = actionAuthorize
	}
	v, _, err := execute(s, c, req.Idempotency, "transaction", func(tx Tx, now time.Time) (string, Transaction, error) {
		t, err := s.takePayment(tx, c, req, action, now)
		return t.ID, t, err
	})
	return v, err
}

// takePayment makes and stores a transaction inside a store transaction: the one
// code path of a payment, whether an API request or a terminal asked for it.
func (s *Service) takePayment(tx Tx, c Caller, req TransactionRequest, action cardAction, now time.Time) (Transaction, error) {
	t, err := s.newTransaction(tx, c, req, action, now)
	if err != nil {
		return Transaction{}, err
	}
	if t.Status == StatusCaptured {
		if err := s.joinBatch(tx, &t, now); err != nil {
			return Transaction{}, err
		}
	}
	return t, tx.PutTransaction(t)
}

// Verify checks a card without moving funds: VERIFIED, or DECLINED.
func (s *Service) Verify(c Caller, req TransactionRequest) (Transaction, error) {
	v, _, err := execute(s, c, req.Idempotency, "transaction", func(tx Tx, now time.Time) (string, Transaction, error) {
		t, err := s.takePayment(tx, c, req, actionVerify, now)
		return t.ID, t, err
	})
	return v, err
}

// newTransaction builds a transaction from a request: its merchant and account, the
// issuer's answer, the card as the sandbox keeps it.
func (s *Service) newTransaction(tx Tx, c Caller, req TransactionRequest, action cardAction, now time.Time) (Transaction, error) {
	m, acct, err := s.transactionAccount(tx, c, req)
	if err != nil {
		return Transaction{}, err
	}
	card, o, err := decideCard(action, req.Card, req.Amount, req.IssuerResult, now)
	if err != nil {
		return Transaction{}, err
	}
	t := Transaction{
		ID: "TRN_" + s.ids.Alphanumeric(30), MerchantID: m.ID, MerchantName: m.Name, TimeCreated: now,
		Type: TypeSale, Status: statusOf(action, o), Channel: req.Channel, CaptureMode: req.CaptureMode,
		Amount: NormalizeAmount(req.Amount), Currency: req.Currency, Country: req.Country,
		Reference: MaskCardData(req.Reference), AccountID: acct.ID, AccountName: acct.Name, AppID: c.App.ID,
		GratuityAmount: NormalizeAmount(req.GratuityAmount), Card: card.stored(req.Card.Funding),
	}
	if action == actionRefund {
		t.Type = TypeRefund
	}
	if action == actionVerify {
		t.Amount, t.CaptureMode = "0", ""
	}
	if t.Amount == "" {
		t.Amount = "0"
	}
	t.AuthorizationAmount = t.Amount
	t.PaymentMethod = s.paymentResult(req.Card, t.Card, o, now)
	t.Action = s.newAction(c, actionType(action), now)
	if !o.approved {
		t.Action.ResultCode = StatusDeclined
		if action == actionVerify {
			t.Action.ResultCode = StatusNotVerified
		}
	}
	return t, nil
}

func statusOf(action cardAction, o outcome) string {
	switch {
	case !o.approved && action == actionVerify:
		return StatusNotVerified
	case !o.approved:
		return StatusDeclined
	case action == actionAuthorize:
		return StatusPreauthorized
	case action == actionVerify:
		return StatusVerified
	}
	return StatusCaptured
}

func actionType(action cardAction) string {
	switch action {
	case actionAuthorize:
		return "AUTHORIZE"
	case actionRefund:
		return "REFUND"
	case actionVerify:
		return "VERIFY"
	}
	return "SALE"
}

// paymentResult is payment_method of the response: the issuer's answer and the card
// as GP shows it. A decline has an empty authcode [GP].
func (s *Service) paymentResult(in CardInput, card StoredCard, o outcome, now time.Time) PaymentResult {
	pr := PaymentResult{
		Result: o.result, Message: o.message, EntryMode: in.EntryMode,
		Card: CardResult{
			Brand: card.Brand, MaskedNumberLast4: card.MaskedLast4(), TagResponse: tagResponse(in, o),
			CVVResult: o.cvvResult, Funding: card.Funding,
		},
	}
	if o.approved {
		pr.Card.Authcode = in.Authcode
		if pr.Card.Authcode == "" {
			pr.Card.Authcode = s.ids.Alphanumeric(6)
		}
		pr.Card.BrandReference = s.ids.Alphanumeric(15)
		pr.Card.BrandTimeCreated = FormatTime(now)
	}
	return pr
}

// transactionAccount finds the merchant a transaction is for and the app's
// transaction-processing account it goes through. The merchant is the partner path's
// or the app's own; the account is the one the request names (by id or name), else
// the app's first transaction_processing account. An account or merchant the app
// does not hold is GP's 40041.
func (s *Service) transactionAccount(tx Tx, c Caller, req TransactionRequest) (Merchant, Account, error) {
	merchantID := req.MerchantID
	if merchantID == "" {
		merchantID = c.App.MerchantID
	}
	var acct Account
	found := false
	for _, a := range c.App.Accounts {
		if !hasPermission(a, PermAuthorize) {
			continue
		}
		if (req.AccountID == "" || a.ID == req.AccountID) && (req.AccountName == "" || a.Name == req.AccountName) {
			acct, found = a, true
			break
		}
	}
	notConfigured := MerchantNotConfigured(orDefault(req.AccountID, req.AccountName, accountFor(c.App, PermAuthorize)), merchantID)
	if !found || !c.App.ActsFor(merchantID) {
		return Merchant{}, Account{}, notConfigured
	}
	m, err := tx.Merchant(merchantID)
	if err != nil {
		return Merchant{}, Account{}, notFoundAs(err, notConfigured)
	}
	return m, acct, nil
}

func hasPermission(a Account, perm string) bool { return slices.Contains(a.Permissions, perm) }

func orDefault(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}
