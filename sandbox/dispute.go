package sandbox

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
	"time"
)

// Dispute statuses [GP]. Settlement disputes show their funding instead: FUNDED.
const (
	DisputeWithMerchant = "WITH_MERCHANT"
	DisputeUnderReview  = "UNDER_REVIEW"
	DisputeClosed       = "CLOSED"
)

// Dispute stages [GP].
const (
	StageRetrieval      = "RETRIEVAL"
	StageChargeback     = "CHARGEBACK"
	StageReversal       = "REVERSAL"
	StagePreArbitration = "PRE_ARBITRATION"
	StageArbitration    = "ARBITRATION"
)

// DisputeStages are the stages GP names; DisputeStatuses the statuses a list filters
// by (FUNDED is a settlement dispute's) [GP].
var (
	DisputeStages = []string{StageRetrieval, StageChargeback, StageReversal, "SECOND_CHARGEBACK",
		StagePreArbitration, StageArbitration, "PRE_COMPLIANCE", "COMPLIANCE", "GOODFAITH"}
	DisputeStatuses = []string{DisputeUnderReview, DisputeWithMerchant, DisputeClosed, DepositFunded, "DELAYED"}
)

// The dispute lifecycle on the sandbox clock [SB]: a merchant has respondWindow to
// accept or challenge a stage, the issuer reviewWindow to rule on a challenge.
const (
	respondWindow = 7 * 24 * time.Hour
	reviewWindow  = 7 * 24 * time.Hour
)

// Dispute results [SB]: PENDING while open.
const (
	ResultPending   = "PENDING"
	ResultAccepted  = "ACCEPTED"
	ResultFulfilled = "FULFILLED"
	ResultWon       = "WON"
	ResultLost      = "LOST"
)

// Dispute is a case a cardholder's issuer opened on a transaction. Its stage and
// status move on the sandbox clock (advanceDispute), by the merchant's acceptance or
// challenge, and by the admin API. A chargeback takes its amount from the merchant
// in a deposit, a reversal gives it back: then it is a settlement dispute.
type Dispute struct {
	ID string `json:"id"`
	Holder
	TimeCreated       time.Time         `json:"time_created"`
	Status            string            `json:"status"`
	StatusTime        time.Time         `json:"status_time_created"`
	Stage             string            `json:"stage"`
	StageTime         time.Time         `json:"stage_time_created"`
	Amount            string            `json:"amount"`
	Currency          string            `json:"currency"`
	ReasonCode        string            `json:"reason_code"`
	ReasonDescription string            `json:"reason_description"`
	Result            string            `json:"result"`
	RespondBy         time.Time         `json:"time_to_respond_by,omitzero"`
	Transaction       DisputedPayment   `json:"transaction"`
	Documents         []DisputeDocument `json:"documents,omitempty"`
	DepositID         string            `json:"deposit_id,omitempty"`
	DepositTime       time.Time         `json:"deposit_time_created,omitzero"`
	LastAdjustment    DisputeFunds      `json:"last_adjustment,omitzero"`
	Action            Action            `json:"action"`
	// Frozen disputes answer every action as their stored state says and never change:
	// GP's sandbox keeps its fixed cases so, and the SDKs' tests act on them in any
	// order [SB].
	Frozen bool `json:"frozen,omitempty"`
	// StatusURL, when set, is notified of every change as an order's status_url is,
	// signed with the key of AppID, the app that took the transaction.
	StatusURL string `json:"status_url,omitempty"`
	AppID     string `json:"app_id,omitempty"`
	Notified  int    `json:"notified,omitempty"` // notifications written: numbers the next
}

// DisputedPayment is what a dispute shows of its transaction; the card as masked.
type DisputedPayment struct {
	ID             string    `json:"id,omitempty"`
	TimeCreated    time.Time `json:"time_created"`
	Type           string    `json:"type"`
	Amount         string    `json:"amount"`
	Currency       string    `json:"currency"`
	Reference      string    `json:"reference"`
	Brand          string    `json:"brand"`
	MaskedNumber   string    `json:"masked_number_first6last4"`
	ARN            string    `json:"arn"`
	Authcode       string    `json:"authcode"`
	BrandReference string    `json:"brand_reference"`
}

// DisputeDocument is a document a challenge sent: kept by its hash and size, never
// its bytes.
type DisputeDocument struct {
	ID     string `json:"id"`
	Type   string `json:"type,omitempty"`
	SHA256 string `json:"sha256"`
	Size   int    `json:"size"`
}

// DisputeFunds is the last money a dispute moved: DEBIT takes it from the merchant,
// CREDIT gives it back.
type DisputeFunds struct {
	Amount   string    `json:"amount"`
	Currency string    `json:"currency"`
	Funding  string    `json:"funding"`
	Time     time.Time `json:"time"`
}

func (d Dispute) merchant() string { return d.MerchantID }

// Seen reports whether the dispute was opened by now on the sandbox clock: a test
// card's dispute opens on its deposit's day.
func (d Dispute) Seen(now time.Time) bool { return !now.Before(d.TimeCreated) }

// disputeCards are the sandbox's dispute test cards, by first six and last four: a
// captured sale on one is disputed at the stage named when its deposit is paid. GP
// documents none for the GP API [SB].
var disputeCards = map[string]string{
	"400000" + "0259": StageChargeback,
	"400000" + "1976": StageRetrieval,
}

// DisputeReason is the reason every dispute of a test card gives, and the default of
// the admin API's [SB].
const (
	DisputeReasonCode        = "FRAUD"
	DisputeReasonDescription = "Cardholder does not recognise the transaction"
)

// raiseForTestCard opens a dispute on a sale on a dispute test card, or one a
// scenario's dispute outcome marked, on its deposit's day.
func (s *Service) raiseForTestCard(tx Tx, t Transaction, day time.Time) error {
	stage, ok := disputeCards[t.Card.First6+t.Card.Last4]
	if t.DisputeStage != "" {
		stage, ok = t.DisputeStage, true
	}
	if !ok || t.Type == TypeRefund {
		return nil
	}
	_, err := s.openDispute(tx, t, RaiseDispute{Stage: stage}, day)
	return err
}

// RaiseDispute is the admin API's dispute on a transaction: its stage (RETRIEVAL or
// CHARGEBACK by default), reason and amount (the transaction's by default).
type RaiseDispute struct {
	TransactionID     string
	Stage             string
	ReasonCode        string
	ReasonDescription string
	Amount            string
	StatusURL         string // notified of every change of the dispute
}

// RaiseDispute opens a dispute on a transaction now, for the admin API.
func (s *Service) RaiseDispute(req RaiseDispute) (Dispute, error) {
	var d Dispute
	err := s.store.Update(func(tx Tx) error {
		t, err := tx.Transaction(req.TransactionID)
		if err != nil {
			return notFoundAs(err, NotFoundTransaction(req.TransactionID))
		}
		d, err = s.openDispute(tx, t, req, s.clock.Now())
		return err
	})
	s.wakeNotifier(err)
	return d, err
}

// openDispute writes a new dispute on t at at; a chargeback takes its funds then.
func (s *Service) openDispute(tx Tx, t Transaction, req RaiseDispute, at time.Time) (Dispute, error) {
	d := Dispute{
		ID: "DIS_" + s.ids.Alphanumeric(30), Holder: t.Holder, TimeCreated: at,
		Amount: orDefault(NormalizeAmount(req.Amount), t.Amount), Currency: t.Currency,
		ReasonCode: orDefault(req.ReasonCode, DisputeReasonCode), Result: ResultPending,
		ReasonDescription: orDefault(req.ReasonDescription, DisputeReasonDescription),
		Transaction:       disputedPayment(t), StatusURL: req.StatusURL, AppID: t.AppID,
		Action: Action{ID: "ACT_" + s.ids.Alphanumeric(30), Type: "DISPUTE_SINGLE", TimeCreated: FormatTime(at), ResultCode: "SUCCESS"},
	}
	if err := s.enterStage(tx, &d, orDefault(req.Stage, StageChargeback), at); err != nil {
		return Dispute{}, err
	}
	return d, s.saveDispute(tx, &d, at)
}

func disputedPayment(t Transaction) DisputedPayment {
	return DisputedPayment{
		ID: t.ID, TimeCreated: t.TimeCreated, Type: t.Type, Amount: t.Amount, Currency: t.Currency,
		Reference: t.Reference, Brand: t.Card.Brand, MaskedNumber: t.Card.MaskedFirst6Last4(), ARN: ARNOf(t.ID),
		Authcode: t.PaymentMethod.Card.Authcode, BrandReference: t.PaymentMethod.Card.BrandReference,
	}
}

// enterStage puts the dispute at a stage with the merchant, who has respondWindow to
// answer; a chargeback takes the disputed amount from the merchant's deposit.
func (s *Service) enterStage(tx Tx, d *Dispute, stage string, at time.Time) error {
	d.Stage, d.StageTime = stage, at
	d.setStatus(DisputeWithMerchant, at)
	d.RespondBy = at.Add(respondWindow)
	if stage == StageChargeback {
		return s.moveFunds(tx, d, "DEBIT", at)
	}
	return nil
}

func (d *Dispute) setStatus(status string, at time.Time) { d.Status, d.StatusTime = status, at }

// close ends the dispute with a result; a chargeback won gives its amount back.
func (s *Service) closeDispute(tx Tx, d *Dispute, result string, at time.Time) error {
	d.setStatus(DisputeClosed, at)
	d.Result, d.RespondBy = result, time.Time{}
	if result == ResultWon && d.LastAdjustment.Funding == "DEBIT" {
		d.Stage, d.StageTime = StageReversal, at
		return s.moveFunds(tx, d, "CREDIT", at)
	}
	return nil
}

// moveFunds puts the dispute's amount in its merchant's deposit for at: a DEBIT as a
// chargeback, a CREDIT as a reversal.
func (s *Service) moveFunds(tx Tx, d *Dispute, funding string, at time.Time) error {
	dep, err := s.depositFor(tx, d.Holder, d.Currency, at)
	if err != nil {
		return err
	}
	if funding == "DEBIT" {
		addCount(&dep.Chargebacks, d.Amount)
	} else {
		addCount(&dep.Reversals, d.Amount)
	}
	dep.Disputes = append(dep.Disputes, d.ID)
	d.DepositID, d.DepositTime = dep.ID, dep.TimeCreated
	d.LastAdjustment = DisputeFunds{Amount: d.Amount, Currency: d.Currency, Funding: funding, Time: at}
	return tx.PutDeposit(dep)
}

// nextStage is where the issuer takes a case it does not give up [SB].
var nextStage = map[string]string{
	StageRetrieval: StageChargeback, StageChargeback: StagePreArbitration, StagePreArbitration: StageArbitration,
}

// advanceDispute moves an open dispute along the sandbox clock up to now, one deadline at a
// time [SB]: a retrieval left unanswered becomes a chargeback, any other stage left
// unanswered is lost; a challenge under review is escalated to the next stage with
// the merchant, and one under arbitration is won.
func (s *Service) advanceDispute(tx Tx, d *Dispute, now time.Time) (bool, error) {
	changed := false
	for !d.Frozen && d.Status != DisputeClosed {
		var err error
		switch {
		case d.Status == DisputeWithMerchant && !now.Before(d.RespondBy):
			if next, ok := nextStage[d.Stage]; ok && d.Stage == StageRetrieval {
				err = s.enterStage(tx, d, next, d.RespondBy)
			} else {
				err = s.closeDispute(tx, d, ResultLost, d.RespondBy)
			}
		case d.Status == DisputeUnderReview && !now.Before(d.StatusTime.Add(reviewWindow)):
			at := d.StatusTime.Add(reviewWindow)
			if next, ok := nextStage[d.Stage]; ok && next != StageChargeback {
				err = s.enterStage(tx, d, next, at)
			} else {
				err = s.closeDispute(tx, d, ResultWon, at)
			}
		default:
			return changed, nil
		}
		if err != nil {
			return changed, err
		}
		changed = true
	}
	return changed, nil
}

// currentDispute reads a dispute the caller may see, moved along the sandbox clock
// (and written when it moved); a missing or unseen one is unknown.
func (s *Service) currentDispute(tx Tx, c Caller, merchantID, id string, unknown func(string) *Error) (Dispute, error) {
	now := s.clock.Now()
	d, err := visible(c, merchantID, id, tx.Dispute, unknown)
	if err != nil {
		return d, err
	}
	if !d.Seen(now) {
		return Dispute{}, unknown(id)
	}
	if changed, err := s.advanceDispute(tx, &d, now); err != nil || !changed {
		return d, err
	}
	return d, s.saveDispute(tx, &d, now)
}

// saveDispute writes a dispute that changed, with its notification when it has a
// status_url, in the same store transaction, as an order's change is.
func (s *Service) saveDispute(tx Tx, d *Dispute, now time.Time) error {
	if d.StatusURL != "" {
		key := ""
		if app, err := tx.App(d.AppID); err == nil {
			key = app.Key
		}
		d.Notified++
		sent := *d
		err := tx.PutNotification(Notification{
			OrderID: d.ID, Seq: d.Notified, Dispute: &sent, AppKey: key, URL: d.StatusURL,
			Created: now, State: NotificationPending, Attempts: []DeliveryAttempt{}, NextAttempt: now,
		})
		if err != nil {
			return err
		}
	}
	return tx.PutDispute(*d)
}

// wakeNotifier wakes the notification worker after a dispute action committed: a
// change it made may have written a notification.
func (s *Service) wakeNotifier(err error) {
	if err == nil {
		s.notifyWritten()
	}
}

// GetDispute reads one dispute: GP's 40073 for any the caller cannot see.
func (s *Service) GetDispute(c Caller, merchantID, id string) (Dispute, error) {
	var d Dispute
	err := s.update(c.Rehearsal, func(tx Tx) error {
		var err error
		d, err = s.currentDispute(tx, c, merchantID, id, func(string) *Error { return NotFoundDispute() })
		return err
	})
	s.wakeNotifier(err)
	return d, err
}

// GetSettlementDispute reads a dispute whose funds a deposit moved, once that deposit's
// day has come: any other is GP's 40118 naming the path.
func (s *Service) GetSettlementDispute(c Caller, merchantID, id, path string) (Dispute, error) {
	var d Dispute
	unknown := func(id string) *Error { return NotFoundSettlementDispute(id, path) }
	err := s.update(c.Rehearsal, func(tx Tx) error {
		var err error
		if d, err = s.currentDispute(tx, c, merchantID, id, unknown); err != nil {
			return err
		}
		if d.DepositID == "" || s.clock.Now().Before(d.DepositTime) {
			return unknown(id)
		}
		return nil
	})
	return d, err
}

// DisputeDocumentContent is a document as GET /disputes/{id}/documents/{doc} answers
// it: the sandbox keeps no document's bytes, so its content is a short text naming
// the hash and size it was sent with [SB].
func DisputeDocumentContent(doc DisputeDocument) []byte {
	return []byte("gp-sandbox keeps no document bytes; sha256=" + doc.SHA256 + " size=" + strconv.Itoa(doc.Size) + "\n")
}

// GetDisputeDocument reads one document of a dispute: GP's 40073 for an unknown
// dispute, 40071 for a document it does not hold.
func (s *Service) GetDisputeDocument(c Caller, merchantID, id, docID string) (Dispute, DisputeDocument, error) {
	var d Dispute
	var doc DisputeDocument
	err := s.update(c.Rehearsal, func(tx Tx) error {
		var err error
		if d, err = s.currentDispute(tx, c, merchantID, id, func(string) *Error { return NotFoundDispute() }); err != nil {
			return err
		}
		i := slices.IndexFunc(d.Documents, func(doc DisputeDocument) bool { return doc.ID == docID })
		if i < 0 {
			return NotFoundDisputeDocument() // in the transaction, so that a rehearsal meets it
		}
		doc = d.Documents[i]
		return nil
	})
	s.wakeNotifier(err)
	return d, doc, err
}

// ChallengeDocument is one document a challenge sends: its type and its bytes, which
// only its hash and size outlive.
type ChallengeDocument struct {
	Type    string
	Content []byte
}

// AcceptDispute accepts liability for a dispute with the merchant: it closes [SB].
// Any other dispute, or an unknown one, is GP's 40067.
func (s *Service) AcceptDispute(c Caller, merchantID, id string, idem Idempotency) (Dispute, error) {
	d, _, err := execute(s, c, idem, "dispute", func(tx Tx, now time.Time) (string, Dispute, error) {
		d, err := s.currentDispute(tx, c, merchantID, id, func(string) *Error { return DisputeNotAcceptable() })
		if err != nil {
			return "", d, err
		}
		if d.Status != DisputeWithMerchant {
			return "", d, DisputeNotAcceptable()
		}
		d.Action = s.newAction(c, "DISPUTE_ACCEPTANCE", now)
		if d.Frozen {
			d.setStatus(DisputeClosed, now)
			return d.ID, d, nil
		}
		if err := s.closeDispute(tx, &d, ResultAccepted, now); err != nil {
			return "", d, err
		}
		return d.ID, d, s.saveDispute(tx, &d, now)
	})
	s.wakeNotifier(err)
	return d, err
}

// ChallengeDispute sends documents against a dispute with the merchant: a retrieval
// is fulfilled (closed) by one document, any later stage goes under review [SB].
// No document is GP's 40065, several on a retrieval 40072, a dispute not with the
// merchant (or unknown) 40060.
func (s *Service) ChallengeDispute(c Caller, merchantID, id string, docs []ChallengeDocument, idem Idempotency) (Dispute, error) {
	d, _, err := execute(s, c, idem, "dispute", func(tx Tx, now time.Time) (string, Dispute, error) {
		d, err := s.currentDispute(tx, c, merchantID, id, func(string) *Error { return DisputeNotChallengeable() })
		if err != nil {
			return "", d, err
		}
		switch {
		case d.Status != DisputeWithMerchant:
			return "", d, DisputeNotChallengeable()
		case len(docs) == 0:
			return "", d, NoChallengeDocument()
		case d.Stage == StageRetrieval && len(docs) > 1:
			return "", d, RetrievalSingleDocument()
		}
		d.Action = s.newAction(c, "DISPUTE_CHALLENGE", now)
		for _, doc := range docs {
			sum := sha256.Sum256(doc.Content)
			d.Documents = append(d.Documents, DisputeDocument{
				ID: "DOC_" + s.ids.Alphanumeric(30), Type: doc.Type, SHA256: hex.EncodeToString(sum[:]), Size: len(doc.Content),
			})
		}
		if d.Stage == StageRetrieval {
			err = s.closeDispute(tx, &d, ResultFulfilled, now)
		} else {
			d.setStatus(DisputeUnderReview, now)
			d.RespondBy = time.Time{}
		}
		if err != nil || d.Frozen {
			return d.ID, d, err
		}
		return d.ID, d, s.saveDispute(tx, &d, now)
	})
	s.wakeNotifier(err)
	return d, err
}

// DisputeQuery is GET /disputes and GET /settlement/disputes.
type DisputeQuery struct {
	MerchantID string
	Settlement bool // the settlement list: disputes whose funds a deposit moved
	Paging
	ARN, Brand, Status, Stage string
	DepositID, MID, Hierarchy string
	FromStage, ToStage        time.Time
	FromDeposit, ToDeposit    time.Time
}

// DisputeOrderings are the orders the dispute lists take, as the SDKs send them [GP].
var DisputeOrderings = []string{"id", "arn", "brand", "status", "stage", "from_stage_time_created",
	"to_stage_time_created", "adjustment_funding", "from_adjustment_time_created", "to_adjustment_time_created"}

// DisputePage is one page of disputes.
type DisputePage struct {
	Query    DisputeQuery
	Merchant Merchant
	Account  Account
	Total    int
	Disputes []Dispute
}

// SettlementStatus is the status a settlement dispute shows: its funding's.
func (d Dispute) SettlementStatus() string { return DepositFunded }

func (q DisputeQuery) matches(d Dispute, now time.Time) bool {
	eq := func(want, got string) bool { return want == "" || want == got }
	status := d.Status
	if q.Settlement {
		if d.DepositID == "" || now.Before(d.DepositTime) {
			return false
		}
		status = d.SettlementStatus()
	}
	return eq(q.ARN, d.Transaction.ARN) && eq(q.Brand, d.Transaction.Brand) && eq(q.Status, status) &&
		eq(q.Stage, d.Stage) && eq(q.DepositID, d.DepositID) && eq(q.MID, d.MerchantID) && q.Hierarchy == "" &&
		inDays(d.StageTime, q.FromStage, q.ToStage) &&
		(q.FromDeposit.IsZero() && q.ToDeposit.IsZero() || !d.DepositTime.IsZero() && inDays(d.DepositTime, q.FromDeposit, q.ToDeposit))
}

// ListDisputes answers a page of the disputes the caller may see, each moved along
// the sandbox clock first. On GET /disputes an arn no dispute has is GP's 40048.
func (s *Service) ListDisputes(c Caller, q DisputeQuery) (DisputePage, error) {
	page := DisputePage{Query: q}
	var all []Dispute
	err := s.update(c.Rehearsal, func(tx Tx) error {
		var err error
		if page.Merchant, page.Account, err = listingContext(tx, c, q.MerchantID); err != nil {
			return err
		}
		stored, err := tx.Disputes()
		if err != nil {
			return err
		}
		now := s.clock.Now()
		for _, d := range stored {
			if !c.Sees(d.MerchantID, q.MerchantID) || !d.Seen(now) {
				continue
			}
			if changed, err := s.advanceDispute(tx, &d, now); err != nil {
				return err
			} else if changed {
				if err := s.saveDispute(tx, &d, now); err != nil {
					return err
				}
			}
			if q.matches(d, now) {
				all = append(all, d)
			}
		}
		if len(all) == 0 && q.ARN != "" && !q.Settlement {
			return DisputeARNNotFound() // in the transaction, so that a rehearsal meets it
		}
		return nil
	})
	s.wakeNotifier(err)
	if err != nil {
		return page, err
	}
	page.Total = len(all)
	page.Disputes = sortedPage(all, func(a, b Dispute) int { return compareDisputes(q.OrderBy, a, b) }, q.Paging)
	return page, nil
}

func compareDisputes(orderBy string, a, b Dispute) int {
	var n int
	switch orderBy {
	case "arn":
		n = cmp.Compare(a.Transaction.ARN, b.Transaction.ARN)
	case "brand":
		n = cmp.Compare(a.Transaction.Brand, b.Transaction.Brand)
	case "status":
		n = cmp.Compare(a.Status, b.Status)
	case "stage":
		n = cmp.Compare(a.Stage, b.Stage)
	case "from_stage_time_created", "to_stage_time_created":
		n = a.StageTime.Compare(b.StageTime)
	case "adjustment_funding":
		n = cmp.Compare(a.LastAdjustment.Funding, b.LastAdjustment.Funding)
	case "from_adjustment_time_created", "to_adjustment_time_created":
		n = a.LastAdjustment.Time.Compare(b.LastAdjustment.Time)
	}
	if n == 0 && orderBy != "id" {
		n = a.TimeCreated.Compare(b.TimeCreated)
	}
	return cmp.Or(n, cmp.Compare(a.ID, b.ID))
}

// putSettlementFixtures writes the fixtures' deposits and disputes, completed from
// the records they name: a merchant's name, a settled transaction's batch, a disputed
// transaction's members.
func putSettlementFixtures(tx Tx, f Fixtures) error {
	for _, d := range f.Deposits {
		if m, err := tx.Merchant(d.MerchantID); err == nil {
			d.MerchantName = m.Name
		}
		for i, r := range d.Rows {
			if t, err := tx.Transaction(r.TransactionID); err == nil {
				d.Rows[i].BatchID = t.BatchID
			}
		}
		if err := tx.PutDeposit(d); err != nil {
			return err
		}
	}
	for _, d := range f.Disputes {
		if m, err := tx.Merchant(d.MerchantID); err == nil {
			d.MerchantName = m.Name
		}
		if t, err := tx.Transaction(d.Transaction.ID); err == nil {
			p := disputedPayment(t)
			p.Brand, p.ARN = orDefault(d.Transaction.Brand, p.Brand), orDefault(d.Transaction.ARN, p.ARN)
			d.Transaction = p
			d.AccountID, d.AccountName = t.AccountID, t.AccountName
		}
		if d.DepositID != "" {
			if dep, err := tx.Deposit(d.DepositID); err == nil {
				d.DepositTime = dep.TimeCreated
			}
		}
		if err := tx.PutDispute(d); err != nil {
			return err
		}
	}
	return nil
}
