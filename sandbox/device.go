package sandbox

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Meet in the Cloud: POST /devices sends a UPA command to the card-present terminal
// of the caller's transaction-processing account, and answers what the terminal did.
// The terminal is simulated (terminal.go); a command that takes a card makes a
// transaction through the same code path as POST /transactions.

// OpDevice is POST /devices and its partner form.
const OpDevice Operation = "device"

// deviceCommandOps names, for scenario rules, each UPA command the simulated terminal
// carries out (terminalAnswer): a rule for device.sale applies to Sale only, one for
// device to every command. The journal keeps OpDevice for them all.
var deviceCommandOps = []struct{ op, command string }{
	{"device.sale", "Sale"},
	{"device.preauth", "PreAuth"},
	{"device.capture", "AuthCompletion"},
	{"device.refund", "Refund"},
	{"device.void", "Void"},
	{"device.tip_adjust", "TipAdjust"},
	{"device.verify", "CardVerify"},
	{"device.end_of_day", "EODProcessing"},
	{"device.batch_report", "GetBatchReport"},
	{"device.line_item", "LineItemDisplay"},
	{"device.ping", "Ping"},
	{"device.cancel", "CancelTransaction"},
}

// DeviceCommandOperation is the scenario operation of a UPA command, such as
// device.sale for Sale; "" for a command the terminal does not carry out.
func DeviceCommandOperation(command string) string {
	for _, c := range deviceCommandOps {
		if c.command == command {
			return c.op
		}
	}
	return ""
}

// DeviceCommandOperations lists the device.<command> scenario operations.
func DeviceCommandOperations() []string {
	out := make([]string, len(deviceCommandOps))
	for i, c := range deviceCommandOps {
		out[i] = c.op
	}
	return out
}

// DeviceOperationReadsCard reports whether a device.<command> operation may read a card
// (a refund does when it names no original), so that a scenario may choose the card.
func DeviceOperationReadsCard(op string) bool {
	return slices.Contains([]string{"device.sale", "device.preauth", "device.verify", "device.refund"}, op)
}

// Device statuses and answer modes.
const (
	DeviceActive   = "ACTIVE"
	DeviceInactive = "INACTIVE"

	// DeviceModeComplete answers a command once the terminal is done: the only answer
	// the Java and .NET SDKs can parse. DeviceModeInitiated answers at once, before a
	// card is read; the terminal completes the command later [SB].
	DeviceModeComplete  = "COMPLETE"
	DeviceModeInitiated = "INITIATED"
)

// Device request statuses: what the terminal has done with a command.
const (
	DeviceRequestInitiated = "INITIATED"
	DeviceRequestComplete  = "COMPLETE"
	DeviceRequestDeclined  = "DECLINED" // the terminal answered Failed
)

// Device is a card-present terminal bound to one merchant's transaction-processing
// account: a MiC request names no device, so the account chooses it [SB].
type Device struct {
	ID          string    `json:"id"`
	MerchantID  string    `json:"merchant_id"`
	AccountID   string    `json:"account_id"`
	Model       string    `json:"model,omitempty"`
	Status      string    `json:"status"`
	Mode        string    `json:"mode"`
	Card        string    `json:"card,omitempty"`         // the test card it reads when nobody chooses one; "" the approving Visa chip card
	Pending     string    `json:"pending,omitempty"`      // the INITIATED device request waiting for a card
	LastRequest string    `json:"last_request,omitempty"` // the last device request the terminal answered
	TranNo      int       `json:"tran_no"`                // the terminal's last transaction number
	LastBatchID string    `json:"last_batch_id,omitempty"`
	OrderID     string    `json:"order_id,omitempty"`   // the device order it came from
	ProductID   string    `json:"product_id,omitempty"` // the order's product it is a unit of
	TimeCreated time.Time `json:"time_created"`
}

// UPACommand is the validated UPA command of a MiC request. Amounts are in minor units.
type UPACommand struct {
	Command         string `json:"command"`
	RequestID       string `json:"request_id"`
	EcrID           string `json:"ecr_id,omitempty"`
	BaseAmount      string `json:"base_amount,omitempty"`
	TipAmount       string `json:"tip_amount,omitempty"`
	TaxAmount       string `json:"tax_amount,omitempty"`
	CashBackAmount  string `json:"cash_back_amount,omitempty"`
	TotalAmount     string `json:"total_amount,omitempty"`
	TranNo          string `json:"tran_no,omitempty"`
	ReferenceNumber string `json:"reference_number,omitempty"`
	InvoiceNbr      string `json:"invoice_nbr,omitempty"`
	LineItemLeft    string `json:"line_item_left,omitempty"`
	LineItemRight   string `json:"line_item_right,omitempty"`
	Batch           string `json:"batch,omitempty"`
}

// amount is what a card command asks for: the base amount, else the amount, else the total.
func (u UPACommand) amount() string { return orDefault(u.BaseAmount, u.TotalAmount) }

// DeviceRequest is a MiC request as the sandbox keeps it: the device request resource.
type DeviceRequest struct {
	ID           string       `json:"id"`
	DeviceID     string       `json:"device_id"`
	MerchantID   string       `json:"merchant_id"`
	MerchantName string       `json:"merchant_name"`
	AccountID    string       `json:"account_id"`
	AccountName  string       `json:"account_name"`
	AppID        string       `json:"app_id"`
	Channel      string       `json:"channel"`
	Country      string       `json:"country"`
	Currency     string       `json:"currency"`
	Reference    string       `json:"reference,omitempty"`
	Status       string       `json:"status"`
	TimeCreated  time.Time    `json:"time_created"`
	Action       Action       `json:"action"`
	StatusURL    string       `json:"status_url,omitempty"`
	Command      UPACommand   `json:"command"`
	Presentation Presentation `json:"presentation,omitzero"` // what a scenario chose, kept for an INITIATED command
	Response     *UPAResponse `json:"response,omitempty"`    // nil while INITIATED
}

// DeviceCommandRequest is a validated POST /devices.
type DeviceCommandRequest struct {
	MerchantID   string // the partner path's merchant, else the body's, else the app's
	AccountID    string
	AccountName  string
	Channel      string
	Country      string
	Currency     string
	Reference    string
	StatusURL    string
	Command      UPACommand
	Presentation Presentation // a scenario's choice of who taps what; zero: the terminal's default
	Idempotency  Idempotency
}

// SendDeviceCommand sends a UPA command to the terminal of the caller's account, in
// one store transaction: the device request, the terminal's state and whatever
// transaction the command made or changed commit together.
func (s *Service) SendDeviceCommand(c Caller, req DeviceCommandRequest) (DeviceRequest, error) {
	notified := false
	v, replayed, err := execute(s, c, req.Idempotency, "device_request", func(tx Tx, now time.Time) (string, DeviceRequest, error) {
		d, err := s.sendDeviceCommand(tx, c, req, now)
		if err == nil {
			notified, err = enqueueDeviceNotification(tx, d, c.App.Key, now)
		}
		return d.ID, d, err
	})
	switch {
	case err != nil || replayed:
	case v.Status == DeviceRequestInitiated:
		s.terminalWaiting()
	case notified:
		s.notifyWritten()
	}
	return v, err
}

// OnTerminalWaiting registers fn to be called after a command starts waiting for a
// card, so that the terminal delay wakes at once. Call it before serving.
func (s *Service) OnTerminalWaiting(fn func()) { s.waiting = fn }

func (s *Service) terminalWaiting() {
	if s.waiting != nil {
		s.waiting()
	}
}

func (s *Service) sendDeviceCommand(tx Tx, c Caller, req DeviceCommandRequest, now time.Time) (DeviceRequest, error) {
	if err := checkCommand(req.Command); err != nil {
		return DeviceRequest{}, err
	}
	m, acct, err := s.transactionAccount(tx, c, TransactionRequest{
		MerchantID: req.MerchantID, AccountID: req.AccountID, AccountName: req.AccountName,
	})
	if err != nil {
		return DeviceRequest{}, err
	}
	dev, err := accountDevice(tx, m.ID, acct.ID)
	if err != nil {
		return DeviceRequest{}, err
	}
	if err := checkDeviceIdle(tx, dev, req.Presentation); err != nil {
		return DeviceRequest{}, err
	}
	d := DeviceRequest{
		ID: "DRQ_" + s.ids.Alphanumeric(30), DeviceID: dev.ID, MerchantID: m.ID, MerchantName: m.Name,
		AccountID: acct.ID, AccountName: acct.Name, AppID: c.App.ID, Channel: orDefault(req.Channel, ChannelCP),
		Country: orDefault(req.Country, "US"), Currency: orDefault(req.Currency, "USD"),
		Reference: req.Reference, TimeCreated: now, StatusURL: req.StatusURL,
		Command: req.Command, Presentation: req.Presentation, Status: DeviceRequestInitiated,
		Action: s.newAction(c, "PROCESS_DEVICE_COMMAND", now),
	}
	if dev.Mode == DeviceModeInitiated && takesCard(req.Command) {
		dev.Pending = d.ID
	} else if err := s.runTerminal(tx, c, &dev, &d, now); err != nil {
		return DeviceRequest{}, err
	}
	if err := tx.PutDevice(dev); err != nil {
		return DeviceRequest{}, err
	}
	return d, tx.PutDeviceRequest(d)
}

// checkDeviceIdle refuses a terminal that cannot take a command: inactive, or still
// waiting for a card for an earlier one (or a scenario says it is busy).
func checkDeviceIdle(tx Tx, dev Device, p Presentation) error {
	switch {
	case dev.Status != DeviceActive:
		return DeviceNotActive(dev.ID)
	case p.Outcome == OutcomeTerminalBusy:
		return DeviceBusy(dev.ID, "another command")
	case dev.Pending != "":
		pending, err := tx.DeviceRequest(dev.Pending)
		if err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
		if err == nil && pending.Status == DeviceRequestInitiated {
			return DeviceBusy(dev.ID, pending.ID)
		}
	}
	return nil
}

// accountDevice finds the terminal bound to a merchant's account.
func accountDevice(tx Tx, merchantID, accountID string) (Device, error) {
	d, bound, err := boundDevice(tx, merchantID, accountID)
	if err == nil && !bound {
		err = NoDevice(accountID, merchantID)
	}
	return d, err
}

// CompleteDeviceRequest completes an INITIATED command: a card is presented on the
// terminal (the inspector, the admin API, or the terminal delay running out). The
// zero Presentation presents the terminal's default card.
func (s *Service) CompleteDeviceRequest(id string, p Presentation) (DeviceRequest, error) {
	var d DeviceRequest
	notified := false
	err := s.store.Update(func(tx Tx) error {
		var err error
		if d, err = tx.DeviceRequest(id); err != nil {
			return notFoundAs(err, NotFoundDeviceRequest(id))
		}
		if d.Status != DeviceRequestInitiated {
			return DeviceRequestDone(id, d.Status)
		}
		dev, err := tx.Device(d.DeviceID)
		if err != nil {
			return err
		}
		app, err := tx.App(d.AppID)
		if err != nil {
			return err
		}
		if p.Tip != "" {
			// A tip presented with the card replaces the command's, within its base.
			if err := checkTipAmount(d, p.Tip); err != nil {
				return err
			}
		}
		if !p.isZero() {
			// A tip the customer chose on the tip screen stays, unless p names one.
			p.Tip = orDefault(p.Tip, d.Presentation.Tip)
			d.Presentation = p
		}
		dev.Pending = ""
		now := s.clock.Now()
		if err := s.runTerminal(tx, Caller{App: app}, &dev, &d, now); err != nil {
			return err
		}
		d.Presentation = d.Presentation.kept()
		if err := tx.PutDevice(dev); err != nil {
			return err
		}
		if notified, err = enqueueDeviceNotification(tx, d, app.Key, now); err != nil {
			return err
		}
		return tx.PutDeviceRequest(d)
	})
	if err == nil && notified {
		s.notifyWritten()
	}
	return d, err
}

// PendingDeviceRequests lists the INITIATED device requests created at or before
// the given time, for the terminal delay. Only the terminals with a command pending
// are read.
func (s *Service) PendingDeviceRequests(before time.Time) ([]DeviceRequest, error) {
	return view(s, func(tx Tx) ([]DeviceRequest, error) {
		devices, err := tx.PendingDevices()
		if err != nil {
			return nil, err
		}
		var out []DeviceRequest
		for _, dev := range devices {
			d, err := waitingRequest(tx, dev)
			if err != nil {
				return nil, err
			}
			if d != nil && !d.TimeCreated.After(before) {
				out = append(out, *d)
			}
		}
		return out, nil
	})
}

// Devices lists every terminal, for the admin API.
func (s *Service) Devices() ([]Device, error) {
	return inspect(s, func(_ Tx, in InspectTx) ([]Device, error) { return in.Devices() })
}

// DeviceChange is what the admin API may change of a terminal; empty leaves it.
type DeviceChange struct {
	Mode      string
	Status    string
	Card      string
	AccountID string // bind it to this transaction-processing account (see bindDevice)
}

// ChangeDevice sets a terminal's answer mode, status or default card, or binds it to
// an account.
func (s *Service) ChangeDevice(id string, ch DeviceChange) (Device, error) {
	var dev Device
	err := s.store.Update(func(tx Tx) error {
		var err error
		if dev, err = tx.Device(id); err != nil {
			return notFoundAs(err, NotFoundDevice(id))
		}
		switch {
		case ch.Mode != "" && ch.Mode != DeviceModeComplete && ch.Mode != DeviceModeInitiated:
			return InvalidField("mode")
		case ch.Status != "" && ch.Status != DeviceActive && ch.Status != DeviceInactive:
			return InvalidField("status")
		case ch.Card != "" && !KnownTerminalCard(ch.Card):
			return InvalidField("card")
		}
		if ch.AccountID != "" {
			if err := bindDevice(tx, &dev, ch.AccountID); err != nil {
				return err
			}
		}
		dev.Mode = orDefault(ch.Mode, dev.Mode)
		dev.Status = orDefault(ch.Status, dev.Status)
		dev.Card = orDefault(ch.Card, dev.Card)
		return tx.PutDevice(dev)
	})
	return dev, err
}

// DeviceRequestState returns a device request, for the admin API and the inspector.
func (s *Service) DeviceRequestState(id string) (DeviceRequest, error) {
	return view(s, func(tx Tx) (DeviceRequest, error) {
		d, err := tx.DeviceRequest(id)
		return d, notFoundAs(err, NotFoundDeviceRequest(id))
	})
}

// putFixtureDevices stores the fixtures' terminals, each ACTIVE in COMPLETE mode
// unless it says otherwise.
func putFixtureDevices(tx Tx, devices []Device) error {
	for _, d := range devices {
		if d.Card != "" && !KnownTerminalCard(d.Card) {
			// A device keeps a test card's name, never a card number.
			return InvalidDocument("devices: " + d.ID + ": card: want a terminal test card (" + strings.Join(TerminalCardNames(), ", ") + ")")
		}
		d.Status = orDefault(d.Status, DeviceActive)
		d.Mode = orDefault(d.Mode, DeviceModeComplete)
		if err := tx.PutDevice(d); err != nil {
			return err
		}
	}
	return nil
}

// UPAAmount converts a UPA amount to minor units: "10", "10.5", "10.00" and the
// zero-padded "0010.00" of the PHP SDK are all accepted, at most two decimals.
func UPAAmount(s string) (string, bool) {
	whole, frac, _ := strings.Cut(s, ".")
	if !AllDigits(whole) || len(whole) > 15 || len(frac) > 2 || (frac != "" && !AllDigits(frac)) {
		return "", false
	}
	for len(frac) < 2 {
		frac += "0"
	}
	return NormalizeAmount(whole + frac), true
}

// MajorUnits renders minor units as UPA shows an amount: "11.00".
func MajorUnits(minor string) string {
	if neg, ok := strings.CutPrefix(minor, "-"); ok {
		return "-" + MajorUnits(neg)
	}
	minor = NormalizeAmount(minor)
	if minor == "" {
		minor = "0"
	}
	for len(minor) < 3 {
		minor = "0" + minor
	}
	return minor[:len(minor)-2] + "." + minor[len(minor)-2:]
}

// tranNoText is a terminal transaction number as UPA writes it: four digits at least.
func tranNoText(n int) string { return fmt.Sprintf("%04d", n) }

// batchNumber is a batch id as UPA shows it: the digits of BAT_<n>, which the Java
// and .NET SDKs read as an integer.
func batchNumber(batchID string) string {
	n := strings.TrimPrefix(batchID, "BAT_")
	if _, err := strconv.Atoi(n); err != nil {
		return "0"
	}
	return n
}

// takesCard reports whether a UPA command waits for a card on the terminal.
func takesCard(u UPACommand) bool {
	if u.Command == "Refund" {
		return u.ReferenceNumber == "" && u.TranNo == "" // a linked refund needs no card
	}
	return slices.Contains([]string{"Sale", "PreAuth", "CardVerify"}, u.Command)
}

// checkCommand refuses a command without what it needs, before any terminal sees it.
func checkCommand(u UPACommand) error {
	const at = "request.data.data.transaction."
	switch {
	case (u.Command == "Sale" || u.Command == "PreAuth" || (u.Command == "Refund" && u.TranNo == "" && u.ReferenceNumber == "")) && u.amount() == "":
		return MissingFields(at + "baseAmount")
	case (u.Command == "AuthCompletion" || u.Command == "Void" || u.Command == "TipAdjust") && u.TranNo == "" && u.ReferenceNumber == "":
		return MissingFields("[" + at + "referenceNumber or " + at + "tranNo]")
	case u.Command == "TipAdjust" && u.TipAmount == "":
		return MissingFields(at + "tipAmount")
	}
	return nil
}
