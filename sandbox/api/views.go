package api

import (
	"cmp"
	"encoding/json"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// The views: every resource shape the API sends, in one place. A view is a plain
// struct whose members are declared in the order GP sends them (encoding/json keeps
// declaration order, and the Java SDK and golden files care). Each view is built from
// the domain's typed value by its new… function; the admin shapes (package admin,
// views.go) extend these rather than repeat them, and so are exported.
//
// A view of a resource says which (resourceID), for the request journal.
//
// A member that the domain value leaves empty is left out (omitempty), as GP never
// sends an empty string for a field it has no value for; the exceptions are marked.

// tokenView is the answer of POST /accesstoken [GP].
type tokenView struct {
	Token           string    `json:"token"`
	Type            string    `json:"type"`
	Scope           scopeView `json:"scope"`
	AppID           string    `json:"app_id"`
	AppName         string    `json:"app_name"`
	TimeCreated     string    `json:"time_created"`
	SecondsToExpire int       `json:"seconds_to_expire"` // a JSON integer [GP]
	Email           string    `json:"email,omitempty"`
}

type scopeView struct {
	MerchantID   string            `json:"merchant_id"`
	MerchantName string            `json:"merchant_name,omitempty"`
	Accounts     []sandbox.Account `json:"accounts"` // never null: the Node SDK crashes on a missing array
}

func newTokenView(t sandbox.IssuedToken) tokenView {
	accounts := make([]sandbox.Account, 0, len(t.Accounts)) // as kept: its tags are GP's members
	for _, a := range t.Accounts {
		if a.Permissions == nil {
			a.Permissions = []string{} // never null either
		}
		accounts = append(accounts, a)
	}
	return tokenView{
		Token: t.Token.Value, Type: "Bearer",
		Scope: scopeView{MerchantID: t.App.MerchantID, MerchantName: t.MerchantName, Accounts: accounts},
		AppID: t.App.ID, AppName: t.App.Name, TimeCreated: sandbox.FormatTime(t.Token.Created),
		SecondsToExpire: t.SecondsToExpire, Email: t.App.Email,
	}
}

// newTransactionView renders a transaction: GP's full resource for one made through
// the API (it has a channel), the service document's shape for a fixture's record.
func newTransactionView(t sandbox.Transaction) any {
	if t.Channel != "" {
		return newResourceView(t)
	}
	return newDocumentTransactionView(t)
}

// newTransactionDetailView renders GET /transactions/{id}: the transaction as
// newTransactionView does, with the card's first six and last four digits [GP].
func newTransactionDetailView(t sandbox.Transaction) any {
	if t.Channel == "" {
		return newDocumentTransactionView(t)
	}
	v := newResourceView(t)
	v.PaymentMethod.Card.MaskedNumberFirst6Last4 = t.Card.MaskedFirst6Last4()
	return v
}

// The blocks the transaction shapes share, embedded where each shape sends them (an
// embedded struct's members are encoded in its place, as if written out there).

// TransactionHead opens every shape of a transaction.
type TransactionHead struct {
	ID          string `json:"id"`
	TimeCreated string `json:"time_created"`
	Type        string `json:"type"`
	Status      string `json:"status"`
}

// NewTransactionHead is the head of t's every shape.
func NewTransactionHead(t sandbox.Transaction) TransactionHead {
	return TransactionHead{ID: t.ID, TimeCreated: sandbox.FormatTime(t.TimeCreated), Type: t.Type, Status: t.Status}
}

// MoneyView is the amount of a transaction or a batch, with where it was taken. A
// transaction's other amounts follow its amount, as GP sends them, in the domain's
// shape; a batch or a rate has none and leaves them out.
type MoneyView struct {
	Amount string `json:"amount"`
	sandbox.ExtraAmounts
	Currency string `json:"currency"`
	Country  string `json:"country"`
}

// merchantAccountView names the merchant and the account a resource or a list
// belongs to: a sandbox.Holder, every member sent.
type merchantAccountView struct {
	MerchantID   string `json:"merchant_id"`
	MerchantName string `json:"merchant_name"`
	AccountID    string `json:"account_id"`
	AccountName  string `json:"account_name"`
}

// TransactionMoney is t's amount, currency and country.
func TransactionMoney(t sandbox.Transaction) MoneyView {
	return MoneyView{Amount: t.Amount, ExtraAmounts: t.ExtraAmounts, Currency: t.Currency, Country: t.Country}
}

// resourceView is GP's Transaction resource [GP]. The sandbox's own state (gratuity,
// EMV tag, batch state, history) is stored, never echoed.
type resourceView struct {
	TransactionHead
	Channel           string `json:"channel"`
	CaptureMode       string `json:"capture_mode,omitempty"`
	AuthorizationMode string `json:"authorization_mode,omitempty"` // as the request sent it [GP: 2021-03-22 create response]
	MoneyView
	merchantAccountView
	Reference        string            `json:"reference,omitempty"` // left out when the request sent none, as GP does
	ParentResourceID string            `json:"parent_resource_id,omitempty"`
	BatchID          string            `json:"batch_id"` // "" until the transaction is batched [GP]
	PaymentMethod    PaymentMethodView `json:"payment_method"`
	// The conversion at the DCC rate the request named (currency_conversions.go).
	CurrencyConversion *conversionView `json:"currency_conversion,omitempty"`
	Action             actionView      `json:"action"`
}

// PaymentMethodView is payment_method of the full resource, also what the admin API
// shows of any transaction. A decline has an empty authcode [GP].
type PaymentMethodView struct {
	ID                   string         `json:"id,omitempty"` // the token charged, if any [GP]
	Result               string         `json:"result"`
	Message              string         `json:"message"`
	EntryMode            string         `json:"entry_mode,omitempty"`
	*sandbox.Fingerprint                // after entry_mode [GP: Java GpApiMappingTest]
	Card                 cardResultView `json:"card"`
	BNPL                 *bnplView      `json:"bnpl,omitempty"`
}

// cardResultView is payment_method.card of the resource: the domain keeps it in its
// wire shape. The transaction detail adds the card as reporting shows it, which the
// SDKs' transaction-summary mappers read [GP].
type cardResultView struct {
	sandbox.CardResult
	MaskedNumberFirst6Last4 string `json:"masked_number_first6last4,omitempty"`
}

func newResourceView(t sandbox.Transaction) resourceView {
	return resourceView{
		TransactionHead: NewTransactionHead(t), Channel: t.Channel, CaptureMode: t.CaptureMode,
		AuthorizationMode: t.AuthorizationMode, MoneyView: TransactionMoney(t), merchantAccountView: merchantAccountView(t.Holder),
		Reference: t.Reference, ParentResourceID: t.ParentID, BatchID: t.BatchID,
		PaymentMethod: NewPaymentMethodView(t.PaymentMethod), Action: newActionView(t.Action),
		CurrencyConversion: newConversionView(t.CurrencyConversion),
	}
}

// NewPaymentMethodView is a transaction's payment_method as the resource shows it.
func NewPaymentMethodView(p sandbox.PaymentResult) PaymentMethodView {
	v := PaymentMethodView{
		ID: p.ID, Result: p.Result, Message: p.Message, EntryMode: p.EntryMode,
		Fingerprint: p.Fingerprint, Card: cardResultView{CardResult: p.Card},
	}
	if p.BNPL != nil {
		v.BNPL = &bnplView{Provider: p.BNPL.Provider}
	}
	return v
}

// documentTransactionView is the Transaction of the service document, the shape of
// the fixtures' records. A member the fixture leaves out is left out.
type documentTransactionView struct {
	TransactionHead
	MoneyView
	Reference     string                `json:"reference,omitempty"`
	PaymentMethod paymentView           `json:"payment_method"`
	Order         *sandbox.OrderAmounts `json:"order,omitempty"` // the record's own members
	BatchID       string                `json:"batch_id"`        // "" until the transaction is batched [GP]
	Action        actionView            `json:"action"`
}

type paymentView struct {
	Result  string    `json:"result,omitempty"`
	Message string    `json:"message,omitempty"`
	Card    *cardView `json:"card,omitempty"`
	BNPL    *bnplView `json:"bnpl,omitempty"`
}

type cardView struct {
	Authcode       string `json:"authcode,omitempty"`
	BrandReference string `json:"brand_reference,omitempty"`
}

type bnplView struct {
	Provider string `json:"provider"`
}

func newDocumentTransactionView(t sandbox.Transaction) documentTransactionView {
	return documentTransactionView{
		TransactionHead: NewTransactionHead(t), MoneyView: TransactionMoney(t), Reference: t.Reference,
		PaymentMethod: newPaymentView(t.PaymentMethod), Order: t.Order,
		BatchID: t.BatchID, Action: newActionView(t.Action),
	}
}

func newPaymentView(p sandbox.PaymentResult) paymentView {
	v := paymentView{Result: p.Result, Message: p.Message}
	if p.Card.Authcode != "" || p.Card.BrandReference != "" {
		v.Card = &cardView{Authcode: p.Card.Authcode, BrandReference: p.Card.BrandReference}
	}
	if p.BNPL != nil {
		v.BNPL = &bnplView{Provider: p.BNPL.Provider}
	}
	return v
}

// actionView is the action block: what the request did. A fixture's action may name
// no app.
type actionView struct {
	ID          string `json:"id"`
	Type        string `json:"type"`
	TimeCreated string `json:"time_created"`
	ResultCode  string `json:"result_code"`
	AppID       string `json:"app_id,omitempty"`
	AppName     string `json:"app_name,omitempty"`
}

// newActionView is a conversion: the view differs from sandbox.Action only in its
// tags, and a member added to one must be added to the other.
func newActionView(a sandbox.Action) actionView { return actionView(a) }

// OrderView is the Order resource: the answer of POST /merchants/{id}/orders and the
// body of its notifications. Only a FOR_REVIEW answer has a price [SB].
type OrderView struct {
	ID              string     `json:"id"`
	MerchantID      string     `json:"merchant_id"`
	MerchantName    string     `json:"merchant_name"`
	Status          string     `json:"status"`
	TimeCreated     string     `json:"time_created"`
	TimeLastUpdated string     `json:"time_last_updated"`
	Price           *priceView `json:"price,omitempty"`
	Action          actionView `json:"action"`
}

type priceView struct {
	Amount   string          `json:"amount"`
	Currency string          `json:"currency"`
	Lines    []priceLineView `json:"lines"` // never null
}

// priceLineView is converted from sandbox.PriceLine: the same members in the same order.
type priceLineView struct {
	ProductID  string `json:"product_id"`
	Quantity   int    `json:"quantity"`
	UnitAmount string `json:"unit_amount"`
	Amount     string `json:"amount"`
}

// NewOrderView is o as the API shows it.
func NewOrderView(o sandbox.Order) OrderView {
	return OrderView{
		ID: o.ID, MerchantID: o.MerchantID, MerchantName: o.MerchantName, Status: o.Status,
		TimeCreated: sandbox.FormatTime(o.TimeCreated), TimeLastUpdated: sandbox.FormatTime(o.TimeLastUpdated),
		Action: newActionView(o.Action),
	}
}

func newQuoteView(q sandbox.Quote) OrderView {
	v := NewOrderView(q.Order)
	v.Price = &priceView{Amount: q.Price.Amount, Currency: q.Price.Currency, Lines: make([]priceLineView, 0, len(q.Price.Lines))}
	for _, l := range q.Price.Lines {
		v.Price.Lines = append(v.Price.Lines, priceLineView(l))
	}
	return v
}

// NotificationBody renders a notification's body: the order as its status
// notification sends it (see notificationBody), or the device request as POST
// /devices answers it once complete. It is the notification worker's Renderer, and
// what the admin API shows of a notification. json.Marshal of a view is
// deterministic, as a retry of a signed body needs.
func NotificationBody(n sandbox.Notification) ([]byte, error) {
	if n.DeviceRequest != nil {
		return json.Marshal(NewDeviceRequestView(*n.DeviceRequest))
	}
	if n.Dispute != nil {
		return json.Marshal(newDisputeView(*n.Dispute, false))
	}
	return notificationBody(n.Order)
}

// notificationBody renders an order as its status notification sends it: the Order as
// the API shows it, with the action of the change [SB].
func notificationBody(o sandbox.Order) ([]byte, error) { return json.Marshal(NewOrderView(o)) }

// BatchView is the batch summary the Java, .NET and PHP SDKs read on a close [GP]
// members, [SB] layout. A brand's totals and the host's repeat the shape of the whole.
type BatchView struct {
	ID               string `json:"id"`
	BatchID          string `json:"batch_id"`
	TimeCreated      string `json:"time_created"`
	TimeLastUpdated  string `json:"time_last_updated"`
	TimeClosed       string `json:"time_closed,omitempty"`
	Status           string `json:"status"`
	TransactionCount int    `json:"transaction_count"` // a JSON integer [GP]
	MoneyView
	merchantAccountView
	DeviceReference string      `json:"device_reference"` // the terminal whose end of day closed it, else "" [SB]
	OpenActionID    string      `json:"open_action_id,omitempty"`
	CloseActionID   string      `json:"close_action_id,omitempty"`
	BrandBreakdown  []brandView `json:"brand_breakdown"` // never null: PHP loops over it unguarded [GP]
	HostBreakdown   hostView    `json:"host_breakdown"`  // an object, not an array [GP]
	batchTotalsView             // sales, refunds, funding, count, gratuity
	Action          *actionView `json:"action,omitempty"` // the close, or the read (BATCH_SINGLE); an open batch's close answer has none
}

// batchTotalsView is what a batch, a brand of it and its host sum up: sales (their
// gratuity included) credit the merchant, refunds debit it [SB].
type batchTotalsView struct {
	Count          int            `json:"count"`
	GratuityAmount string         `json:"gratuity_amount"`
	Sales          sandbox.Totals `json:"sales"` // a count and an amount in minor units, as kept
	Refunds        sandbox.Totals `json:"refunds"`
	FundingCredit  sandbox.Totals `json:"funding_credit"`
	FundingDebit   sandbox.Totals `json:"funding_debit"`
}

type brandView struct {
	Brand  string `json:"brand"`
	Amount string `json:"amount"`
	batchTotalsView
}

type hostView struct {
	MerchantName string `json:"merchant_name"`
	Reference    string `json:"reference"`
	Amount       string `json:"amount"`
	batchTotalsView
}

func newBatchTotalsView(t sandbox.BatchTotals) batchTotalsView {
	sales := sandbox.Totals{Count: t.Sales.Count, Amount: zeroIfEmpty(t.Sales.Amount)}
	refunds := sandbox.Totals{Count: t.Refunds.Count, Amount: zeroIfEmpty(t.Refunds.Amount)}
	return batchTotalsView{
		Count: t.Transactions(), GratuityAmount: zeroIfEmpty(t.GratuityAmount),
		Sales: sales, Refunds: refunds, FundingCredit: sales, FundingDebit: refunds,
	}
}

func zeroIfEmpty(amount string) string {
	if amount == "" {
		return "0"
	}
	return amount
}

// NewBatchView is the batch summary of b.
func NewBatchView(b sandbox.Batch) BatchView {
	v := BatchView{
		ID: b.ID, BatchID: b.ID, TimeCreated: sandbox.FormatTime(b.TimeCreated),
		TimeLastUpdated: sandbox.FormatTime(b.TimeCreated), TimeClosed: sandbox.FormatOptionalTime(b.TimeClosed),
		Status: b.Status, TransactionCount: b.Count,
		MoneyView:           MoneyView{Amount: zeroIfEmpty(b.Amount), Currency: b.Currency, Country: b.Country},
		merchantAccountView: merchantAccountView(b.Holder),
		OpenActionID:        b.OpenActionID, DeviceReference: b.DeviceID, BrandBreakdown: make([]brandView, 0, len(b.Brands)),
		batchTotalsView: newBatchTotalsView(b.BatchTotals),
	}
	if b.Action.ID != "" {
		a := newActionView(b.Action)
		v.Action = &a
	}
	if v.TimeClosed != "" {
		v.TimeLastUpdated, v.CloseActionID = v.TimeClosed, b.Action.ID
	}
	v.HostBreakdown = hostView{MerchantName: b.MerchantName, Reference: b.ID, Amount: v.Amount, batchTotalsView: v.batchTotalsView}
	for _, brand := range b.Brands {
		v.BrandBreakdown = append(v.BrandBreakdown, brandView{
			Brand: brand.Brand, Amount: brand.Net(), batchTotalsView: newBatchTotalsView(brand.BatchTotals),
		})
	}
	return v
}

func (v resourceView) resourceID() string            { return v.ID }
func (v documentTransactionView) resourceID() string { return v.ID }
func (v OrderView) resourceID() string               { return v.ID }
func (v BatchView) resourceID() string               { return v.ID }

// transactionListView is a page of transactions as GP's reporting answers it.
type transactionListView struct {
	merchantAccountView
	pageHead
	Transactions []transactionSummaryView `json:"transactions"`
	Action       actionView               `json:"action"` // TRANSACTION_LIST [GP]
}

type pagingView struct {
	PageSize int    `json:"page_size"`
	Page     int    `json:"page"`
	Order    string `json:"order"`
	OrderBy  string `json:"order_by"`
}

// pageHead is what every list answers before its records: the page it was asked
// for and how many records match, of which how many it holds.
type pageHead struct {
	Paging           pagingView `json:"paging"`
	TotalRecordCount int        `json:"total_record_count"`
	CurrentPageSize  int        `json:"current_page_size"`
}

func newPageHead(p sandbox.Paging, total, size int) pageHead {
	return pageHead{Paging: pagingView(p), TotalRecordCount: total, CurrentPageSize: size}
}

// transactionSummaryView is one transaction of a list: the resource's members, with
// the card as reporting shows it (first six and last four digits), and a reference
// even when empty. A member the transaction's detail leaves out (a fixture's record
// without channel, account or card) the list leaves out too: one transaction, one
// set of facts in both views [SB].
type transactionSummaryView struct {
	TransactionHead
	Channel string `json:"channel,omitempty"`
	MoneyView
	summaryMerchantView
	Reference        string             `json:"reference"`
	ParentResourceID string             `json:"parent_resource_id,omitempty"`
	BatchID          string             `json:"batch_id"`
	PaymentMethod    summaryPaymentView `json:"payment_method"`
}

// summaryMerchantView is the merchant and account of a listed transaction: a
// fixture's record may name neither name nor account.
type summaryMerchantView struct {
	MerchantID   string `json:"merchant_id"`
	MerchantName string `json:"merchant_name,omitempty"`
	AccountID    string `json:"account_id,omitempty"`
	AccountName  string `json:"account_name,omitempty"`
}

type summaryPaymentView struct {
	Result    string          `json:"result"`
	Message   string          `json:"message"`
	EntryMode string          `json:"entry_mode,omitempty"`
	Name      string          `json:"name,omitempty"` // the cardholder's, which the name filter matches
	Card      summaryCardView `json:"card"`
}

type summaryCardView struct {
	Brand                   string `json:"brand,omitempty"`
	MaskedNumberFirst6Last4 string `json:"masked_number_first6last4,omitempty"`
	Authcode                string `json:"authcode"`
	BrandReference          string `json:"brand_reference"`
}

func newTransactionListView(p sandbox.TransactionPage) transactionListView {
	v := transactionListView{
		merchantAccountView: listHead(p.Merchant, p.Account),
		pageHead:            newPageHead(p.Query.Paging, p.Total, len(p.Transactions)),
		Transactions:        make([]transactionSummaryView, 0, len(p.Transactions)),
		Action:              newActionView(p.Action),
	}
	for _, t := range p.Transactions {
		v.Transactions = append(v.Transactions, newTransactionSummaryView(t))
	}
	return v
}

func newTransactionSummaryView(t sandbox.Transaction) transactionSummaryView {
	p := t.PaymentMethod
	return transactionSummaryView{
		TransactionHead: NewTransactionHead(t), Channel: t.Channel,
		MoneyView: TransactionMoney(t), summaryMerchantView: summaryMerchantView(t.Holder),
		Reference: t.Reference, ParentResourceID: t.ParentID, BatchID: t.BatchID,
		PaymentMethod: summaryPaymentView{
			Result: p.Result, Message: p.Message, EntryMode: p.EntryMode, Name: t.Card.Name,
			Card: summaryCardView{
				Brand: p.Card.Brand, MaskedNumberFirst6Last4: t.Card.MaskedFirst6Last4(), Authcode: p.Card.Authcode, BrandReference: p.Card.BrandReference,
			},
		},
	}
}

// paymentMethodResourceView is a card token, the answer of every /payment-methods
// operation [GP]. The create, edit and delete answers are read for card.masked_number_last4,
// a stored method's detail for card.number_last4: both are sent.
type paymentMethodResourceView struct {
	ID                   string `json:"id"`
	TimeCreated          string `json:"time_created"`
	TimeLastUpdated      string `json:"time_last_updated"`
	Status               string `json:"status"`
	UsageMode            string `json:"usage_mode"` // SINGLE or MULTIPLE: Java refuses any other value [GP]
	Reference            string `json:"reference,omitempty"`
	Name                 string `json:"name,omitempty"`
	*sandbox.Fingerprint        // a creation's fingerprint_mode: the SDKs read it at the top level (A134)
	merchantAccountView
	Card   tokenCardView `json:"card"`
	Action actionView    `json:"action"`
}

type tokenCardView struct {
	Brand             string `json:"brand,omitempty"`
	NumberLast4       string `json:"number_last4,omitempty"`
	MaskedNumberLast4 string `json:"masked_number_last4,omitempty"`
	ExpiryMonth       string `json:"expiry_month"` // numeric strings: Java and .NET parse them [GP]
	ExpiryYear        string `json:"expiry_year"`
}

func newStoredMethodView(pm sandbox.PaymentMethod) paymentMethodResourceView {
	return paymentMethodResourceView{
		ID: pm.ID, TimeCreated: sandbox.FormatTime(pm.TimeCreated), TimeLastUpdated: sandbox.FormatTime(pm.TimeLastUpdated),
		Status: pm.Status, UsageMode: pm.UsageMode, Reference: pm.Reference, Name: pm.Name,
		Fingerprint: pm.Fingerprint, merchantAccountView: merchantAccountView(pm.Holder),
		Card: tokenCardView{
			Brand: pm.Card.Brand, NumberLast4: storedNumberLast4(pm.Card), MaskedNumberLast4: pm.Card.MaskedLast4(),
			ExpiryMonth: pm.ExpiryMonth, ExpiryYear: pm.ExpiryYear,
		},
		Action: newActionView(pm.Action),
	}
}

func (v paymentMethodResourceView) resourceID() string { return v.ID }

// storedNumberLast4 is card.number_last4 of a stored card: the last four digits after
// twelve lower-case x, as GP sends it (the Java SDK's MapStoredPaymentMethodSummaryTest
// and ReportFindStoredPaymentMethodsPaged_By_NumberLast4) [GP].
func storedNumberLast4(c sandbox.StoredCard) string {
	if c.Last4 == "" {
		return ""
	}
	return "xxxxxxxxxxxx" + c.Last4
}

// DeviceRequestView is the device request resource: the answer of POST /devices. It
// never has a top-level data member (the Java and .NET SDKs would take it for a LAN
// reply), and has a response only once the terminal answered (COMPLETE or DECLINED).
type DeviceRequestView struct {
	ID          string `json:"id"`
	TimeCreated string `json:"time_created"`
	Status      string `json:"status"`
	Channel     string `json:"channel"`
	Currency    string `json:"currency"`
	Country     string `json:"country"`
	merchantAccountView
	Reference string           `json:"reference,omitempty"`
	Action    actionView       `json:"action"`
	Response  *upaResponseView `json:"response,omitempty"`
}

func (v DeviceRequestView) resourceID() string { return v.ID }

// upaResponseView is the terminal's UPA reply without its {"message":"MSG"} frame.
// Its data is a *upaDataView, or the parameters GetParam asked for, by name (the
// .NET SDK reads every member of GetParam's data as a parameter).
type upaResponseView struct {
	Response  string           `json:"response"`
	RequestID string           `json:"requestId"`
	EcrID     string           `json:"EcrId,omitempty"`
	CmdResult upaCmdResultView `json:"cmdResult"`
	Data      any              `json:"data,omitempty"`
}

type upaCmdResultView struct {
	Result       string `json:"result"`
	ErrorCode    string `json:"errorCode,omitempty"`
	ErrorMessage string `json:"errorMessage,omitempty"`
	BatteryLevel int    `json:"BatteryLevel,omitempty"` // GetBatteryPercentage, where the Java and .NET SDKs read it
}

// upaDataView is the data of a UPA reply: the host's, payment's and transaction's
// members of a payment, a batch record, or what a command that moves no money
// reports, each under the name the SDKs' parsers read. A list a parser walks is
// always there for its command, empty or not (the .NET SDK fails on a missing one).
type upaDataView struct {
	MerchantName       string                `json:"merchantName,omitempty"`
	Host               *upaHostView          `json:"host,omitempty"`
	Payment            *upaPaymentView       `json:"payment,omitempty"`
	Transaction        *upaAmountsView       `json:"transaction,omitempty"`
	BatchRecord        *upaBatchRecordView   `json:"batchRecord,omitempty"`
	DeviceSerialNum    string                `json:"deviceSerialNum,omitempty"`
	AppVersion         string                `json:"appVersion,omitempty"`
	OsVersion          string                `json:"OsVersion,omitempty"`
	EmvSdkVersion      string                `json:"EmvSdkVersion,omitempty"`
	CTLSSdkVersion     string                `json:"CTLSSdkVersion,omitempty"`
	DebugLevel         string                `json:"debugLevel,omitempty"`
	ConfigType         string                `json:"configType,omitempty"`
	FileContents       *string               `json:"fileContents,omitempty"`
	Length             *int                  `json:"length,omitempty"`
	ScanData           string                `json:"scanData,omitempty"`
	SignatureData      []byte                `json:"signatureData,omitempty"` // base64, as encoding/json writes bytes
	DataEncryptionType string                `json:"dataEncryptionType,omitempty"`
	AcquisitionType    string                `json:"acquisitionType,omitempty"`
	Button             int                   `json:"button,omitempty"`
	MenuSelected       int                   `json:"menuSelected,omitempty"`
	SafDetails         *[]struct{}           `json:"SafDetails,omitempty"`     // the sandbox stores nothing offline
	OpenTabs           *[]upaOpenTabView     `json:"OpenTabDetails,omitempty"` // .NET's spelling ...
	OpenTabsPHP        *[]upaOpenTabView     `json:"openTabDetails,omitempty"` // ... and PHP's, the same list [SB]
	BatchesAvail       *[]upaBatchNumberView `json:"batchesAvail,omitempty"`
}

// upaHostView: every integer the Java and .NET SDKs parse (gatewayResponseCode,
// batchId, batchSeqNbr) is an integer string; amounts are "11.00".
type upaHostView struct {
	ResponseID             string `json:"responseId,omitempty"`
	TranNo                 string `json:"tranNo,omitempty"`
	RespDateTime           string `json:"respDateTime,omitempty"`
	GatewayResponseCode    string `json:"gatewayResponseCode,omitempty"`
	GatewayResponseMessage string `json:"gatewayResponseMessage,omitempty"`
	ResponseCode           string `json:"responseCode,omitempty"`
	ResponseText           string `json:"responseText,omitempty"`
	ApprovalCode           string `json:"approvalCode,omitempty"`
	ReferenceNumber        string `json:"referenceNumber,omitempty"`
	BaseAmount             string `json:"baseAmount,omitempty"`
	TipAmount              string `json:"tipAmount,omitempty"`
	TotalAmount            string `json:"totalAmount,omitempty"`
	AuthorizedAmount       string `json:"authorizedAmount,omitempty"`
	BatchID                string `json:"batchId,omitempty"`
	BatchSeqNbr            string `json:"batchSeqNbr,omitempty"`
}

type upaPaymentView struct {
	CardType        string `json:"cardType,omitempty"`
	CardGroup       string `json:"cardGroup"`
	MaskedPan       string `json:"maskedPan,omitempty"`
	CardAcquisition string `json:"cardAcquisition"`
	TransactionType string `json:"transactionType"`
	StoreAndForward string `json:"storeAndForward"`
}

type upaAmountsView struct {
	BaseAmount  string `json:"baseAmount"`
	TipAmount   string `json:"tipAmount"`
	TotalAmount string `json:"totalAmount"`
}

// upaBatchRecordView: the PHP SDK types openTnxId and openUtcDateTime as strings,
// so both are always there.
type upaBatchRecordView struct {
	BatchID            string                  `json:"batchId"`
	BatchSeqNbr        string                  `json:"batchSeqNbr"`
	BatchStatus        string                  `json:"batchStatus"`
	OpenUTCDateTime    string                  `json:"openUtcDateTime"`
	CloseUTCDateTime   string                  `json:"closeUtcDateTime,omitempty"`
	OpenTnxID          string                  `json:"openTnxId"`
	TotalAmount        string                  `json:"totalAmount"`
	TotalCnt           int                     `json:"totalCnt"`
	TotalGratuityAmt   string                  `json:"totalGratuityAmt,omitempty"`
	BatchTransactions  []upaBatchBrandView     `json:"batchTransactions"`
	BatchDetailRecords *[]upaBatchDetailRecord `json:"batchDetailRecords,omitempty"`
}

type upaBatchBrandView struct {
	CardType    string `json:"cardType"`
	TotalAmount string `json:"totalAmount"`
	TotalCnt    int    `json:"totalCnt"`
}

type upaBatchDetailRecord struct {
	ReferenceNumber   string `json:"referenceNumber"`
	GatewayTxnID      string `json:"gatewayTxnId"`
	TransactionType   string `json:"transactionType"`
	TransactionStatus string `json:"transactionStatus"`
	RequestedAmount   string `json:"requestedAmount"`
	AuthorizedAmount  string `json:"authorizedAmount"`
	SettleAmount      string `json:"settleAmount"`
	TipAmount         string `json:"tipAmount"`
	ApprovalCode      string `json:"approvalCode,omitempty"`
	CardType          string `json:"cardType"`
	MaskedPan         string `json:"maskedPan"`
	CardAcquisition   string `json:"cardAcquisition"`
	ResponseCode      string `json:"responseCode"`
	ResponseText      string `json:"responseText"`
	TransactionTime   string `json:"transactionTime"`
}

type upaOpenTabView struct {
	ReferenceNumber  string `json:"referenceNumber"`
	AuthorizedAmount string `json:"authorizedAmount"`
	CardType         string `json:"cardType"`
	MaskedPan        string `json:"maskedPan"`
}

type upaBatchNumberView struct {
	BatchID string `json:"batchId"`
}

// NewDeviceRequestView is d as POST /devices answers it now.
func NewDeviceRequestView(d sandbox.DeviceRequest) DeviceRequestView {
	v := DeviceRequestView{
		ID: d.ID, TimeCreated: sandbox.FormatTime(d.TimeCreated), Status: d.Status, Channel: d.Channel,
		Currency: d.Currency, Country: d.Country, merchantAccountView: merchantAccountView(d.Holder),
		Reference: d.Reference, Action: newActionView(d.Action),
	}
	if r := d.Response; r != nil {
		v.Response = &upaResponseView{
			Response: d.Command.Command, RequestID: d.Command.RequestID, EcrID: d.Command.EcrID,
			CmdResult: upaCmdResultView{Result: r.Result, ErrorCode: r.ErrorCode, ErrorMessage: r.ErrorMessage},
		}
		if r.Report != nil {
			v.Response.CmdResult.BatteryLevel = r.Report.BatteryLevel
		}
		if data := newUPADataView(d.Command.Command, d.MerchantName, *r); data != nil {
			v.Response.Data = data
		}
		if d.Command.Command == "GetParam" && r.Report != nil {
			v.Response.Data = r.Report.Params
		}
	}
	return v
}

// newUPADataView is the data of the terminal's answer to command; nil when it has
// none.
func newUPADataView(command, merchantName string, r sandbox.UPAResponse) *upaDataView {
	v := &upaDataView{MerchantName: merchantName}
	if h := r.Host; h != nil {
		v.Host = &upaHostView{
			TranNo: h.TranNo, RespDateTime: h.RespDateTime, ResponseCode: h.ResponseCode, ResponseText: h.ResponseText,
			ApprovalCode: h.ApprovalCode, ReferenceNumber: h.ReferenceNumber, BatchID: h.BatchID,
		}
		switch {
		case r.Declined():
			v.Host.GatewayResponseMessage = r.ErrorMessage
		case h.TranNo != "": // a payment the terminal numbered
			v.Host.GatewayResponseCode, v.Host.GatewayResponseMessage = "00", "Success"
			v.Host.BaseAmount, v.Host.TipAmount = sandbox.MajorUnits(h.BaseAmount), sandbox.MajorUnits(h.TipAmount)
			v.Host.TotalAmount, v.Host.AuthorizedAmount = sandbox.MajorUnits(h.TotalAmount), sandbox.MajorUnits(h.AuthorizedAmount)
			v.Transaction = &upaAmountsView{BaseAmount: v.Host.BaseAmount, TipAmount: v.Host.TipAmount, TotalAmount: v.Host.TotalAmount}
		default:
			v.Host.GatewayResponseCode, v.Host.GatewayResponseMessage = "00", "Success"
		}
	}
	if p := r.Payment; p != nil {
		v.Payment = &upaPaymentView{
			CardType: p.CardType, CardGroup: "Credit", MaskedPan: p.MaskedPan, CardAcquisition: p.CardAcquisition,
			TransactionType: p.TransactionType, StoreAndForward: "0",
		}
	}
	if b := r.Batch; b != nil {
		v.Host = &upaHostView{
			BatchID: b.BatchID, BatchSeqNbr: b.BatchID, GatewayResponseCode: "00", GatewayResponseMessage: "Success",
			RespDateTime: cmp.Or(b.Closed, b.Opened),
		}
		v.BatchRecord = newUPABatchRecordView(*b)
	}
	if rep := r.Report; rep != nil {
		addUPAReport(v, *rep)
	}
	switch command {
	case "SendSAF", "GetSAFReport", "DeleteSAF":
		v.SafDetails = &[]struct{}{}
	case "GetOpenTabDetails", "AvailableBatches", "FindBatches":
		if r.Report == nil {
			return nil // refused before the report: no list to show
		}
	}
	if v.Host == nil && v.Payment == nil && v.BatchRecord == nil && r.Report == nil && v.SafDetails == nil {
		return nil
	}
	return v
}

// addUPAReport adds what a command that moves no money reports to v.
func addUPAReport(v *upaDataView, rep sandbox.UPAReport) {
	if a := rep.AppInfo; a != nil {
		v.DeviceSerialNum, v.AppVersion, v.OsVersion = a.SerialNumber, a.AppVersion, a.OSVersion
		v.EmvSdkVersion, v.CTLSSdkVersion = a.EMVVersion, a.CTLSVersion
	}
	if f := rep.File; f != nil {
		n := len(f.Contents)
		v.ConfigType, v.FileContents, v.Length = f.ConfigType, &f.Contents, &n
	}
	v.DebugLevel, v.ScanData, v.SignatureData = rep.DebugLevel, rep.ScanData, rep.Signature
	v.DataEncryptionType, v.AcquisitionType = rep.EncryptionType, rep.AcquisitionType
	v.Button, v.MenuSelected = rep.Button, rep.MenuSelected
	if rep.OpenTabs != nil {
		tabs := make([]upaOpenTabView, len(rep.OpenTabs))
		for i, t := range rep.OpenTabs {
			tabs[i] = upaOpenTabView{ReferenceNumber: t.TransactionID, AuthorizedAmount: sandbox.MajorUnits(t.AuthorizedAmount),
				CardType: t.CardType, MaskedPan: t.MaskedPan}
		}
		v.OpenTabs, v.OpenTabsPHP = &tabs, &tabs
	}
	if rep.Batches != nil {
		batches := make([]upaBatchNumberView, len(rep.Batches))
		for i, id := range rep.Batches {
			batches[i] = upaBatchNumberView{BatchID: id}
		}
		v.BatchesAvail = &batches
	}
}

func newUPABatchRecordView(b sandbox.UPABatch) *upaBatchRecordView {
	v := &upaBatchRecordView{
		BatchID: b.BatchID, BatchSeqNbr: b.BatchID, BatchStatus: b.Status, OpenUTCDateTime: b.Opened,
		CloseUTCDateTime: b.Closed, OpenTnxID: b.OpenedBy, TotalAmount: sandbox.MajorUnits(b.TotalAmount), TotalCnt: b.Count,
		BatchTransactions: make([]upaBatchBrandView, len(b.Brands)),
	}
	if b.TotalGratuity != "" {
		v.TotalGratuityAmt = sandbox.MajorUnits(b.TotalGratuity)
	}
	for i, br := range b.Brands {
		v.BatchTransactions[i] = upaBatchBrandView{CardType: br.Brand, TotalAmount: sandbox.MajorUnits(br.Net()), TotalCnt: br.Transactions()}
	}
	if b.RecordsAsked {
		records := make([]upaBatchDetailRecord, len(b.Records))
		for i, t := range b.Records {
			records[i] = upaBatchDetailRecord{
				ReferenceNumber: t.TransactionID, GatewayTxnID: t.TransactionID, TransactionType: t.Type, TransactionStatus: t.Status,
				RequestedAmount: sandbox.MajorUnits(t.Amount), AuthorizedAmount: sandbox.MajorUnits(t.AuthorizedAmount),
				SettleAmount: sandbox.MajorUnits(t.AuthorizedAmount), TipAmount: sandbox.MajorUnits(t.TipAmount),
				ApprovalCode: t.ApprovalCode, CardType: t.CardType, MaskedPan: t.MaskedPan, CardAcquisition: t.CardAcquisition,
				ResponseCode: t.ResponseCode, ResponseText: upaResponseText(t.ResponseCode), TransactionTime: t.Time,
			}
		}
		v.BatchDetailRecords = &records
	}
	return v
}

// upaResponseText is the host's text for an issuer result.
func upaResponseText(result string) string {
	if result == "00" {
		return "APPROVAL"
	}
	return "DECLINED"
}
