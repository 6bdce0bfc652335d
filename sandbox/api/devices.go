package api

import (
	"cmp"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/web"
)

// POST /devices (and /merchants/{merchant_id}/devices): Meet in the Cloud. The body
// is GP's envelope around a raw UPA command; every SDK spelling is accepted (EcrId and
// Node 3.10.10's ecrId, requestId and amounts as strings or numbers, the PHP SDK's
// zero-padded "0010.00").

var deviceOp = operation{
	op:            sandbox.OpDevice,
	authenticated: true,
	pathIDs:       []string{"merchant_id"},
	handler: handle(func(s *Server, c *call, req deviceBody) (any, error) {
		in, err := req.domain(c)
		if err != nil {
			return nil, err
		}
		d, err := s.svc.SendDeviceCommand(c.caller, in)
		if err != nil {
			return nil, err
		}
		return NewDeviceRequestView(d), nil
	}),
}

// scalar is a UPA member as the SDK wrote it, a string or a JSON number (or-number):
// the SDKs send a requestId, EcrId or amount either way.
type scalar string

// deviceBody is a POST /devices body. A UPA member is a string or a number of at
// most 100 characters, kept as written (scalar).
type deviceBody struct {
	MerchantID  string `json:"merchant_id" gp:"max=50"`
	AccountID   string `json:"account_id" gp:"max=50"`
	AccountName string `json:"account_name" gp:"max=100"`
	Channel     string `json:"channel" gp:"required,enum=CP"`
	Country     string `json:"country" gp:"country"`
	Currency    string `json:"currency" gp:"currency"`
	Reference   scalar `json:"reference" gp:"or-number,max=100"`
	Request     struct {
		Message string `json:"message" gp:"required,enum=MSG"`
		Data    struct {
			Command   string         `json:"command" gp:"required,max=50"`
			RequestID scalar         `json:"requestId" gp:"required,or-number,max=50"`
			EcrID     scalar         `json:"EcrId" gp:"or-number,max=50"`
			EcrIDNode scalar         `json:"ecrId" gp:"or-number,max=50"` // the Node SDK 3.10.10's spelling
			Params    *upaParamsBody `json:"params"`                      // the Java SDK's place for them
			Data      upaDataBody    `json:"data"`
		} `json:"data" gp:"required"`
	} `json:"request" gp:"required"`
	Notifications struct {
		StatusURL string `json:"status_url" gp:"url,min=0,max=2000"`
	} `json:"notifications"`
}

// upaDataBody is request.data.data: the command's params and transaction, and the
// containers the SDKs write beside them that the simulated terminal does not read.
type upaDataBody struct {
	Params                  *upaParamsBody     `json:"params"`
	Transaction             upaTransactionBody `json:"transaction"`
	ProcessingIndicators    web.Ignored        `json:"processingIndicators"`    // .NET, PHP: quickChip, checkLuhn, securityCode, cardTypeFilter
	Lodging                 web.Ignored        `json:"lodging"`                 // .NET, PHP: folio, stay, extra charges
	Host                    web.Ignored        `json:"host"`                    // .NET: hostDecision, issuerScripts, issuerAuthData
	Terminal                web.Ignored        `json:"terminal"`                // .NET, PHP EnterPIN: canBypass
	Password                web.Ignored        `json:"password"`                // .NET SetParam
	PromptIfRestartRequired web.Ignored        `json:"promptIfRestartRequired"` // .NET SetParam
}

// upaTransactionBody is request.data.data.transaction as the SDKs send it.
type upaTransactionBody struct {
	BaseAmount          scalar      `json:"baseAmount" gp:"or-number,max=100"`
	TipAmount           scalar      `json:"tipAmount" gp:"or-number,max=100"`
	TaxAmount           scalar      `json:"taxAmount" gp:"or-number,max=100"`
	CashBackAmount      scalar      `json:"cashBackAmount" gp:"or-number,max=100"`
	TotalAmount         scalar      `json:"totalAmount" gp:"or-number,max=100"`
	Amount              scalar      `json:"amount" gp:"or-number,max=100"`
	Surcharge           scalar      `json:"surcharge" gp:"or-number,max=100"`
	ConfirmAmount       scalar      `json:"confirmAmount" gp:"or-number,max=100"`
	PreAuthAmount       scalar      `json:"preAuthAmount" gp:"or-number,max=100"`
	AuthorizedAmount    scalar      `json:"authorizedAmount" gp:"or-number,max=100"`
	TranNo              scalar      `json:"tranNo" gp:"or-number,max=100"`
	ReferenceNumber     scalar      `json:"referenceNumber" gp:"or-number,max=100"`
	InvoiceNbr          scalar      `json:"invoiceNbr" gp:"or-number,max=100"`
	ProcessCPC          scalar      `json:"processCPC" gp:"or-number,max=100"`
	TaxIndicator        scalar      `json:"taxIndicator" gp:"or-number,max=100"`
	AllowDuplicate      scalar      `json:"allowDuplicate" gp:"or-number,max=100"`
	PurchaseOrder       scalar      `json:"purchaseOrder" gp:"or-number,max=100"`
	PrescriptionAmount  scalar      `json:"prescriptionAmount" gp:"or-number,max=100"`
	ClinicAmount        scalar      `json:"clinicAmount" gp:"or-number,max=100"`
	DentalAmount        scalar      `json:"dentalAmount" gp:"or-number,max=100"`
	VisionOpticalAmount scalar      `json:"visionOpticalAmount" gp:"or-number,max=100"`
	TransactionType     scalar      `json:"transactionType" gp:"or-number,max=100"`
	TranDate            scalar      `json:"tranDate" gp:"or-number,max=100"`
	TranTime            scalar      `json:"tranTime" gp:"or-number,max=100"`
	FolioNumber         scalar      `json:"folioNumber" gp:"or-number,max=100"`
	ExtraChargeTotal    scalar      `json:"extraChargeTotal" gp:"or-number,max=100"`
	CardAcquisition     scalar      `json:"cardAcquisition" gp:"or-number,max=100"` // Node 3.10.10 sends it with every card command
	TippableAmount      scalar      `json:"tippableAmount" gp:"or-number,max=100"`  // PHP: a sale's amount tips are suggested on
	ClerkID             web.Ignored `json:"clerkId"`                                // .NET, PHP
	HSAFSATokenTran     web.Ignored `json:"HSAFSATokenTran"`                        // PHP
	AccountNumber       web.Ignored `json:"accountNumber"`                          // .NET and PHP EnterPIN: a card number, never kept
}

// upaParamsBody is request.data.data.params (and the Java SDK's request.data.params).
type upaParamsBody struct {
	ClerkId             scalar   `json:"clerkId" gp:"or-number,max=100"`
	TokenRequest        scalar   `json:"tokenRequest" gp:"or-number,max=100"`
	TokenValue          scalar   `json:"tokenValue" gp:"or-number,max=100"`
	CardOnFileIndicator scalar   `json:"cardOnFileIndicator" gp:"or-number,max=100"`
	CardBrandTransId    scalar   `json:"cardBrandTransId" gp:"or-number,max=100"`
	AcquisitionTypes    scalar   `json:"acquisitionTypes" gp:"or-number,max=100"`
	LineItemLeft        scalar   `json:"lineItemLeft" gp:"or-number,max=100"`
	LineItemRight       scalar   `json:"lineItemRight" gp:"or-number,max=100"`
	DisplayOption       scalar   `json:"displayOption" gp:"or-number,max=100"`
	Batch               scalar   `json:"batch" gp:"or-number,max=100"`
	ReportOutput        scalar   `json:"reportOutput" gp:"or-number,max=100"`
	ReportType          scalar   `json:"reportType" gp:"or-number,max=100"`
	ReportSubType       scalar   `json:"reportSubType" gp:"or-number,max=100"`
	CardAcquisition     scalar   `json:"cardAcquisition" gp:"or-number,max=100"`
	QuickChip           scalar   `json:"quickChip" gp:"or-number,max=100"`
	CheckLuhn           scalar   `json:"checkLuhn" gp:"or-number,max=100"`
	SecurityCode        scalar   `json:"securityCode" gp:"or-number,max=100"`
	DirectMktInvoiceNbr scalar   `json:"directMktInvoiceNbr" gp:"or-number,max=100"`
	DirectMktShipMonth  scalar   `json:"directMktShipMonth" gp:"or-number,max=100"`
	DirectMktShipDay    scalar   `json:"directMktShipDay" gp:"or-number,max=100"`
	Timeout             scalar   `json:"timeout" gp:"or-number,max=100"`
	TimeOut             scalar   `json:"timeOut" gp:"or-number,max=100"`
	Header              scalar   `json:"header" gp:"or-number,max=100"`
	CardTypeFilter      scalar   `json:"cardTypeFilter" gp:"or-number,max=100"`
	PreviousBatchReport scalar   `json:"previousBatchReport" gp:"or-number,max=100"`
	BothReports         scalar   `json:"bothReports" gp:"or-number,max=100"`
	Configuration       []string `json:"configuration" gp:"max=100"`        // GetParam: the parameters asked for
	TimeZone            scalar   `json:"timeZone" gp:"or-number,max=100"`   // SetTimeZone, SetParam
	DebugLevel          scalar   `json:"debugLevel" gp:"or-number,max=100"` // SetDebugLevel: "PACKETS|DATA"
	ConfigType          scalar   `json:"configType" gp:"or-number,max=100"` // GetConfigContents, SaveConfigFile
	upaIgnoredParams
}

// upaIgnoredParams are the members of params the SDKs write for commands whose
// answer does not depend on them (display, print, files, prompts, POS registration,
// logging): accepted, any JSON, and not kept.
type upaIgnoredParams struct {
	MerchantDecision             web.Ignored `json:"merchantDecision"`
	LanguageCode                 web.Ignored `json:"languageCode"`
	DisplayTotalAmount           web.Ignored `json:"displayTotalAmount"`
	PromptForManualEntryPassword web.Ignored `json:"PromptForManualEntryPassword"`
	BrandIcon1                   web.Ignored `json:"brandIcon1"`
	BrandIcon2                   web.Ignored `json:"brandIcon2"`
	AppName                      web.Ignored `json:"appName"`
	LaunchOrder                  web.Ignored `json:"launchOrder"`
	Remove                       web.Ignored `json:"remove"`
	Silent                       web.Ignored `json:"silent"`
	Content                      web.Ignored `json:"content"`
	Line1                        web.Ignored `json:"line1"`
	Line2                        web.Ignored `json:"line2"`
	Line3                        web.Ignored `json:"line3"`
	Line4                        web.Ignored `json:"line4"`
	Line5                        web.Ignored `json:"line5"`
	Prompt1                      web.Ignored `json:"prompt1"`
	Prompt2                      web.Ignored `json:"prompt2"`
	Prompt3                      web.Ignored `json:"prompt3"`
	LogToConsole                 web.Ignored `json:"logToConsole"`
	LogFile                      web.Ignored `json:"logFile"`
	Enable                       web.Ignored `json:"enable"`
	FileType                     web.Ignored `json:"fileType"`
	SlotNum                      web.Ignored `json:"slotNum"`
	File                         web.Ignored `json:"file"`
	FileName                     web.Ignored `json:"fileName"`
	FileContents                 web.Ignored `json:"fileContents"`
	Length                       web.Ignored `json:"length"`
	Reinitialize                 web.Ignored `json:"reinitialize"`
	IntervalTime                 web.Ignored `json:"intervalTime"`
	IsFullScreen                 web.Ignored `json:"isFullScreen"`
	ExpiryMonth                  web.Ignored `json:"expiryMonth"`
	ExpiryYear                   web.Ignored `json:"expiryYear"`
	Text                         web.Ignored `json:"text"`
	Color                        web.Ignored `json:"color"`
	Menu                         web.Ignored `json:"menu"`
	Button1                      web.Ignored `json:"button1"`
	Button2                      web.Ignored `json:"button2"`
	EntryFormat                  web.Ignored `json:"entryFormat"`
	MinLen                       web.Ignored `json:"minLen"`
	MaxLen                       web.Ignored `json:"maxLen"`
	Alignment                    web.Ignored `json:"alignment"`
	Background                   web.Ignored `json:"background"`
	InvoiceNbr                   web.Ignored `json:"invoiceNbr"`
}

// domain converts a checked body: amounts into minor units, the merchant from the
// path, else the body.
func (b deviceBody) domain(c *call) (sandbox.DeviceCommandRequest, error) {
	d := b.Request.Data
	if !sandbox.IsUPACommand(d.Command) {
		return sandbox.DeviceCommandRequest{}, sandbox.InvalidField("request.data.command")
	}
	tr, params := d.Data.Transaction, cmp.Or(d.Data.Params, d.Params, &upaParamsBody{})
	u := sandbox.UPACommand{
		Command: d.Command, RequestID: string(d.RequestID), EcrID: string(orScalar(d.EcrID, d.EcrIDNode)),
		TranNo: string(tr.TranNo), ReferenceNumber: string(tr.ReferenceNumber), InvoiceNbr: string(tr.InvoiceNbr),
		LineItemLeft: string(params.LineItemLeft), LineItemRight: string(params.LineItemRight), Batch: string(params.Batch),
		TimeZone: string(params.TimeZone), DebugLevel: string(params.DebugLevel), ConfigType: string(params.ConfigType),
		Configuration: params.Configuration,
	}
	const at = "request.data.data.transaction."
	amounts := []struct {
		name  string
		value scalar
		into  *string
	}{
		{"baseAmount", orScalar(tr.BaseAmount, tr.Amount), &u.BaseAmount},
		{"tipAmount", tr.TipAmount, &u.TipAmount},
		{"taxAmount", tr.TaxAmount, &u.TaxAmount},
		{"cashBackAmount", tr.CashBackAmount, &u.CashBackAmount},
		{"totalAmount", tr.TotalAmount, &u.TotalAmount},
		{"tippableAmount", tr.TippableAmount, &u.TippableAmount},
	}
	for _, a := range amounts {
		if a.value == "" {
			continue
		}
		v, ok := sandbox.UPAAmount(string(a.value))
		if !ok {
			return sandbox.DeviceCommandRequest{}, sandbox.InvalidField(at + a.name)
		}
		*a.into = v
	}
	return sandbox.DeviceCommandRequest{
		MerchantID: cmp.Or(c.vars["merchant_id"], b.MerchantID), AccountID: b.AccountID, AccountName: b.AccountName,
		Channel: b.Channel, Country: b.Country, Currency: b.Currency, Reference: string(b.Reference),
		StatusURL: b.Notifications.StatusURL, Command: u, Presentation: c.terminal, Idempotency: c.idem,
	}, nil
}

func orScalar(values ...scalar) scalar {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}
