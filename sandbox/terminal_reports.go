package sandbox

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/png"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// What the simulated terminal answers to the UPA commands that move no money: its
// own information and settings, the customer's input (a signature, a scan, a menu
// choice), and reports on its batches, open tabs and store-and-forward queue. The
// SDKs' parsers say which members each answer needs; where no SDK test shows a
// value, the sandbox's is [SB] (sandbox/api/README.md, section 10).

// UPAReport is what the terminal reports for a command that moves no money. Which
// member a command fills is terminalReport's; the wire shape is the view's.
type UPAReport struct {
	AppInfo         *UPAAppInfo       `json:"app_info,omitempty"`         // GetAppInfo
	Params          map[string]string `json:"params,omitempty"`           // GetParam: each parameter asked for
	DebugLevel      string            `json:"debug_level,omitempty"`      // GetDebugLevel: the levels' bits in binary, "110000"
	File            *UPAFile          `json:"file,omitempty"`             // GetDebugInfo, GetConfigContents
	ScanData        string            `json:"scan_data,omitempty"`        // Scan
	Signature       []byte            `json:"signature,omitempty"`        // GetSignature: a PNG image
	EncryptionType  string            `json:"encryption_type,omitempty"`  // GetEncryptionType
	Button          int               `json:"button,omitempty"`           // prompts: the button pressed
	MenuSelected    int               `json:"menu_selected,omitempty"`    // PromptMenu: the item chosen
	BatteryLevel    int               `json:"battery_level,omitempty"`    // GetBatteryPercentage
	AcquisitionType string            `json:"acquisition_type,omitempty"` // StartCardTransaction: how the card was read
	OpenTabs        []UPAOpenTab      `json:"open_tabs,omitempty"`        // GetOpenTabDetails
	Batches         []string          `json:"batches,omitempty"`          // AvailableBatches: batch numbers
}

// UPAAppInfo is the terminal's application information.
type UPAAppInfo struct {
	SerialNumber string `json:"serial_number"`
	AppVersion   string `json:"app_version"`
	OSVersion    string `json:"os_version"`
	EMVVersion   string `json:"emv_version"`
	CTLSVersion  string `json:"ctls_version"`
}

// UPAFile is a file the terminal sends back: a debug log or a configuration.
type UPAFile struct {
	ConfigType string `json:"config_type,omitempty"`
	Contents   string `json:"contents"`
}

// UPAOpenTab is an authorization of the terminal's not yet completed. Amounts are in
// minor units.
type UPAOpenTab struct {
	TransactionID    string `json:"transaction_id"`
	AuthorizedAmount string `json:"authorized_amount"`
	CardType         string `json:"card_type"`
	MaskedPan        string `json:"masked_pan"`
}

// The simulated terminal's own values [SB].
var (
	terminalAppInfo = UPAAppInfo{AppVersion: "1.0.0-sandbox", OSVersion: "sandbox", EMVVersion: "sandbox", CTLSVersion: "sandbox"}

	// terminalParams are the parameters GetParam knows, with the values a terminal
	// starts with; TimeZone follows SetTimeZone and SetParam.
	terminalParams = map[string]string{
		"TimeZone": "America/New_York", "TerminalLanguage": "en", "ApplicationMode": "Retail",
		"PinBypassIsSupported": "0", "InvoicePromptSupported": "0",
	}

	// debugLevels are the bits of UPA's debug levels, as the SDKs' DebugLevel enums
	// number them.
	debugLevels = map[string]int{"ERROR": 1, "WARNING": 2, "FLOW": 4, "MESSAGE": 8, "DATA": 16, "PACKETS": 32, "PIA": 64, "PERF": 128}
)

// openTabsScanned is how many of its latest transaction numbers a terminal looks
// through for open tabs [SB].
const openTabsScanned = 1000

// terminalReport is the answer to a command that moves no money; the settings
// commands change dev. Those that show or print something, manage files or the
// terminal itself answer Success and nothing else.
func terminalReport(dev *Device, u UPACommand, now time.Time) UPAResponse {
	r := UPAResponse{Result: "Success"}
	report := func(rep UPAReport) { r.Report = &rep }
	switch u.Command {
	case "GetAppInfo":
		info := terminalAppInfo
		info.SerialNumber = dev.ID
		report(UPAReport{AppInfo: &info})
	case "GetParam":
		report(UPAReport{Params: paramValues(*dev, u.Configuration)})
	case "SetTimeZone", "SetParam":
		dev.Settings.TimeZone = orDefault(u.TimeZone, dev.Settings.TimeZone)
	case "SetDebugLevel":
		dev.Settings.DebugLevel = u.DebugLevel
	case "GetDebugLevel":
		report(UPAReport{DebugLevel: debugBits(dev.Settings.DebugLevel)})
	case "GetDebugInfo":
		report(UPAReport{File: &UPAFile{Contents: "Debug log of simulated terminal " + dev.ID + ": nothing logged\n"}})
	case "GetConfigContents":
		report(UPAReport{File: &UPAFile{ConfigType: u.ConfigType, Contents: "; " + u.ConfigType + " of simulated terminal " + dev.ID + "\n"}})
	case "GetEncryptionType":
		report(UPAReport{EncryptionType: "TDES"})
	case "GetBatteryPercentage":
		report(UPAReport{BatteryLevel: 100})
	case "Scan":
		report(UPAReport{ScanData: "SANDBOX-SCAN"})
	case "GetSignature":
		report(UPAReport{Signature: signatureImage()})
	case "PromptMenu":
		report(UPAReport{Button: 1, MenuSelected: 1})
	case "PromptWithOptions", "GeneralEntry":
		report(UPAReport{Button: 1})
	case "CommunicationCheck", "Logon":
		r.Host = &UPAHost{RespDateTime: FormatTime(now)}
	}
	return r
}

// paramValues answers GetParam: the value of each parameter asked for ("" for one
// the terminal does not know), every known one for none or "all".
func paramValues(dev Device, names []string) map[string]string {
	known := func(name string) string {
		if name == "TimeZone" && dev.Settings.TimeZone != "" {
			return dev.Settings.TimeZone
		}
		return terminalParams[name]
	}
	if len(names) == 0 || slices.Contains(names, "all") {
		names = make([]string, 0, len(terminalParams))
		for name := range terminalParams {
			names = append(names, name)
		}
	}
	out := make(map[string]string, len(names))
	for _, name := range names {
		out[name] = known(name)
	}
	return out
}

// debugBits is a debug level as GetDebugLevel answers it, the levels' bits in
// binary ("PACKETS|DATA" is "110000"), which the PHP SDK reads back into names.
func debugBits(levels string) string {
	bits := 0
	for _, name := range strings.Split(levels, "|") {
		bits |= debugLevels[strings.ToUpper(strings.TrimSpace(name))]
	}
	return strconv.FormatInt(int64(bits), 2)
}

// signatureImage is the customer's signature as the terminal captures it: a PNG of a
// stroke, the same for every signature [SB].
var signatureImage = sync.OnceValue(func() []byte {
	img := image.NewGray(image.Rect(0, 0, 120, 40))
	for i := range img.Pix {
		img.Pix[i] = 0xff
	}
	for x := 10; x < 110; x++ {
		img.SetGray(x, 20+(x/10)%2*4, color.Gray{})
	}
	var b bytes.Buffer
	_ = png.Encode(&b, img) // into memory: cannot fail
	return b.Bytes()
})

// cardRead reads a card and answers what the terminal read, moving no money: a
// balance inquiry (the sandbox keeps no balances) or the start of a card transaction
// the POS completes itself [SB].
func cardRead(dev Device, p Presentation, command string) UPAResponse {
	in := presentedCard(dev, p)
	c := readCard(in).stored("")
	r := UPAResponse{Result: "Success", Host: &UPAHost{ResponseCode: "00", ResponseText: "APPROVAL"}}
	r.Payment = &UPAPayment{CardType: c.Brand, MaskedPan: maskedPan(c), CardAcquisition: acquisition(in.EntryMode), TransactionType: command}
	if command == "StartCardTransaction" {
		r.Report = &UPAReport{AcquisitionType: r.Payment.CardAcquisition}
	}
	return r
}

// originalNoted answers a command that updates what the terminal keeps about a
// transaction (its tax, its lodging details): the original is found, and nothing GP
// keeps changes [SB].
func (s *Service) originalNoted(tx Tx, dev *Device, u UPACommand, now time.Time) (UPAResponse, error) {
	id, err := s.originalOf(tx, dev, u)
	if err != nil {
		return hostRefusal(err)
	}
	return UPAResponse{Result: "Success", TransactionID: id,
		Host: &UPAHost{ReferenceNumber: id, ResponseCode: "00", ResponseText: "APPROVAL", RespDateTime: FormatTime(now)}}, nil
}

// lastEndOfDay reports the batch the terminal's last end of day closed.
func lastEndOfDay(tx Tx, dev *Device) (UPAResponse, error) {
	r := UPAResponse{Result: "Success", Batch: &UPABatch{BatchID: "0", Status: BatchStatusClosed, TotalAmount: "0"}}
	if dev.LastBatchID == "" {
		return r, nil
	}
	b, err := tx.Batch(dev.LastBatchID)
	if errors.Is(err, ErrNotFound) {
		return r, nil // a reset removed it
	} else if err != nil {
		return UPAResponse{}, err
	}
	r.Batch = batchSummary(b)
	return r, nil
}

// availableBatches lists the batches the terminal knows: its open batch and the last
// one its end of day closed [SB].
func availableBatches(tx Tx, dev *Device, d *DeviceRequest) (UPAResponse, error) {
	open, err := terminalOpenBatch(tx, dev, d)
	if err != nil {
		return UPAResponse{}, err
	}
	rep := &UPAReport{Batches: []string{}}
	for _, id := range []string{open, dev.LastBatchID} {
		if id != "" && !slices.Contains(rep.Batches, batchNumber(id)) {
			rep.Batches = append(rep.Batches, batchNumber(id))
		}
	}
	return UPAResponse{Result: "Success", Report: rep}, nil
}

// openTabs lists the terminal's authorizations still PREAUTHORIZED, oldest first,
// among its latest openTabsScanned transaction numbers.
func openTabs(tx Tx, dev *Device) (UPAResponse, error) {
	rep := &UPAReport{OpenTabs: []UPAOpenTab{}}
	seen := map[string]bool{}
	for n := max(1, dev.TranNo-openTabsScanned+1); n <= dev.TranNo; n++ {
		id, err := tx.Meta(tranNoMeta(dev.ID, tranNoText(n)))
		if errors.Is(err, ErrNotFound) || seen[id] {
			continue
		} else if err != nil {
			return UPAResponse{}, err
		}
		seen[id] = true
		t, err := tx.Transaction(id)
		if errors.Is(err, ErrNotFound) {
			continue
		} else if err != nil {
			return UPAResponse{}, err
		}
		if t.Status == StatusPreauthorized {
			rep.OpenTabs = append(rep.OpenTabs, UPAOpenTab{TransactionID: t.ID, AuthorizedAmount: t.Amount,
				CardType: t.PaymentMethod.Card.Brand, MaskedPan: maskedPan(t.Card)})
		}
	}
	return UPAResponse{Result: "Success", Report: rep}, nil
}
