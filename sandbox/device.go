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

// upaCommandNames are the UPA commands of the official SDKs (the union of their
// UpaMessageId enums; FindBatches is Java's only): a name outside them is refused as
// bad input, and the simulated terminal carries out every one (terminalAnswer).
var upaCommandNames = []string{
	"Sale", "PreAuth", "AuthCompletion", "Refund", "Void", "Reversal", "TipAdjust", "CardVerify",
	"DeletePreAuth", "BalanceInquiry", "Tokenize", "ForceSale", "MailOrder", "UpdateTaxInfo",
	"UpdateLodgingDetails", "ManageToken", "StartCardTransaction", "ProcessCardTransaction",
	"ContinueEMVTransaction", "CompleteEMVTransaction", "ContinueCardTransaction",
	"EODProcessing", "GetLastEOD", "GetBatchReport", "GetBatchDetails", "AvailableBatches", "FindBatches",
	"GetOpenTabDetails", "SendSAF", "GetSAFReport", "DeleteSAF",
	"LineItemDisplay", "Ping", "CancelTransaction", "Reboot", "Restart", "ReturnToIdle", "ClearDataLake",
	"CommunicationCheck", "Logon", "RegisterPOS", "PrintData", "DisplayMessage", "ReturnDefaultScreen",
	"RemoveCard", "BroadcastConfiguration", "LoadUDDataFile", "RemoveUDDataFile", "ExecuteUDDataFile",
	"InjectUDDataFile", "InjectCarouselLogo", "RemoveCarouselLogo", "SetLogoCarouselInterval", "SaveConfigFile",
	"GetAppInfo", "GetParam", "SetParam", "SetTimeZone", "SetDebugLevel", "GetDebugLevel", "GetDebugInfo",
	"GetConfigContents", "GetEncryptionType", "GetBatteryPercentage",
	"GetSignature", "Scan", "EnterPIN", "PromptMenu", "PromptWithOptions", "GeneralEntry",
}

// IsUPACommand reports whether name is a UPA command of the SDKs.
func IsUPACommand(name string) bool { return slices.Contains(upaCommandNames, name) }

// UPACommands lists the UPA commands of the SDKs.
func UPACommands() []string { return slices.Clone(upaCommandNames) }

// cardCommands read a card; customerCommands wait for the customer in other ways.
// On a terminal answering INITIATED, such a command waits at the head of the queue
// for the customer (a presentation, or the terminal delay); every other command runs
// as soon as it reaches the head, as a terminal runs it without anyone.
var (
	cardCommands = []string{"Sale", "PreAuth", "CardVerify", "ForceSale", "MailOrder", "BalanceInquiry",
		"Tokenize", "StartCardTransaction", "ProcessCardTransaction"}
	customerCommands = []string{"GetSignature", "Scan", "EnterPIN", "PromptMenu", "PromptWithOptions", "GeneralEntry"}
)

// ReadsCard reports whether a UPA command reads a card: a card command, or a refund
// that names no original (a linked refund needs no card).
func ReadsCard(u UPACommand) bool {
	if u.Command == "Refund" {
		return u.ReferenceNumber == "" && u.TranNo == ""
	}
	return slices.Contains(cardCommands, u.Command)
}

// waitsForCustomer reports whether a command waits for the customer at the terminal.
func waitsForCustomer(u UPACommand) bool {
	return ReadsCard(u) || slices.Contains(customerCommands, u.Command)
}

// Device statuses and answer modes.
const (
	DeviceActive   = "ACTIVE"
	DeviceInactive = "INACTIVE"

	// DeviceModeComplete answers a command once the terminal is done: the only answer
	// the Java and .NET SDKs can parse. DeviceModeInitiated answers every command at
	// once, before the terminal runs it; the terminal completes it later [SB].
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
	Pending     string    `json:"pending,omitempty"`      // the command at the head of the queue, waiting for the customer
	Queue       []string  `json:"queue,omitempty"`        // the commands waiting behind it, oldest first
	LastRequest string    `json:"last_request,omitempty"` // the last device request the terminal answered
	TranNo      int       `json:"tran_no"`                // the terminal's last transaction number
	LastBatchID string    `json:"last_batch_id,omitempty"`
	Settings    Settings  `json:"settings,omitzero"`
	OrderID     string    `json:"order_id,omitempty"`   // the device order it came from
	ProductID   string    `json:"product_id,omitempty"` // the order's product it is a unit of
	TimeCreated time.Time `json:"time_created"`
}

// Settings is what the POS set on a terminal (SetTimeZone, SetParam, SetDebugLevel)
// and the terminal reports back (GetParam, GetDebugLevel).
type Settings struct {
	TimeZone   string `json:"time_zone,omitempty"`
	DebugLevel string `json:"debug_level,omitempty"` // as SetDebugLevel sends it: "PACKETS|DATA"
}

// MaxTerminalQueue is how many commands a terminal holds at once, the one it is on
// included; one more is refused (TerminalQueueFull) [SB].
const MaxTerminalQueue = 100

// queued is how many commands the terminal holds.
func (d Device) queued() int {
	if d.Pending == "" {
		return len(d.Queue)
	}
	return 1 + len(d.Queue)
}

// UPACommand is the validated UPA command of a MiC request. Amounts are in minor
// units.
type UPACommand struct {
	Command         string   `json:"command"`
	RequestID       string   `json:"request_id"`
	EcrID           string   `json:"ecr_id,omitempty"`
	BaseAmount      string   `json:"base_amount,omitempty"`
	TipAmount       string   `json:"tip_amount,omitempty"`
	TaxAmount       string   `json:"tax_amount,omitempty"`
	CashBackAmount  string   `json:"cash_back_amount,omitempty"`
	TotalAmount     string   `json:"total_amount,omitempty"`
	TranNo          string   `json:"tran_no,omitempty"`
	ReferenceNumber string   `json:"reference_number,omitempty"`
	InvoiceNbr      string   `json:"invoice_nbr,omitempty"`
	LineItemLeft    string   `json:"line_item_left,omitempty"`
	LineItemRight   string   `json:"line_item_right,omitempty"`
	Batch           string   `json:"batch,omitempty"`
	TippableAmount  string   `json:"tippable_amount,omitempty"`
	TimeZone        string   `json:"time_zone,omitempty"`     // SetTimeZone, SetParam
	DebugLevel      string   `json:"debug_level,omitempty"`   // SetDebugLevel
	Configuration   []string `json:"configuration,omitempty"` // GetParam: the parameters asked for
	ConfigType      string   `json:"config_type,omitempty"`   // GetConfigContents
}

// amount is what a card command asks for: the base amount, else the amount, else the total.
func (u UPACommand) amount() string { return orDefault(u.BaseAmount, u.TotalAmount) }

// DeviceRequest is a MiC request as the sandbox keeps it: the device request resource.
type DeviceRequest struct {
	ID       string `json:"id"`
	DeviceID string `json:"device_id"`
	Holder
	AppID        string       `json:"app_id"`
	Channel      string       `json:"channel"`
	Country      string       `json:"country"`
	Currency     string       `json:"currency"`
	Reference    string       `json:"reference,omitempty"`
	Status       string       `json:"status"`
	TimeCreated  time.Time    `json:"time_created"`
	TimeStarted  time.Time    `json:"time_started,omitzero"` // when it reached the head of the terminal's queue
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
// transaction the command made or changed commit together. The answer is the
// device request as the terminal took it: INITIATED when it joined the terminal's
// queue, even if it ran at once (GP's cloud answers before the terminal).
func (s *Service) SendDeviceCommand(c Caller, req DeviceCommandRequest) (DeviceRequest, error) {
	var moved terminalMoves
	v, replayed, err := execute(s, c, req.Idempotency, "device_request", func(tx Tx, now time.Time) (string, DeviceRequest, error) {
		var d DeviceRequest
		var err error
		moved = terminalMoves{}
		d, err = s.sendDeviceCommand(tx, c, req, &moved, now)
		return d.ID, d, err
	})
	if err == nil && !replayed {
		s.afterMoves(moved)
	}
	return v, err
}

// terminalMoves is what a store transaction did on terminals, for the workers to
// hear once it committed.
type terminalMoves struct {
	waiting  bool // a command reached the head of a queue and waits for the customer
	notified bool // a completed command wrote a notification
}

func (s *Service) afterMoves(m terminalMoves) {
	if m.waiting {
		s.terminalWaiting()
	}
	if m.notified {
		s.notifyWritten()
	}
}

// OnTerminalWaiting registers fn to be called after a command starts waiting for
// the customer, so that the terminal delay wakes at once. Call it before serving.
func (s *Service) OnTerminalWaiting(fn func()) { s.waiting = fn }

func (s *Service) terminalWaiting() {
	if s.waiting != nil {
		s.waiting()
	}
}

// sendDeviceCommand takes a command on the account's terminal. A terminal busy with
// earlier commands queues it behind them, whatever its mode: GP's cloud takes a
// command for a terminal that is still busy [SB]. An idle one runs it at once, unless
// it answers INITIATED and the command waits for the customer.
func (s *Service) sendDeviceCommand(tx Tx, c Caller, req DeviceCommandRequest, moved *terminalMoves, now time.Time) (DeviceRequest, error) {
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
	if err := checkTerminalTakes(dev, req.Presentation); err != nil {
		return DeviceRequest{}, err
	}
	d := DeviceRequest{
		ID: "DRQ_" + s.ids.Alphanumeric(30), DeviceID: dev.ID, Holder: HolderOf(m, acct), AppID: c.App.ID, Channel: orDefault(req.Channel, ChannelCP),
		Country: orDefault(req.Country, "US"), Currency: orDefault(req.Currency, "USD"),
		Reference: req.Reference, TimeCreated: now, StatusURL: req.StatusURL,
		Command: req.Command, Presentation: req.Presentation, Status: DeviceRequestInitiated,
		Action: s.newAction(c, "PROCESS_DEVICE_COMMAND", now),
	}
	answer := d
	switch {
	case dev.queued() > 0:
		// Busy: it waits its turn. Written first, so that advance finds it.
		dev.Queue = append(dev.Queue, d.ID)
		if err := tx.PutDeviceRequest(d); err != nil {
			return DeviceRequest{}, err
		}
		if dev.Pending == "" {
			// A queue without a head (a record written before queues): move it on.
			if err := s.advance(tx, &dev, moved, now); err != nil {
				return DeviceRequest{}, err
			}
		}
	case dev.Mode == DeviceModeInitiated:
		if err := tx.PutDeviceRequest(d); err != nil {
			return DeviceRequest{}, err
		}
		dev.Queue = []string{d.ID}
		if err := s.advance(tx, &dev, moved, now); err != nil {
			return DeviceRequest{}, err
		}
	default:
		if err := s.runTerminal(tx, c, &dev, &d, now); err != nil {
			return DeviceRequest{}, err
		}
		if err := completed(tx, d, c.App.Key, moved, now); err != nil {
			return DeviceRequest{}, err
		}
		answer = d
	}
	return answer, tx.PutDevice(dev)
}

// checkTerminalTakes refuses a terminal that cannot take a command: inactive, with a
// full queue, or busy as a scenario says.
func checkTerminalTakes(dev Device, p Presentation) error {
	switch {
	case dev.Status != DeviceActive:
		return DeviceNotActive(dev.ID)
	case p.Outcome == OutcomeTerminalBusy:
		return DeviceBusy(dev.ID, "another command")
	case dev.queued() >= MaxTerminalQueue:
		return TerminalQueueFull(dev.ID, MaxTerminalQueue)
	}
	return nil
}

// advance moves the terminal to the next command of its queue once it is on none:
// the next one becomes the head; one that waits for the customer stays there,
// any other runs at once and the next follows, until the queue is empty or its head
// waits. Commands a reset or a restore left behind are skipped.
func (s *Service) advance(tx Tx, dev *Device, moved *terminalMoves, now time.Time) error {
	for dev.Pending == "" && len(dev.Queue) > 0 {
		id := dev.Queue[0]
		dev.Queue = slices.Delete(dev.Queue, 0, 1)
		d, err := tx.DeviceRequest(id)
		if errors.Is(err, ErrNotFound) {
			continue
		} else if err != nil {
			return err
		}
		if d.Status != DeviceRequestInitiated {
			continue
		}
		d.TimeStarted = now
		if waitsForCustomer(d.Command) {
			dev.Pending, moved.waiting = d.ID, true
			if err := tx.PutDeviceRequest(d); err != nil {
				return err
			}
			break
		}
		if err := s.runQueued(tx, dev, &d, moved, now); err != nil {
			return err
		}
	}
	if len(dev.Queue) == 0 {
		dev.Queue = nil
	}
	return nil
}

// runQueued runs a command the terminal took earlier, for the app that sent it.
func (s *Service) runQueued(tx Tx, dev *Device, d *DeviceRequest, moved *terminalMoves, now time.Time) error {
	app, err := tx.App(d.AppID)
	if err != nil {
		return err
	}
	if err := s.runTerminal(tx, Caller{App: app}, dev, d, now); err != nil {
		return err
	}
	d.Presentation = d.Presentation.kept()
	return completed(tx, *d, app.Key, moved, now)
}

// completed writes a command the terminal completed and its notification.
func completed(tx Tx, d DeviceRequest, appKey string, moved *terminalMoves, now time.Time) error {
	notified, err := enqueueDeviceNotification(tx, d, appKey, now)
	if err != nil {
		return err
	}
	moved.notified = moved.notified || notified
	return tx.PutDeviceRequest(d)
}

// accountDevice finds the terminal bound to a merchant's account.
func accountDevice(tx Tx, merchantID, accountID string) (Device, error) {
	d, bound, err := boundDevice(tx, merchantID, accountID)
	if err == nil && !bound {
		err = NoDevice(accountID, merchantID)
	}
	return d, err
}

// CompleteDeviceRequest completes the command at the head of a terminal's queue: the
// customer presents a card (the inspector, the admin API, or the terminal delay
// running out), signs, scans or cancels. The zero Presentation is the terminal's
// default. The commands behind it follow as advance says.
func (s *Service) CompleteDeviceRequest(id string, p Presentation) (DeviceRequest, error) {
	var d DeviceRequest
	var moved terminalMoves
	err := s.store.Update(func(tx Tx) error {
		var err error
		moved = terminalMoves{}
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
		if dev.Pending != d.ID {
			return DeviceRequestQueued(id, dev.ID, dev.Pending)
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
		if err := s.runQueued(tx, &dev, &d, &moved, now); err != nil {
			return err
		}
		if err := s.advance(tx, &dev, &moved, now); err != nil {
			return err
		}
		return tx.PutDevice(dev)
	})
	if err == nil {
		s.afterMoves(moved)
	}
	return d, err
}

// StartedAt is when the terminal began a command: when it reached the head of the
// queue (a record written before queues has only its creation).
func (d DeviceRequest) StartedAt() time.Time {
	if d.TimeStarted.IsZero() {
		return d.TimeCreated
	}
	return d.TimeStarted
}

// PendingDeviceRequests lists the commands at the head of a terminal's queue,
// waiting for the customer, that the terminal began at or before the given time, for
// the terminal delay. Only the terminals with a command pending are read.
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
			if d != nil && !d.StartedAt().After(before) {
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
			return NotATerminalCard(ch.Card)
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

// checkCommand refuses a command without what it needs, before any terminal sees it.
func checkCommand(u UPACommand) error {
	const at = "request.data.data.transaction."
	paying := []string{"Sale", "PreAuth", "ForceSale", "MailOrder", "ProcessCardTransaction"}
	chained := []string{"AuthCompletion", "Void", "Reversal", "TipAdjust", "DeletePreAuth", "UpdateTaxInfo", "UpdateLodgingDetails"}
	switch {
	case (slices.Contains(paying, u.Command) || (u.Command == "Refund" && ReadsCard(u))) && u.amount() == "":
		return MissingFields(at + "baseAmount")
	case slices.Contains(chained, u.Command) && u.TranNo == "" && u.ReferenceNumber == "":
		return MissingFields("[" + at + "referenceNumber or " + at + "tranNo]")
	case u.Command == "TipAdjust" && u.TipAmount == "":
		return MissingFields(at + "tipAmount")
	}
	return nil
}
