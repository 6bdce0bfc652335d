package api

import (
	"cmp"
	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"slices"
)

// POST /devices (and /merchants/{merchant_id}/devices): Meet in the Cloud. The body
// is GP's envelope around a raw UPA command; every SDK spelling is accepted (EcrId and
// Node 3.10.10's ecrId, requestId and amounts as strings or numbers, the PHP SDK's
// zero-padded "0010.00").

// upa is a member of a UPA command: a string or a number of at most 100 characters.
func upa(name string) Field { return Field{name: name, kind: kScalar, min: 1, max: 100} }

// upaTransactionFields is request.data.data.transaction as the SDKs send it.
var upaTransactionFields = []Field{
	upa("baseAmount"),
	upa("tipAmount"),
	upa("taxAmount"),
	upa("cashBackAmount"),
	upa("totalAmount"),
	upa("amount"),
	upa("surcharge"),
	upa("confirmAmount"),
	upa("preAuthAmount"),
	upa("authorizedAmount"),
	upa("tranNo"),
	upa("referenceNumber"),
	upa("invoiceNbr"),
	upa("processCPC"),
	upa("taxIndicator"),
	upa("allowDuplicate"),
	upa("purchaseOrder"),
	upa("prescriptionAmount"),
	upa("clinicAmount"),
	upa("dentalAmount"),
	upa("visionOpticalAmount"),
	upa("transactionType"),
	upa("tranDate"),
	upa("tranTime"),
	upa("folioNumber"),
	upa("extraChargeTotal"),
	upa("cardAcquisition"), // Node 3.10.10 sends it with every card command
}

// upaParamFields is request.data.data.params (and the Java SDK's request.data.params).
var upaParamFields = []Field{
	upa("clerkId"),
	upa("tokenRequest"),
	upa("tokenValue"),
	upa("cardOnFileIndicator"),
	upa("cardBrandTransId"),
	upa("acquisitionTypes"),
	upa("lineItemLeft"),
	upa("lineItemRight"),
	upa("displayOption"),
	upa("batch"),
	upa("reportOutput"),
	upa("reportType"),
	upa("reportSubType"),
	upa("cardAcquisition"),
	upa("quickChip"),
	upa("checkLuhn"),
	upa("securityCode"),
	upa("directMktInvoiceNbr"),
	upa("directMktShipMonth"),
	upa("directMktShipDay"),
	upa("timeout"),
	upa("timeOut"),
	upa("header"),
	upa("cardTypeFilter"),
	upa("previousBatchReport"),
	upa("bothReports"),
}

var deviceOp = operation{
	op:            sandbox.OpDevice,
	authenticated: true,
	pathIDs:       []string{"merchant_id"},
	body: []Field{
		Text("merchant_id", 50),
		Text("account_id", 50),
		Text("account_name", 100),
		{name: "channel", kind: kEnum, enum: []string{sandbox.ChannelCP}, required: true},
		{name: "country", kind: kString, min: 2, max: 2},
		{name: "currency", kind: kString, min: 3, max: 3},
		{name: "reference", kind: kScalar, min: 1, max: 100},
		{name: "request", kind: kObject, required: true, fields: []Field{
			{name: "message", kind: kEnum, enum: []string{"MSG"}, required: true},
			{name: "data", kind: kObject, required: true, fields: []Field{
				{name: "command", kind: kString, min: 1, max: 50, required: true},
				{name: "requestId", kind: kScalar, min: 1, max: 50, required: true},
				{name: "EcrId", kind: kScalar, min: 1, max: 50},
				{name: "ecrId", kind: kScalar, min: 1, max: 50}, // the Node SDK 3.10.10's spelling
				{name: "params", kind: kObject, fields: upaParamFields},
				{name: "data", kind: kObject, fields: []Field{
					{name: "params", kind: kObject, fields: upaParamFields},
					{name: "transaction", kind: kObject, fields: upaTransactionFields},
				}},
			}},
		}},
		{name: "notifications", kind: kObject, fields: []Field{{name: "status_url", kind: kURL, max: 2000}}},
	},
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

type deviceBody struct {
	MerchantID  string `json:"merchant_id"`
	AccountID   string `json:"account_id"`
	AccountName string `json:"account_name"`
	Channel     string `json:"channel"`
	Country     string `json:"country"`
	Currency    string `json:"currency"`
	Reference   scalar `json:"reference"`
	Request     struct {
		Message string `json:"message"`
		Data    struct {
			Command   string        `json:"command"`
			RequestID scalar        `json:"requestId"`
			EcrID     scalar        `json:"EcrId"`
			EcrIDNode scalar        `json:"ecrId"`
			Params    upaParamsBody `json:"params"`
			Data      struct {
				Params      upaParamsBody      `json:"params"`
				Transaction upaTransactionBody `json:"transaction"`
			} `json:"data"`
		} `json:"data"`
	} `json:"request"`
	Notifications struct {
		StatusURL string `json:"status_url"`
	} `json:"notifications"`
}

type upaTransactionBody struct {
	BaseAmount          scalar `json:"baseAmount"`
	TipAmount           scalar `json:"tipAmount"`
	TaxAmount           scalar `json:"taxAmount"`
	CashBackAmount      scalar `json:"cashBackAmount"`
	TotalAmount         scalar `json:"totalAmount"`
	Amount              scalar `json:"amount"`
	Surcharge           scalar `json:"surcharge"`
	ConfirmAmount       scalar `json:"confirmAmount"`
	PreAuthAmount       scalar `json:"preAuthAmount"`
	AuthorizedAmount    scalar `json:"authorizedAmount"`
	TranNo              scalar `json:"tranNo"`
	ReferenceNumber     scalar `json:"referenceNumber"`
	InvoiceNbr          scalar `json:"invoiceNbr"`
	ProcessCPC          scalar `json:"processCPC"`
	TaxIndicator        scalar `json:"taxIndicator"`
	AllowDuplicate      scalar `json:"allowDuplicate"`
	PurchaseOrder       scalar `json:"purchaseOrder"`
	PrescriptionAmount  scalar `json:"prescriptionAmount"`
	ClinicAmount        scalar `json:"clinicAmount"`
	DentalAmount        scalar `json:"dentalAmount"`
	VisionOpticalAmount scalar `json:"visionOpticalAmount"`
	TransactionType     scalar `json:"transactionType"`
	TranDate            scalar `json:"tranDate"`
	TranTime            scalar `json:"tranTime"`
	FolioNumber         scalar `json:"folioNumber"`
	ExtraChargeTotal    scalar `json:"extraChargeTotal"`
	CardAcquisition     scalar `json:"cardAcquisition"`
}

type upaParamsBody struct {
	ClerkId             scalar `json:"clerkId"`
	TokenRequest        scalar `json:"tokenRequest"`
	TokenValue          scalar `json:"tokenValue"`
	CardOnFileIndicator scalar `json:"cardOnFileIndicator"`
	CardBrandTransId    scalar `json:"cardBrandTransId"`
	AcquisitionTypes    scalar `json:"acquisitionTypes"`
	LineItemLeft        scalar `json:"lineItemLeft"`
	LineItemRight       scalar `json:"lineItemRight"`
	DisplayOption       scalar `json:"displayOption"`
	Batch               scalar `json:"batch"`
	ReportOutput        scalar `json:"reportOutput"`
	ReportType          scalar `json:"reportType"`
	ReportSubType       scalar `json:"reportSubType"`
	CardAcquisition     scalar `json:"cardAcquisition"`
	QuickChip           scalar `json:"quickChip"`
	CheckLuhn           scalar `json:"checkLuhn"`
	SecurityCode        scalar `json:"securityCode"`
	DirectMktInvoiceNbr scalar `json:"directMktInvoiceNbr"`
	DirectMktShipMonth  scalar `json:"directMktShipMonth"`
	DirectMktShipDay    scalar `json:"directMktShipDay"`
	Timeout             scalar `json:"timeout"`
	TimeOut             scalar `json:"timeOut"`
	Header              scalar `json:"header"`
	CardTypeFilter      scalar `json:"cardTypeFilter"`
	PreviousBatchReport scalar `json:"previousBatchReport"`
	BothReports         scalar `json:"bothReports"`
}

// upaCommands are the UPA command names of the SDKs (UpaMessageId): a name outside
// them is refused as bad input; one the simulated terminal does not carry out is the
// terminal's ERR017 [SB].
var upaCommands = []string{
	"Sale", "PreAuth", "AuthCompletion", "Refund", "Void", "TipAdjust", "CardVerify", "Reversal",
	"DeletePreAuth", "BalanceInquiry", "EODProcessing", "GetBatchReport", "GetBatchDetails",
	"AvailableBatches", "GetOpenTabDetails", "LineItemDisplay", "Ping", "CancelTransaction", "Reboot",
	"Restart", "GetAppInfo", "GetSAFReport", "SendSAF", "DeleteSAF", "GetSignature", "PrintData", "Scan",
	"ReturnToIdle", "CommunicationCheck", "Logon", "GetLastEOD", "ForceSale", "MailOrder",
	"StartCardTransaction", "ProcessCardTransaction", "ContinueEMVTransaction", "CompleteEMVTransaction",
	"UpdateTaxInfo", "UpdateLodgingDetails",
}

// domain converts a checked body: amounts into minor units, the merchant from the
// path, else the body.
func (b deviceBody) domain(c *call) (sandbox.DeviceCommandRequest, error) {
	d := b.Request.Data
	if !slices.Contains(upaCommands, d.Command) {
		return sandbox.DeviceCommandRequest{}, sandbox.InvalidField("request.data.command")
	}
	tr, params := d.Data.Transaction, d.Data.Params
	if params == (upaParamsBody{}) {
		params = d.Params
	}
	u := sandbox.UPACommand{
		Command: d.Command, RequestID: string(d.RequestID), EcrID: string(orScalar(d.EcrID, d.EcrIDNode)),
		TranNo: string(tr.TranNo), ReferenceNumber: string(tr.ReferenceNumber), InvoiceNbr: string(tr.InvoiceNbr),
		LineItemLeft: string(params.LineItemLeft), LineItemRight: string(params.LineItemRight), Batch: string(params.Batch),
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
