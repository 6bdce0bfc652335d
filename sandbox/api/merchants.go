package api

import (
	"fmt"
	"net/http"

	"github.com/gorilla/mux"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// Merchant boarding and the merchants' accounts, as the Java, .NET and PHP SDKs'
// PayFac and reporting builders call them.

// registerBoarding puts the boarding and account routes on r.
func (s *Server) registerBoarding(r *mux.Router) {
	r.Handle("/merchants", s.endpoint(createMerchant)).Methods(http.MethodPost)
	r.Handle("/merchants", s.endpoint(listMerchants)).Methods(http.MethodGet)
	r.Handle("/merchants/{merchant_id}", s.endpoint(getMerchant)).Methods(http.MethodGet)
	r.Handle("/merchants/{merchant_id}", s.endpoint(editMerchant)).Methods(http.MethodPatch)
	r.Handle("/merchants/{merchant_id}/documents", s.endpoint(uploadDocument)).Methods(http.MethodPost)
	r.Handle("/accounts", s.endpoint(listAccounts)).Methods(http.MethodGet)
	r.Handle("/merchants/{merchant_id}/accounts", s.endpoint(listAccounts)).Methods(http.MethodGet)
	r.Handle("/accounts/{id}", s.endpoint(getAccount)).Methods(http.MethodGet)
	r.Handle("/merchants/{merchant_id}/accounts/{id}", s.endpoint(getAccount)).Methods(http.MethodGet)
	r.Handle("/accounts/{id}", s.endpoint(editAccount)).Methods(http.MethodPatch)
	r.Handle("/merchants/{merchant_id}/accounts/{id}", s.endpoint(editAccount)).Methods(http.MethodPatch)
	r.Handle("/accounts/{id}/addresses", s.endpoint(lookupAddresses)).Methods(http.MethodGet)
	// Java puts its configured merchant before the lookup's path.
	r.Handle("/merchants/{merchant_id}/accounts/{id}/addresses", s.endpoint(lookupAddresses)).Methods(http.MethodGet)
}

// merchantBody is what POST /merchants and PATCH /merchants/{id} share: every member
// the SDKs' builders write [GP].
type merchantBody struct {
	LegalName         string `json:"legal_name" gp:"max=255"`
	DBA               string `json:"dba" gp:"max=255"`
	CategoryCode      string `json:"merchant_category_code" gp:"or-number,max=4"` // Java writes a number
	Website           string `json:"website" gp:"max=255"`
	Currency          string `json:"currency" gp:"currency"`
	TaxIDReference    string `json:"tax_id_reference" gp:"max=50"`
	NotificationEmail string `json:"notification_email" gp:"max=255"`
	Status            string `json:"status" gp:"enum=ACTIVE|INACTIVE|UNDER_REVIEW|DECLINED"`
	Notifications     struct {
		StatusURL string `json:"status_url" gp:"url,max=2048"`
	} `json:"notifications"`
	PricingProfile string             `json:"pricing_profile" gp:"max=255"`
	Description    string             `json:"description" gp:"max=255"`
	Addresses      []boardingAddress  `json:"addresses" gp:"max=10"`
	Statistics     statisticsBody     `json:"payment_processing_statistics"`
	PaymentMethods []payoutMethodBody `json:"payment_methods" gp:"max=10"`
	Persons        []personBody       `json:"persons" gp:"max=10"`
	Products       []boardingProduct  `json:"products" gp:"max=50"`
}

// createMerchantBody is a POST /merchants body: name and type are required [GP].
type createMerchantBody struct {
	Name string `json:"name" gp:"required,max=255"`
	Type string `json:"type" gp:"required,enum=MERCHANT"`
	merchantBody
}

// editMerchantBody is a PATCH /merchants/{id} body.
type editMerchantBody struct {
	Name               string `json:"name" gp:"max=255"`
	Type               string `json:"type" gp:"enum=MERCHANT"`
	StatusChangeReason string `json:"status_change_reason" gp:"enum=ACTIVE|CLOSED_BY_MERCHANT|CLOSED_BY_RISK|APPLICATION_DENIED|PENDING_REVIEW|PENDING_MERCHANT_CONSENT|PENDING_IDENTITY_VALIDATION|PENDING_IDENTITY_VALIDATION_AND_PAYMENT|PENDING_PAYMENT|UNKNOWN_STATUS|REMOVE_PARTNERSHIP"`
	merchantBody
}

type boardingAddress struct {
	Functions  []string `json:"functions" gp:"max=10"`
	Line1      string   `json:"line_1" gp:"max=255"`
	Line2      string   `json:"line_2" gp:"max=255"`
	Line3      string   `json:"line_3" gp:"max=255"`
	City       string   `json:"city" gp:"max=100"`
	State      string   `json:"state" gp:"max=100"`
	PostalCode string   `json:"postal_code" gp:"max=20"`
	Country    string   `json:"country" gp:"max=3"`
}

// statisticsBody: amounts as strings or numbers (Java writes numbers) [GP].
type statisticsBody struct {
	TotalMonthly string `json:"total_monthly_sales_amount" gp:"or-number,max=20"`
	Average      string `json:"average_ticket_sales_amount" gp:"or-number,max=20"`
	Highest      string `json:"highest_ticket_sales_amount" gp:"or-number,max=20"`
}

type phoneBody struct {
	CountryCode      string `json:"country_code" gp:"max=5"`
	SubscriberNumber string `json:"subscriber_number" gp:"max=20"`
}

type personBody struct {
	Functions           []string         `json:"functions" gp:"max=10"`
	FirstName           string           `json:"first_name" gp:"max=100"`
	MiddleName          string           `json:"middle_name" gp:"max=100"`
	LastName            string           `json:"last_name" gp:"max=100"`
	Email               string           `json:"email" gp:"max=255"`
	DateOfBirth         string           `json:"date_of_birth" gp:"max=30"`
	NationalIDReference string           `json:"national_id_reference" gp:"max=50"`
	EquityPercentage    string           `json:"equity_percentage" gp:"or-number,max=10"`
	JobTitle            string           `json:"job_title" gp:"max=100"`
	Address             *boardingAddress `json:"address"`
	ContactPhone        *phoneBody       `json:"contact_phone"`
	WorkPhone           *phoneBody       `json:"work_phone"`
}

type payoutMethodBody struct {
	Functions []string `json:"functions" gp:"or-one,max=10"` // PHP writes a card's as one string
	Name      string   `json:"name" gp:"max=255"`
	Bank      *struct {
		AccountHolderType string `json:"account_holder_type" gp:"max=50"`
		AccountNumber     string `json:"account_number" gp:"digits,max=34"`
		AccountType       string `json:"account_type" gp:"max=50"`
		Bank              struct {
			Name              string           `json:"name" gp:"max=255"`
			Code              string           `json:"code" gp:"max=50"`
			InternationalCode string           `json:"international_code" gp:"min=0,max=50"` // the SDKs send ""
			Address           *boardingAddress `json:"address"`
		} `json:"bank"`
	} `json:"bank_transfer"`
	Card          *payCardBody `json:"card"`
	Notifications struct {
		StatusURL string `json:"status_url" gp:"url,max=2048"` // PHP sends the config's; not used [SB]
	} `json:"notifications"`
}

// payCardBody: Java writes the expiry as numbers [GP].
type payCardBody struct {
	Name        string `json:"name" gp:"max=100"`
	Number      string `json:"number" gp:"digits,min=12,max=19"`
	ExpiryMonth count  `json:"expiry_month" gp:"or-string,min=1,max=12"`
	ExpiryYear  count  `json:"expiry_year" gp:"or-string,max=9999"`
	CVV         string `json:"cvv" gp:"digits,min=3,max=4"`
}

type boardingProduct struct {
	ID     string `json:"id" gp:"max=50"`
	Device *struct {
		Quantity int `json:"quantity" gp:"or-string,min=1,max=100"`
	} `json:"device"`
}

var createMerchant = operation{
	op:            sandbox.OpMerchantCreate,
	authenticated: true,
	handler: handle(func(s *Server, c *call, req createMerchantBody) (any, error) {
		if len(req.Persons) == 0 {
			return nil, sandbox.MissingFields(": email") // GP's words for a merchant without persons [GP]
		}
		d := req.domain(c)
		d.Name, d.Type = req.Name, req.Type
		v, err := s.svc.BoardMerchant(c.caller, d)
		if err != nil {
			return nil, err
		}
		return newMerchantView(v), nil
	}),
}

var editMerchant = operation{
	op:            sandbox.OpMerchantEdit,
	authenticated: true,
	pathIDs:       []string{"merchant_id"},
	handler: handle(func(s *Server, c *call, req editMerchantBody) (any, error) {
		d := req.domain(c)
		d.Name, d.Type, d.StatusChangeReason = req.Name, req.Type, req.StatusChangeReason
		v, err := s.svc.EditMerchant(c.caller, c.vars["merchant_id"], d)
		if err != nil {
			return nil, err
		}
		return newMerchantView(v), nil
	}),
}

var getMerchant = read(sandbox.OpMerchantDetail, []string{"merchant_id"}, func(s *Server, c *call) (any, error) {
	v, err := s.svc.ReadMerchant(c.caller, c.vars["merchant_id"])
	if err != nil {
		return nil, err
	}
	return newMerchantView(v), nil
})

var listMerchants = read(sandbox.OpMerchantList, nil, func(s *Server, c *call) (any, error) {
	r, err := newQueryReader(c)
	if err != nil {
		return nil, err
	}
	q := sandbox.MerchantQuery{Paging: r.paging("TIME_CREATED", "ASC", "TIME_CREATED")}
	r.choice("status", &q.Status, sandbox.MerchantStatuses()...)
	r.date("from_time_created", &q.From)
	if r.err != nil {
		return nil, r.err
	}
	page, err := s.svc.ListMerchants(c.caller, q)
	if err != nil {
		return nil, err
	}
	return newMerchantListView(page), nil
})

// documentBody is a POST /merchants/{id}/documents body. Each member is GP's 40251
// when missing, not the 40005 of other requests; .NET sends a category left unset as
// an empty function, which is missing too [GP: .NET UploadMerchantDocs_MissingDocCategory,
// _MissingDocBaseContent]. JPG is .NET's name, JPEG PHP's and Java's.
type documentBody struct {
	Function string `json:"function" gp:"min=0,enum=IDENTITY_VERIFICATION|RISK_REVIEW|UNDERWRITING"`
	Content  string `json:"b64_content" gp:"max=14000000"`
	Format   string `json:"format" gp:"enum=TIF|TIFF|PDF|BMP|JPG|JPEG|GIF|PNG|DOC|DOCX"`
}

var uploadDocument = operation{
	op:            sandbox.OpMerchantDocument,
	authenticated: true,
	pathIDs:       []string{"merchant_id"},
	handler: handle(func(s *Server, c *call, req documentBody) (any, error) {
		switch {
		case req.Format == "":
			return nil, sandbox.DocumentFieldMissing("format")
		case req.Function == "":
			return nil, sandbox.DocumentFieldMissing("function")
		case req.Content == "":
			return nil, sandbox.DocumentFieldMissing("b64_content")
		}
		v, err := s.svc.UploadDocument(c.caller, c.vars["merchant_id"], sandbox.UploadRequest{
			Function: req.Function, Format: req.Format, Content: req.Content, Idempotency: c.idem,
		})
		if err != nil {
			return nil, err
		}
		return newDocumentView(v), nil
	}),
}

var listAccounts = read(sandbox.OpAccountList, []string{"merchant_id"}, func(s *Server, c *call) (any, error) {
	r, err := newQueryReader(c)
	if err != nil {
		return nil, err
	}
	q := sandbox.AccountQuery{
		MerchantID: c.vars["merchant_id"], Paging: r.paging("TIME_CREATED", "ASC", "TIME_CREATED"),
		Name: r.v.Get("name"), ID: r.v.Get("id"),
	}
	r.choice("status", &q.Status, sandbox.MerchantActive, sandbox.MerchantInactive)
	r.date("from_time_created", &q.From)
	r.date("to_time_created", &q.To)
	if r.err != nil {
		return nil, r.err
	}
	page, err := s.svc.ListAccounts(c.caller, q)
	if err != nil {
		return nil, err
	}
	return newAccountListView(page), nil
})

var getAccount = read(sandbox.OpAccountDetail, []string{"merchant_id", "id"}, func(s *Server, c *call) (any, error) {
	a, err := s.svc.ReadAccount(c.caller, c.vars["merchant_id"], c.vars["id"])
	if err != nil {
		return nil, err
	}
	return NewMerchantAccountView(a), nil
})

// accountEditBody is an account PATCH: the payer's card and billing address, each
// required with the member GP names [GP].
type accountEditBody struct {
	Payer struct {
		PaymentMethod struct {
			Name string       `json:"name" gp:"max=100"`
			Card *payCardBody `json:"card"`
		} `json:"payment_method"`
		BillingAddress boardingAddress `json:"billing_address"`
	} `json:"payer"`
}

var editAccount = operation{
	op:            sandbox.OpAccountEdit,
	authenticated: true,
	pathIDs:       []string{"merchant_id", "id"},
	handler: handle(func(s *Server, c *call, req accountEditBody) (any, error) {
		pm, addr := req.Payer.PaymentMethod, req.Payer.BillingAddress
		switch {
		case pm.Name == "":
			return nil, sandbox.MissingFields("payer.payment_method.name")
		case addr.Line1 == "":
			return nil, sandbox.MissingFields("payer.billing_address.line_1")
		}
		edit := sandbox.AccountEdit{Idempotency: c.idem, BillingAddress: addr.domain()}
		if pm.Card != nil {
			edit.Card = pm.Card.domain()
		}
		edit.Card.Name = pm.Name
		e, err := s.svc.EditAccount(c.caller, c.vars["merchant_id"], c.vars["id"], edit)
		if err != nil {
			return nil, err
		}
		v := NewMerchantAccountView(e.Account)
		a := newActionView(e.Action)
		v.Action = &a
		return v, nil
	}),
}

var lookupAddresses = read(sandbox.OpAddressList, []string{"merchant_id", "id"}, func(s *Server, c *call) (any, error) {
	r, err := newQueryReader(c)
	if err != nil {
		return nil, err
	}
	q := sandbox.AddressQuery{
		AccountID:  c.vars["id"],
		PostalCode: r.v.Get("postal_code"), Line1: r.v.Get("line_1"), Line2: r.v.Get("line_2"),
	}
	if q.Paging = r.paging("", "", "TIME_CREATED"); r.err != nil {
		return nil, r.err
	}
	page, err := s.svc.LookupAddresses(c.caller, q)
	if err != nil {
		return nil, err
	}
	return newAddressListView(page), nil
})

// domain converts the members both boarding bodies share.
func (b merchantBody) domain(c *call) sandbox.BoardingRequest {
	out := sandbox.BoardingRequest{
		LegalName: b.LegalName, DBA: b.DBA, CategoryCode: b.CategoryCode, Website: b.Website,
		Currency: b.Currency, TaxIDReference: b.TaxIDReference, NotificationEmail: b.NotificationEmail,
		StatusURL: b.Notifications.StatusURL, Status: b.Status, PricingProfile: b.PricingProfile,
		Description: b.Description, Version: c.version, Idempotency: c.idem,
	}
	for _, a := range b.Addresses {
		out.Addresses = append(out.Addresses, a.domain())
	}
	if st := b.Statistics; st != (statisticsBody{}) {
		out.Statistics = map[string]string{}
		for k, v := range map[string]string{"total_monthly_sales_amount": st.TotalMonthly,
			"average_ticket_sales_amount": st.Average, "highest_ticket_sales_amount": st.Highest} {
			if v != "" {
				out.Statistics[k] = v
			}
		}
	}
	for _, p := range b.Persons {
		out.Persons = append(out.Persons, p.domain())
	}
	for _, p := range b.PaymentMethods {
		out.PaymentMethods = append(out.PaymentMethods, p.domain())
	}
	for _, p := range b.Products {
		prod := sandbox.OrderProduct{ID: p.ID}
		if p.Device != nil {
			prod.Quantity = p.Device.Quantity
		}
		out.Products = append(out.Products, prod)
	}
	return out
}

func (a boardingAddress) domain() sandbox.BoardingAddress {
	return sandbox.BoardingAddress{
		Functions: a.Functions, Line1: a.Line1, Line2: a.Line2, Line3: a.Line3,
		City: a.City, State: a.State, PostalCode: a.PostalCode, Country: a.Country,
	}
}

func (p *phoneBody) domain() *sandbox.Phone {
	if p == nil {
		return nil
	}
	return &sandbox.Phone{CountryCode: p.CountryCode, SubscriberNumber: p.SubscriberNumber}
}

func (p personBody) domain() sandbox.Person {
	out := sandbox.Person{
		Functions: p.Functions, FirstName: p.FirstName, MiddleName: p.MiddleName, LastName: p.LastName,
		Email: p.Email, DateOfBirth: p.DateOfBirth, NationalIDReference: p.NationalIDReference,
		EquityPercentage: p.EquityPercentage, JobTitle: p.JobTitle,
		ContactPhone: p.ContactPhone.domain(), WorkPhone: p.WorkPhone.domain(),
	}
	if p.Address != nil {
		a := p.Address.domain()
		out.Address = &a
	}
	return out
}

// domain carries the numbers as sent: the domain masks them where it keeps them.
func (p payoutMethodBody) domain() sandbox.PayoutMethod {
	out := sandbox.PayoutMethod{Functions: p.Functions, Name: p.Name}
	if b := p.Bank; b != nil {
		out.Bank = &sandbox.Bank{
			AccountHolderType: b.AccountHolderType, AccountNumber: b.AccountNumber, AccountType: b.AccountType,
			BankName: b.Bank.Name, Code: b.Bank.Code,
		}
		if b.Bank.Address != nil {
			a := b.Bank.Address.domain()
			out.Bank.Address = &a
		}
	}
	if p.Card != nil {
		c := p.Card.domain()
		out.Card = &c
	}
	return out
}

// domain drops the CVV; the number is masked where the record is built.
func (c payCardBody) domain() sandbox.PayCard {
	month := ""
	if c.ExpiryMonth > 0 {
		month = fmt.Sprintf("%02d", int(c.ExpiryMonth))
	}
	return sandbox.PayCard{Name: c.Name, Number: c.Number, ExpiryMonth: month, ExpiryYear: c.ExpiryYear.digits()}
}
