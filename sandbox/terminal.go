package sandbox

import (
	"errors"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox/carddata"
)

// The simulated UPA terminal: what it does with each command. Card commands take a
// payment through takePayment, chained ones (completion, void, linked refund, tip
// adjust) change the original through changeTransaction and adjustTransaction, and
// end of day closes the batch with the batch close's own settle.

// Terminal outcomes a scenario (or the inspector) can choose for a card command [SB].
const (
	OutcomeCustomerCancels = "customer_cancels"
	OutcomeTerminalTimeout = "terminal_timeout"
	OutcomeTerminalBusy    = "terminal_busy"
	OutcomeHostDecline     = "host_decline"

	// PINWrong is a presentation's pin when the customer keys a wrong PIN: the issuer
	// declines with 55, incorrect PIN, as GP's chip test card with a PIN block is.
	PINWrong = "wrong"
)

// Presentation is who taps what on the terminal: the card presented, how, a tip the
// customer adds on screen, or an outcome without a card read. The zero value is the
// terminal's default card, answered at once.
type Presentation struct {
	Card      string `json:"card,omitempty"`       // a terminal test card name or a card number
	EntryMode string `json:"entry_mode,omitempty"` // CHIP, SWIPE, CONTACTLESS_CHIP, MANUAL
	Tip       string `json:"tip,omitempty"`        // minor units
	PIN       string `json:"pin,omitempty"`        // PINWrong, or "" for no PIN or the right one
	Outcome   string `json:"outcome,omitempty"`
	Result    string `json:"result,omitempty"` // with OutcomeHostDecline: the host's decline code; "" is 05
}

func (p Presentation) isZero() bool { return p == Presentation{} }

// kept is the presentation as a device request keeps it once its command has run: a
// card number keyed in masked to its first six and last four digits, a test card's
// name as it is.
func (p Presentation) kept() Presentation {
	if !KnownTerminalCard(p.Card) {
		p.Card = carddata.MaskNumber(p.Card)
	}
	return p
}

// visaTrack is GP's approved Visa test track.
const visaTrack = "%B4012002000060016^VI TEST CREDIT^251210118039000000000396?;4012002000060016=25121011803939600000?"

// terminalEMV is the EMV data the simulated terminal reads from a chip [SB].
const terminalEMV = "9F4005F000F0A0019F02060000000025009F03060000000000009F26089F7E2B5B3D3E4F11"

// terminalCards are the test cards the simulated terminal can read, by name [SB]:
// GP's own test values, presented the way a terminal reads them.
var terminalCards = map[string]CardInput{
	"visa_chip":             {EntryMode: "CHIP", Track: visaTrack, Tag: terminalEMV},
	"visa_contactless":      {EntryMode: "CONTACTLESS_CHIP", Track: visaTrack, Tag: terminalEMV},
	"visa_swipe":            {EntryMode: "SWIPE", Track: visaTrack},
	"visa_chip_pin_decline": {EntryMode: "CHIP", Track: visaTrack, Tag: terminalEMV, PINBlock: DeclinedPINBlock},
	"expired_swipe":         {EntryMode: "SWIPE", Track: ";4024720012345671=18125025432198712345?"},
	"mastercard_manual":     {EntryMode: "MANUAL", Number: "5425230000004415", ExpiryMonth: "12", ExpiryYear: "49"},
	"amex_manual":           {EntryMode: "MANUAL", Number: "374101000000608", ExpiryMonth: "12", ExpiryYear: "49"},
}

// DefaultTerminalCard is the card a terminal reads when nobody chooses one.
const DefaultTerminalCard = "visa_chip"

// TerminalCardNames lists the terminal test cards by name.
func TerminalCardNames() []string {
	return []string{"visa_chip", "visa_contactless", "visa_swipe", "visa_chip_pin_decline", "expired_swipe", "mastercard_manual", "amex_manual"}
}

// KnownTerminalCard reports whether name is a terminal test card. A terminal's default
// card and a scenario's choice are kept until a command runs, so they name a test
// card; a card number is never kept.
func KnownTerminalCard(name string) bool {
	_, ok := terminalCards[name]
	return ok
}

// PresentableCard reports whether card can be presented to a waiting command now: a
// terminal test card, or a card number the terminal keys in (read at once, then kept
// masked).
func PresentableCard(card string) bool {
	return KnownTerminalCard(card) || (AllDigits(card) && len(card) >= 12 && len(card) <= 19)
}

// presentedCard is the card input of a presentation: a named card, or a number keyed
// in with an expiry that has not passed.
func presentedCard(dev Device, p Presentation) CardInput {
	name := orDefault(p.Card, dev.Card, DefaultTerminalCard)
	in, ok := terminalCards[name]
	if !ok {
		in = CardInput{EntryMode: "MANUAL", Number: name, ExpiryMonth: "12", ExpiryYear: "49"}
	}
	if p.EntryMode != "" {
		in.EntryMode = p.EntryMode
	}
	return in
}

// UPAResponse is the terminal's answer to a command, before its wire form. Result
// is Failed when the terminal could not carry the command out; a command the host
// refused completed, with Result Success and the refusal in ErrorCode and
// ErrorMessage (refused).
type UPAResponse struct {
	Result        string      `json:"result"` // Success or Failed
	ErrorCode     string      `json:"error_code,omitempty"`
	ErrorMessage  string      `json:"error_message,omitempty"`
	TransactionID string      `json:"transaction_id,omitempty"` // the transaction made or acted on
	Host          *UPAHost    `json:"host,omitempty"`
	Payment       *UPAPayment `json:"payment,omitempty"`
	Batch         *UPABatch   `json:"batch,omitempty"`  // end of day, the last one and the batch reports
	Report        *UPAReport  `json:"report,omitempty"` // what a command that moves no money reports
}

// Declined reports whether the device request of r is DECLINED: the terminal failed
// or the host refused.
func (r UPAResponse) Declined() bool { return r.Result != "Success" || r.ErrorCode != "" }

// UPAHost is the host block of a UPA answer. Amounts are in minor units.
type UPAHost struct {
	TranNo           string `json:"tran_no,omitempty"`
	ReferenceNumber  string `json:"reference_number,omitempty"`
	ResponseCode     string `json:"response_code"`
	ResponseText     string `json:"response_text"`
	ApprovalCode     string `json:"approval_code,omitempty"`
	BaseAmount       string `json:"base_amount,omitempty"`
	TipAmount        string `json:"tip_amount,omitempty"`
	TotalAmount      string `json:"total_amount,omitempty"`
	AuthorizedAmount string `json:"authorized_amount,omitempty"`
	BatchID          string `json:"batch_id,omitempty"`
	RespDateTime     string `json:"resp_date_time,omitempty"`
}

// UPAPayment is the payment block: the card as the terminal read it.
type UPAPayment struct {
	CardType        string `json:"card_type"`
	MaskedPan       string `json:"masked_pan"`
	CardAcquisition string `json:"card_acquisition"`
	TransactionType string `json:"transaction_type"`
}

// UPABatch is a batch as end of day and the batch reports show it. Amounts are in
// minor units.
type UPABatch struct {
	BatchID       string           `json:"batch_id"`
	Status        string           `json:"status"`
	Count         int              `json:"count"`
	TotalAmount   string           `json:"total_amount"`
	Opened        string           `json:"opened,omitempty"`
	Closed        string           `json:"closed,omitempty"`
	OpenedBy      string           `json:"opened_by,omitempty"` // the batch's first transaction
	Brands        []BrandTotals    `json:"brands,omitempty"`
	Records       []UPABatchRecord `json:"records,omitempty"` // GetBatchDetails: each transaction
	RecordsAsked  bool             `json:"records_asked,omitempty"`
	TotalGratuity string           `json:"total_gratuity,omitempty"`
}

// UPABatchRecord is one transaction of a batch as GetBatchDetails lists it.
type UPABatchRecord struct {
	TransactionID    string `json:"transaction_id"`
	Type             string `json:"type"` // UPA's name: Sale, PreAuth, Refund, CardVerify
	Status           string `json:"status"`
	Amount           string `json:"amount"`
	AuthorizedAmount string `json:"authorized_amount"`
	TipAmount        string `json:"tip_amount"`
	ApprovalCode     string `json:"approval_code,omitempty"`
	CardType         string `json:"card_type"`
	MaskedPan        string `json:"masked_pan"`
	CardAcquisition  string `json:"card_acquisition"`
	ResponseCode     string `json:"response_code"`
	Time             string `json:"time"`
}

// Terminal error codes [SB] where the SDKs' tests show none; ERR017 and TIP005 are
// GP's.
const (
	errNotSupported = "ERR017" // TRANSACTION CANCELLED  COMMAND NOT SUPPORTED [GP]
	errCancelled    = "ERR018"
	errTimeout      = "ERR019"
	errNoOriginal   = "ERR020"
	errTippable     = "TIP005" // Tippable Amount is cannot be greater than Base Amount [GP]
)

// runTerminal carries out a command on the terminal and completes the device
// request with its answer.
func (s *Service) runTerminal(tx Tx, c Caller, dev *Device, d *DeviceRequest, now time.Time) error {
	r, err := s.terminalAnswer(tx, c, dev, d, now)
	if err != nil {
		return err
	}
	d.Response, d.Status = &r, DeviceRequestComplete
	if r.Declined() {
		d.Status, d.Action.ResultCode = DeviceRequestDeclined, "ERROR"
	}
	d.Action.TimeCreated = FormatTime(now)
	dev.LastRequest = d.ID
	return nil
}

// terminalAnswer is the terminal's answer to a command. A GP error of the payment or
// of the chained operation is the host's refusal, not an HTTP error: the terminal
// took the command and completed it, DECLINED.
func (s *Service) terminalAnswer(tx Tx, c Caller, dev *Device, d *DeviceRequest, now time.Time) (UPAResponse, error) {
	u, p := d.Command, d.Presentation
	switch p.Outcome {
	case OutcomeCustomerCancels:
		return failed(errCancelled, "TRANSACTION CANCELLED BY CUSTOMER"), nil
	case OutcomeTerminalTimeout:
		return failed(errTimeout, "TRANSACTION TIMED OUT"), nil
	}
	var t Transaction
	var err error
	switch u.Command {
	case "EODProcessing":
		return s.endOfDay(tx, c, dev, d, now)
	case "GetLastEOD":
		return lastEndOfDay(tx, dev)
	case "GetBatchReport", "GetBatchDetails":
		return batchReport(tx, dev, d)
	case "AvailableBatches", "FindBatches":
		return availableBatches(tx, dev, d)
	case "GetOpenTabDetails":
		return openTabs(tx, dev)
	case "BalanceInquiry", "StartCardTransaction":
		return cardRead(*dev, p, u.Command), nil
	case "Sale", "PreAuth", "CardVerify", "ForceSale", "MailOrder", "Tokenize", "ProcessCardTransaction":
		if u.TippableAmount != "" && greaterAmount(u.TippableAmount, u.amount()) {
			return failed(errTippable, "Tippable Amount is cannot be greater than Base Amount"), nil
		}
		t, err = s.cardCommand(tx, c, dev, d, now)
	case "Refund":
		if ReadsCard(u) {
			t, err = s.cardCommand(tx, c, dev, d, now)
			break
		}
		t, err = s.chained(tx, c, dev, u, OpRefund, now)
	case "AuthCompletion":
		t, err = s.chained(tx, c, dev, u, OpCapture, now)
	case "Void", "Reversal":
		t, err = s.chained(tx, c, dev, u, OpReversal, now)
	case "DeletePreAuth":
		t, err = s.deletePreAuth(tx, c, dev, u, now)
	case "TipAdjust":
		t, err = s.tipAdjust(tx, c, dev, u, now)
	case "UpdateTaxInfo", "UpdateLodgingDetails":
		return s.originalNoted(tx, dev, u, now)
	default:
		if !IsUPACommand(u.Command) {
			return failed(errNotSupported, "TRANSACTION CANCELLED  COMMAND NOT SUPPORTED"), nil
		}
		return terminalReport(dev, u, now), nil
	}
	if err != nil {
		return hostRefusal(err)
	}
	return s.transactionAnswer(tx, dev, u.Command, t, now)
}

// hostRefusal is the answer to a command whose payment or chained operation GP
// refused: completed, DECLINED, with GP's detailed code and text as the error and the
// host's responseText ERROR, what action.result_code says [SB]. Any other error is
// the store's, and fails the request.
func hostRefusal(err error) (UPAResponse, error) {
	gp, ok := AsError(err)
	if !ok {
		return UPAResponse{}, err
	}
	return refusedByHost(orDefault(gp.Detail, errNoOriginal), gp.Description), nil
}

// refusedByHost is a refusal of the host's own (not an issuer's decline): its code
// and text as the error, host.responseText ERROR [SB].
func refusedByHost(code, message string) UPAResponse {
	r := refused(code, message)
	r.Host = &UPAHost{ResponseCode: code, ResponseText: "ERROR"}
	return r
}

// failed is the terminal's answer when it could not carry a command out: cmdResult
// Failed, which the Java, .NET and PHP SDKs throw on.
func failed(code, message string) UPAResponse {
	return UPAResponse{Result: "Failed", ErrorCode: code, ErrorMessage: message}
}

// refused is the answer to a command the terminal carried out and the host refused:
// cmdResult Success with the refusal as errorCode and errorMessage, which every SDK
// parses without throwing (Java needs errorCode) [SB].
func refused(code, message string) UPAResponse {
	return UPAResponse{Result: "Success", ErrorCode: code, ErrorMessage: message}
}

// cardCommand reads a card and takes the payment the command asks for.
func (s *Service) cardCommand(tx Tx, c Caller, dev *Device, d *DeviceRequest, now time.Time) (Transaction, error) {
	u, p := d.Command, d.Presentation
	req := TransactionRequest{
		MerchantID: d.MerchantID, AccountID: d.AccountID, Channel: ChannelCP, CaptureMode: CaptureAuto,
		Amount: u.amount(), Currency: d.Currency, Country: d.Country, Reference: d.Reference,
		GratuityAmount: orDefault(p.Tip, u.TipAmount), Card: presentedCard(*dev, p),
	}
	switch {
	case p.Outcome == OutcomeHostDecline:
		req.IssuerResult = orDefault(p.Result, "05") // do not honour [GP]
	case p.PIN == PINWrong:
		req.IssuerResult = "55" // incorrect PIN [GP]
	}
	action := actionSale // Sale, ForceSale, MailOrder, ProcessCardTransaction [SB]
	switch u.Command {
	case "PreAuth":
		action, req.CaptureMode = actionAuthorize, CaptureLater
	case "Refund":
		action, req.Type, req.GratuityAmount = actionRefund, TypeRefund, ""
	case "CardVerify", "Tokenize":
		action, req.Amount, req.GratuityAmount = actionVerify, "0", ""
	}
	if action != actionVerify && req.Amount == "" {
		return Transaction{}, MissingFields("request.data.data.transaction.baseAmount")
	}
	return s.takePayment(tx, c, req, action, now)
}

// chained runs a capture, refund or reversal of the transaction a command names.
func (s *Service) chained(tx Tx, c Caller, dev *Device, u UPACommand, op Operation, now time.Time) (Transaction, error) {
	id, err := s.originalOf(tx, dev, u)
	if err != nil {
		return Transaction{}, err
	}
	req := LifecycleRequest{Operation: op, TransactionID: id, Amount: u.amount(), GratuityAmount: u.TipAmount}
	if op == OpReversal {
		req.Amount, req.GratuityAmount = "", ""
	}
	return s.changeTransaction(tx, c, req, now)
}

// deletePreAuth reverses the authorization a command names; any other transaction
// is refused as GP refuses its reversal.
func (s *Service) deletePreAuth(tx Tx, c Caller, dev *Device, u UPACommand, now time.Time) (Transaction, error) {
	id, err := s.originalOf(tx, dev, u)
	if err != nil {
		return Transaction{}, err
	}
	t, err := visible(c, dev.MerchantID, id, tx.Transaction, NotFoundTransaction)
	if err != nil {
		return Transaction{}, err
	}
	if t.Status != StatusPreauthorized {
		return Transaction{}, NotInStatus("Reversal", StatusPreauthorized)
	}
	return s.changeTransaction(tx, c, LifecycleRequest{Operation: OpReversal, TransactionID: id}, now)
}

// tipAdjust sets the tip of the transaction a command names.
func (s *Service) tipAdjust(tx Tx, c Caller, dev *Device, u UPACommand, now time.Time) (Transaction, error) {
	id, err := s.originalOf(tx, dev, u)
	if err != nil {
		return Transaction{}, err
	}
	if u.TipAmount == "" {
		return Transaction{}, MissingFields("request.data.data.transaction.tipAmount")
	}
	return s.adjustTransaction(tx, c, AdjustRequest{TransactionID: id, GratuityAmount: u.TipAmount}, now)
}

// originalOf resolves the transaction a chained command names: by the device request
// id (what the Node SDK feeds back), the transaction id (host.referenceNumber) or the
// terminal's transaction number (host.tranNo).
func (s *Service) originalOf(tx Tx, dev *Device, u UPACommand) (string, error) {
	ref := u.ReferenceNumber
	switch {
	case ref != "" && len(ref) > 4 && ref[:4] == "DRQ_":
		d, err := tx.DeviceRequest(ref)
		if err == nil && d.Response != nil && d.Response.TransactionID != "" {
			return d.Response.TransactionID, nil
		}
	case ref != "" && len(ref) > 4 && ref[:4] == "TRN_":
		return ref, nil
	}
	tranNo := orDefault(u.TranNo, ref)
	if id, err := tx.Meta(tranNoMeta(dev.ID, tranNo)); err == nil && id != "" {
		return id, nil
	} else if err != nil && !errors.Is(err, ErrNotFound) {
		return "", err
	}
	return "", newError(CodeResourceNotFound, errNoOriginal, "TRANSACTION NOT FOUND "+carddata.Mask(orDefault(ref, tranNo)))
}

func tranNoMeta(deviceID, tranNo string) string {
	if n, ok := UPAAmount(tranNo); ok && AllDigits(tranNo) {
		tranNo = tranNoText(atoiDigits(n))
	}
	return "tranno:" + deviceID + ":" + tranNo
}

// transactionAnswer is the terminal's answer about the transaction a command made or
// changed; it numbers the transaction on the terminal.
func (s *Service) transactionAnswer(tx Tx, dev *Device, command string, t Transaction, now time.Time) (UPAResponse, error) {
	dev.TranNo++
	tranNo := tranNoText(dev.TranNo)
	if err := tx.PutMeta(tranNoMeta(dev.ID, tranNo), t.ID); err != nil {
		return UPAResponse{}, err
	}
	approved := t.PaymentMethod.Result == "00"
	r := UPAResponse{Result: "Success", TransactionID: t.ID}

	total := add(t.Amount, t.GratuityAmount)
	if t.Type == TypeRefund {
		total = t.Amount
	}
	r.Host = &UPAHost{
		TranNo: tranNo, ReferenceNumber: t.ID, ResponseCode: t.PaymentMethod.Result,
		ResponseText: "APPROVAL", ApprovalCode: t.PaymentMethod.Card.Authcode,
		BaseAmount: t.Amount, TipAmount: orDefault(t.GratuityAmount, "0"), TotalAmount: total,
		AuthorizedAmount: total, BatchID: batchNumber(t.BatchID), RespDateTime: FormatTime(now),
	}
	if !approved {
		r = refused(t.PaymentMethod.Result, "DECLINED")
		r.TransactionID = t.ID
		r.Host = &UPAHost{TranNo: tranNo, ReferenceNumber: t.ID, ResponseCode: t.PaymentMethod.Result, ResponseText: "DECLINED"}
	}
	r.Payment = &UPAPayment{
		CardType: t.PaymentMethod.Card.Brand, MaskedPan: maskedPan(t.Card),
		CardAcquisition: acquisition(t.PaymentMethod.EntryMode), TransactionType: command,
	}
	return r, nil
}

// maskedPan is the card number as a terminal prints it: first six, last four.
func maskedPan(c StoredCard) string {
	if c.First6 == "" {
		return ""
	}
	return c.First6 + "******" + c.Last4
}

// acquisition names an entry mode as UPA's cardAcquisition does.
func acquisition(entryMode string) string {
	switch entryMode {
	case "CHIP":
		return "Insert"
	case "CONTACTLESS_CHIP", "CONTACTLESS_SWIPE":
		return "Contactless"
	case "SWIPE":
		return "Swipe"
	}
	return "Manual"
}

// terminalOpenBatch returns the id of the open batch a terminal's command acts on,
// "" when there is none: its account's, of the command's country and currency, which
// the terminal's sales are in.
func terminalOpenBatch(tx Tx, dev *Device, d *DeviceRequest) (string, error) {
	return configOpenBatch(tx, dev.MerchantID, dev.AccountID, ChannelCP, d.Country, d.Currency)
}

// endOfDay closes the terminal's open batch, as a batch close does.
func (s *Service) endOfDay(tx Tx, c Caller, dev *Device, d *DeviceRequest, now time.Time) (UPAResponse, error) {
	id, err := terminalOpenBatch(tx, dev, d)
	if err != nil {
		return UPAResponse{}, err
	}
	r := UPAResponse{Result: "Success"}
	if id == "" {
		r.Batch = &UPABatch{BatchID: batchNumber(dev.LastBatchID), Status: BatchStatusClosed, TotalAmount: "0"}
		return r, nil
	}
	b, err := tx.Batch(id)
	if err != nil {
		return UPAResponse{}, err
	}
	if closed, err := s.closeIfDue(tx, &b, now); err != nil {
		return UPAResponse{}, err
	} else if !closed {
		b.Action, b.DeviceID = s.newAction(c, "CLOSE", now), dev.ID
		if err := s.settle(tx, &b, now, "request"); err != nil {
			return UPAResponse{}, err
		}
	}
	dev.LastBatchID = b.ID
	r.TransactionID = ""
	r.Batch = batchSummary(b)
	return r, nil
}

// batchReport reports a batch, GetBatchDetails with each of its transactions: the
// batch asked for by number, else the terminal's open one, else its last closed one.
func batchReport(tx Tx, dev *Device, d *DeviceRequest) (UPAResponse, error) {
	u := d.Command
	id := ""
	if u.Batch != "" {
		id = "BAT_" + u.Batch
	} else if open, err := terminalOpenBatch(tx, dev, d); err != nil {
		return UPAResponse{}, err
	} else {
		id = orDefault(open, dev.LastBatchID)
	}
	b, err := tx.Batch(id)
	if errors.Is(err, ErrNotFound) || id == "" || (err == nil && (b.MerchantID != dev.MerchantID)) {
		return refusedByHost(errNoOriginal, "BATCH NOT FOUND"), nil
	} else if err != nil {
		return UPAResponse{}, err
	}
	u2, err := batchContents(tx, b, u.Command == "GetBatchDetails")
	return UPAResponse{Result: "Success", Batch: u2}, err
}

// batchContents is a batch as the terminal reports it, with its first transaction
// and, when records, each of them. An open batch keeps no totals: they are counted
// as settling it now would; a closed one keeps those it closed with.
func batchContents(tx Tx, b Batch, records bool) (*UPABatch, error) {
	counted := b
	members, err := tally(tx, &counted)
	if err != nil {
		return nil, err
	}
	if b.Status == BatchStatusOpen {
		b = counted
	}
	u := batchSummary(b)
	u.RecordsAsked = records
	var first time.Time
	for _, t := range members {
		if u.OpenedBy == "" || t.TimeCreated.Before(first) {
			u.OpenedBy, first = t.ID, t.TimeCreated
		}
		if records {
			u.Records = append(u.Records, batchRecord(t))
		}
	}
	return u, nil
}

// batchRecord is a transaction as GetBatchDetails lists it.
func batchRecord(t Transaction) UPABatchRecord {
	kind := "Sale"
	switch {
	case t.Type == TypeRefund:
		kind = "Refund"
	case t.Status == StatusVerified:
		kind = "CardVerify"
	case t.CaptureMode == CaptureLater:
		kind = "PreAuth"
	}
	return UPABatchRecord{
		TransactionID: t.ID, Type: kind, Status: t.Status, Amount: t.Amount,
		AuthorizedAmount: add(t.Amount, t.GratuityAmount), TipAmount: orDefault(t.GratuityAmount, "0"),
		ApprovalCode: t.PaymentMethod.Card.Authcode, CardType: t.PaymentMethod.Card.Brand, MaskedPan: maskedPan(t.Card),
		CardAcquisition: acquisition(t.PaymentMethod.EntryMode), ResponseCode: t.PaymentMethod.Result,
		Time: FormatTime(t.TimeCreated),
	}
}

func batchSummary(b Batch) *UPABatch {
	u := &UPABatch{BatchID: batchNumber(b.ID), Status: b.Status, Count: b.Count, TotalAmount: b.Amount,
		Opened: FormatTime(b.TimeCreated), Brands: b.Brands, TotalGratuity: orDefault(b.GratuityAmount, "0")}
	if !b.TimeClosed.IsZero() {
		u.Closed = FormatTime(b.TimeClosed)
	}
	return u
}
