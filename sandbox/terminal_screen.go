package sandbox

import "errors"

// What a person at a simulated terminal sees and does: its screen (idle, or the
// command waiting for the customer at the head of its queue, the commands behind it,
// and the last answer) and the customer's actions on the waiting command: choose a
// tip, present a card, cancel. The inspector's Terminal view and the admin API act
// through these.

// TerminalState is a terminal with the command waiting on it, those queued behind
// it, and the last one it answered; nil or empty when there is none.
type TerminalState struct {
	Device  Device
	Waiting *DeviceRequest
	Queue   []DeviceRequest
	Last    *DeviceRequest
}

// TerminalStates lists every terminal's state, in one read. It reads every terminal
// because the Terminal view (GET /_sandbox/terminals) shows every one, idle or not.
func (s *Service) TerminalStates() ([]TerminalState, error) {
	return inspect(s, func(tx Tx, in InspectTx) ([]TerminalState, error) {
		devices, err := in.Devices()
		if err != nil {
			return nil, err
		}
		out := make([]TerminalState, 0, len(devices))
		for _, dev := range devices {
			st := TerminalState{Device: dev}
			if st.Waiting, err = waitingRequest(tx, dev); err != nil {
				return nil, err
			}
			for _, id := range dev.Queue {
				d, err := optionalRequest(tx, id)
				if err != nil {
					return nil, err
				}
				if d != nil {
					st.Queue = append(st.Queue, *d)
				}
			}
			if st.Last, err = optionalRequest(tx, dev.LastRequest); err != nil {
				return nil, err
			}
			out = append(out, st)
		}
		return out, nil
	})
}

// waitingRequest is the command waiting for the customer on dev, or nil.
func waitingRequest(tx Tx, dev Device) (*DeviceRequest, error) {
	d, err := optionalRequest(tx, dev.Pending)
	if d != nil && d.Status != DeviceRequestInitiated {
		d = nil
	}
	return d, err
}

// optionalRequest reads the device request id, nil for "" or one a reset removed.
func optionalRequest(tx Tx, id string) (*DeviceRequest, error) {
	if id == "" {
		return nil, nil
	}
	d, err := tx.DeviceRequest(id)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &d, nil
}

// AsksForTip reports whether a command shows the tip screen: a sale that names no
// tip, so the customer adds one on the terminal [SB]. A tipAmount, even 0.00, is the
// tip already, and the terminal skips the screen (the Java SDK's zero-tip test says
// so).
func AsksForTip(u UPACommand) bool { return u.Command == "Sale" && u.TipAmount == "" }

// waitingOn is the command waiting for the customer on the terminal id, for an action
// on it.
func waitingOn(tx Tx, id string) (Device, DeviceRequest, error) {
	dev, err := tx.Device(id)
	if err != nil {
		return Device{}, DeviceRequest{}, notFoundAs(err, NotFoundDevice(id))
	}
	d, err := waitingRequest(tx, dev)
	if err != nil {
		return Device{}, DeviceRequest{}, err
	}
	if d == nil {
		return Device{}, DeviceRequest{}, NothingWaiting(id)
	}
	return dev, *d, nil
}

// ChooseTip is the customer choosing a tip (minor units, "0" for none) on the tip
// screen of the command waiting on terminal id; the card presented next pays it.
func (s *Service) ChooseTip(id, tip string) (DeviceRequest, error) {
	var d DeviceRequest
	err := s.store.Update(func(tx Tx) error {
		var err error
		if _, d, err = waitingOn(tx, id); err != nil {
			return err
		}
		tip = NormalizeAmount(tip)
		if err := checkTip(d, tip); err != nil {
			return err
		}
		d.Presentation.Tip = tip
		return tx.PutDeviceRequest(d)
	})
	return d, err
}

// checkTip refuses a tip the command's tip screen would not take: one for a command
// that shows none, or one over its base amount.
func checkTip(d DeviceRequest, tip string) error {
	if !AsksForTip(d.Command) {
		return TipNotAsked(d.ID)
	}
	return checkTipAmount(d, tip)
}

// checkTipAmount refuses a tip over the command's base amount, which UPA's tip
// screen refuses too.
func checkTipAmount(d DeviceRequest, tip string) error {
	if greaterAmount(tip, d.Command.amount()) {
		return TipOverBase(NormalizeAmount(tip), d.Command.amount())
	}
	return nil
}

// PresentOnTerminal completes the command waiting on terminal id with p: a card
// presented (a signature, a scan or an entry for a command that reads none), or an
// outcome such as the customer cancelling.
func (s *Service) PresentOnTerminal(id string, p Presentation) (DeviceRequest, error) {
	d, err := view(s, func(tx Tx) (DeviceRequest, error) {
		_, d, err := waitingOn(tx, id)
		return d, err
	})
	if err != nil {
		return DeviceRequest{}, err
	}
	return s.CompleteDeviceRequest(d.ID, p)
}

// greaterAmount compares two amounts in minor units (digits, no sign).
func greaterAmount(a, b string) bool {
	a, b = NormalizeAmount(a), NormalizeAmount(b)
	if len(a) != len(b) {
		return len(a) > len(b)
	}
	return a > b
}

// TerminalCard is a terminal test card as a person may see it: its name, brand,
// entry mode and the number masked as a terminal prints it.
type TerminalCard struct {
	Name      string `json:"name"`
	Brand     string `json:"brand"`
	EntryMode string `json:"entry_mode"`
	Masked    string `json:"masked_number"`
	Note      string `json:"note,omitempty"`
}

// terminalCardNotes says what a test card that does not approve does.
var terminalCardNotes = map[string]string{
	"visa_chip_pin_decline": "declined: wrong PIN",
	"expired_swipe":         "declined: expired card",
}

// TerminalCards lists the terminal test cards, in TerminalCardNames' order.
func TerminalCards() []TerminalCard {
	names := TerminalCardNames()
	out := make([]TerminalCard, 0, len(names))
	for _, name := range names {
		in := terminalCards[name]
		c := readCard(in).stored("")
		out = append(out, TerminalCard{Name: name, Brand: c.Brand, EntryMode: in.EntryMode,
			Masked: maskedPan(c), Note: terminalCardNotes[name]})
	}
	return out
}
