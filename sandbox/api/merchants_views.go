package api

import (
	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// The boarding and account views: members as the SDKs' mappers read them
// (GpApiMapping's merchant, account and document mappers in PHP, Java and .NET).

// MerchantView is a merchant: the answer of POST, GET and PATCH /merchants[/{id}].
// The PHP mapper reads each person's names and email without a default, so they are
// always written [GP].
type MerchantView struct {
	ID                string                    `json:"id"`
	Name              string                    `json:"name"`
	Type              string                    `json:"type"`
	Status            string                    `json:"status"`
	StatusDescription string                    `json:"status_description,omitempty"`
	TimeCreated       string                    `json:"time_created"`
	TimeLastUpdated   string                    `json:"time_last_updated"`
	LegalName         string                    `json:"legal_name,omitempty"`
	DBA               string                    `json:"dba,omitempty"`
	CategoryCode      string                    `json:"merchant_category_code,omitempty"`
	Website           string                    `json:"website,omitempty"`
	Currency          string                    `json:"currency,omitempty"`
	TaxIDReference    string                    `json:"tax_id_reference,omitempty"`
	NotificationEmail string                    `json:"notification_email,omitempty"`
	Description       string                    `json:"description,omitempty"`
	Notifications     *statusURLView            `json:"notifications,omitempty"`
	Addresses         []sandbox.BoardingAddress `json:"addresses"`
	Persons           []sandbox.Person          `json:"persons"`
	PaymentMethods    []payoutView              `json:"payment_methods"`
	Statistics        map[string]string         `json:"payment_processing_statistics,omitempty"`
	Products          []boardedProductView      `json:"products"`
	Action            *actionView               `json:"action,omitempty"` // none in the admin API's answers
}

func (v MerchantView) resourceID() string { return v.ID }

type statusURLView struct {
	StatusURL string `json:"status_url"`
}

// addressViews answers the addresses as kept (sandbox.BoardingAddress's tags are
// GP's members), an empty array for none.
func addressViews(as []sandbox.BoardingAddress) []sandbox.BoardingAddress {
	if as == nil {
		return []sandbox.BoardingAddress{}
	}
	return as
}

// payoutView is a payment method of a merchant: bank numbers and card numbers masked.
type payoutView struct {
	Functions []string     `json:"functions"`
	Name      string       `json:"name,omitempty"`
	Bank      *bankView    `json:"bank_transfer,omitempty"`
	Card      *payCardView `json:"card,omitempty"`
}

type bankView struct {
	AccountHolderType string `json:"account_holder_type,omitempty"`
	AccountNumber     string `json:"account_number"` // masked: last four digits
	AccountType       string `json:"account_type,omitempty"`
	Bank              struct {
		Name    string                   `json:"name,omitempty"`
		Code    string                   `json:"code,omitempty"`
		Address *sandbox.BoardingAddress `json:"address,omitempty"`
	} `json:"bank"`
}

type payCardView struct {
	Name        string `json:"name,omitempty"`
	Number      string `json:"number"` // masked: first six and last four
	ExpiryMonth string `json:"expiry_month,omitempty"`
	ExpiryYear  string `json:"expiry_year,omitempty"`
}

type boardedProductView struct {
	ID     string        `json:"id"`
	Device *quantityView `json:"device,omitempty"`
}

type quantityView struct {
	Quantity int `json:"quantity"`
}

func newMerchantView(v sandbox.MerchantView) MerchantView {
	m, b := v.Merchant, v.Merchant.Profile()
	out := MerchantView{
		ID: m.ID, Name: m.Name, Type: b.Type, Status: b.StatusAt(v.Now), StatusDescription: b.DescriptionAt(v.Now),
		TimeCreated: sandbox.FormatOptionalTime(b.TimeCreated), TimeLastUpdated: sandbox.FormatOptionalTime(b.TimeLastUpdated),
		LegalName: b.LegalName, DBA: b.DBA, CategoryCode: b.CategoryCode, Website: b.Website,
		Currency: b.Currency, TaxIDReference: b.TaxIDReference, NotificationEmail: b.NotificationEmail,
		Description: b.Description, Addresses: addressViews(b.Addresses), Persons: []sandbox.Person{},
		PaymentMethods: []payoutView{}, Statistics: b.Statistics, Products: []boardedProductView{},
	}
	if v.Action.ID != "" {
		a := newActionView(v.Action)
		out.Action = &a
	}
	if b.StatusURL != "" {
		out.Notifications = &statusURLView{StatusURL: b.StatusURL}
	}
	for _, p := range b.Persons {
		out.Persons = append(out.Persons, newPersonView(p))
	}
	for _, p := range b.PaymentMethods {
		out.PaymentMethods = append(out.PaymentMethods, newPayoutView(p))
	}
	for _, p := range b.Products {
		pv := boardedProductView{ID: p.ID}
		if p.Quantity > 0 {
			pv.Device = &quantityView{Quantity: p.Quantity}
		}
		out.Products = append(out.Products, pv)
	}
	return out
}

// newPersonView is p as kept, with its functions an array even when it has none.
func newPersonView(p sandbox.Person) sandbox.Person {
	if p.Functions == nil {
		p.Functions = []string{}
	}
	return p
}

func newPayoutView(p sandbox.PayoutMethod) payoutView {
	out := payoutView{Functions: p.Functions, Name: p.Name}
	if out.Functions == nil {
		out.Functions = []string{}
	}
	if b := p.Bank; b != nil {
		out.Bank = &bankView{AccountHolderType: b.AccountHolderType, AccountNumber: b.MaskedAccountNumber, AccountType: b.AccountType}
		out.Bank.Bank.Name, out.Bank.Bank.Code = b.BankName, b.Code
		if b.Address != nil {
			out.Bank.Bank.Address = b.Address
		}
	}
	if c := p.Card; c != nil {
		out.Card = &payCardView{Name: c.Name, Number: c.MaskedNumber, ExpiryMonth: c.ExpiryMonth, ExpiryYear: c.ExpiryYear}
	}
	return out
}

// merchantListView is a page of merchants [GP: the `merchants` array, paging members].
type merchantListView struct {
	pageHead
	Merchants []merchantSummaryView `json:"merchants"`
}

type merchantSummaryView struct {
	ID     string     `json:"id"`
	Name   string     `json:"name"`
	Status string     `json:"status"`
	Links  []linkView `json:"links"`
}

type linkView struct {
	Rel  string `json:"rel"`
	Href string `json:"href"`
}

func newMerchantListView(p sandbox.MerchantPage) merchantListView {
	out := merchantListView{
		pageHead:  newPageHead(p.Query.Paging, p.Total, len(p.Merchants)),
		Merchants: []merchantSummaryView{},
	}
	for _, m := range p.Merchants {
		out.Merchants = append(out.Merchants, merchantSummaryView{
			ID: m.ID, Name: m.Name, Status: m.Profile().StatusAt(p.Now),
			Links: []linkView{{Rel: "MERCHANT", Href: "/merchants/" + m.ID}, {Rel: "ACCOUNTS", Href: "/merchants/" + m.ID + "/accounts"}},
		})
	}
	return out
}

// documentView is an upload's answer [GP: PHP's DOCUMENT_UPLOAD mapping]: no content.
type documentView struct {
	ID           string     `json:"id"`
	Name         string     `json:"name"`
	Status       string     `json:"status"`
	TimeCreated  string     `json:"time_created"`
	MerchantID   string     `json:"merchant_id"`
	MerchantName string     `json:"merchant_name"`
	Format       string     `json:"format"`
	Function     string     `json:"function"`
	Action       actionView `json:"action"`
}

func (v documentView) resourceID() string { return v.ID }

func newDocumentView(v sandbox.DocumentView) documentView {
	d := v.Document
	return documentView{
		ID: d.ID, Name: d.Name, Status: d.Status, TimeCreated: sandbox.FormatTime(d.TimeCreated),
		MerchantID: v.Merchant.ID, MerchantName: v.Merchant.Name, Format: d.Format, Function: d.Function,
		Action: newActionView(v.Action),
	}
}

// MerchantAccountView is one account [GP: the mappers' MerchantAccountSummary].
type MerchantAccountView struct {
	ID             string                    `json:"id"`
	Type           string                    `json:"type"`
	Name           string                    `json:"name"`
	Status         string                    `json:"status"`
	TimeCreated    string                    `json:"time_created"`
	MerchantID     string                    `json:"merchant_id"`
	Permissions    []string                  `json:"permissions"`
	Countries      []string                  `json:"countries"`
	Channels       []string                  `json:"channels"`
	Currencies     []string                  `json:"currencies"`
	PaymentMethods []string                  `json:"payment_methods"`
	Configurations []string                  `json:"configurations"`
	Addresses      []sandbox.BoardingAddress `json:"addresses"`
	Payer          *payerView                `json:"payer,omitempty"`
	Action         *actionView               `json:"action,omitempty"` // an edit's
}

func (v MerchantAccountView) resourceID() string { return v.ID }

type payerView struct {
	PaymentMethod  *payCardView             `json:"payment_method,omitempty"`
	BillingAddress *sandbox.BoardingAddress `json:"billing_address,omitempty"`
}

func NewMerchantAccountView(a sandbox.MerchantAccount) MerchantAccountView {
	list := func(s []string) []string {
		if s == nil {
			return []string{}
		}
		return s
	}
	out := MerchantAccountView{
		ID: a.ID, Type: a.Type, Name: a.Name, Status: a.Status, TimeCreated: sandbox.FormatOptionalTime(a.TimeCreated),
		MerchantID: a.MerchantID, Permissions: list(a.Permissions), Countries: list(a.Countries),
		Channels: list(a.Channels), Currencies: list(a.Currencies), PaymentMethods: list(sandbox.AccountPaymentMethods(a.Type)),
		Configurations: []string{}, Addresses: addressViews(a.Addresses),
	}
	if p := a.Payer; p != nil {
		out.Payer = &payerView{}
		if c := p.Card; c != nil {
			out.Payer.PaymentMethod = &payCardView{Name: c.Name, Number: c.MaskedNumber, ExpiryMonth: c.ExpiryMonth, ExpiryYear: c.ExpiryYear}
		}
		if p.BillingAddress != nil {
			out.Payer.BillingAddress = p.BillingAddress
		}
	}
	return out
}

// accountListView is a page of accounts [GP: the `accounts` array].
type accountListView struct {
	pageHead
	Accounts []MerchantAccountView `json:"accounts"`
}

func newAccountListView(p sandbox.AccountPage) accountListView {
	out := accountListView{
		pageHead: newPageHead(p.Query.Paging, p.Total, len(p.Accounts)),
		Accounts: []MerchantAccountView{},
	}
	for _, a := range p.Accounts {
		out.Accounts = append(out.Accounts, NewMerchantAccountView(a))
	}
	return out
}

// addressListView is an address lookup's answer: the account and the addresses found,
// read by the SDKs' account mapper [GP]. Unlike the other lists it has no
// current_page_size, and its paging block names no order (the lookup has none, though
// the query's order and order_by are checked): it is no pageHead.
type addressListView struct {
	ID               string                    `json:"id"`
	Paging           pagingView                `json:"paging"`
	TotalRecordCount int                       `json:"total_record_count"`
	Addresses        []sandbox.BoardingAddress `json:"addresses"`
	Action           actionView                `json:"action"`
}

func newAddressListView(p sandbox.AddressPage) addressListView {
	return addressListView{
		ID: p.Query.AccountID, Paging: pagingView{PageSize: p.Query.PageSize, Page: p.Query.Page},
		TotalRecordCount: p.Total, Addresses: addressViews(p.Addresses), Action: newActionView(p.Action),
	}
}

// NewAdminMerchantView is a merchant as GET /merchants/{id} shows it, for the admin
// API's answers: no action of an app.
func NewAdminMerchantView(v sandbox.MerchantView) MerchantView { return newMerchantView(v) }
