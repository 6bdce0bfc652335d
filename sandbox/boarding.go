package sandbox

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox/carddata"
)

// Merchant boarding: a partner boards a merchant (POST /merchants), reads and edits
// it, uploads its documents; the merchant gets its accounts and, for each card-present
// product with a device quantity, a device order on the order path (order.go).

// The boarding and account operations, named as scenarios and the journal name them.
const (
	OpMerchantCreate   Operation = "merchant_create"   // POST /merchants
	OpMerchantDetail   Operation = "merchant_detail"   // GET /merchants/{id}
	OpMerchantList     Operation = "merchant_list"     // GET /merchants
	OpMerchantEdit     Operation = "merchant_edit"     // PATCH /merchants/{id}
	OpMerchantDocument Operation = "merchant_document" // POST /merchants/{id}/documents
	OpAccountList      Operation = "account_list"      // GET /accounts, /merchants/{id}/accounts
	OpAccountDetail    Operation = "account_detail"    // GET /accounts/{id}, /merchants/{id}/accounts/{id}
	OpAccountEdit      Operation = "account_edit"      // PATCH /merchants/{id}/accounts/{id}
	OpAddressList      Operation = "address_list"      // GET /accounts/{id}/addresses
)

// BoardingOperations lists the boarding and account operations.
var BoardingOperations = []Operation{
	OpMerchantCreate, OpMerchantDetail, OpMerchantList, OpMerchantEdit, OpMerchantDocument,
	OpAccountList, OpAccountDetail, OpAccountEdit, OpAddressList,
}

// The permissions of the merchant-management account that guard them. GP's names for
// these are not published; ours follow its pattern [SB].
const (
	PermMerchantCreate   = "MMA_POST_Create"
	PermMerchantSingle   = "MMA_GET_Single"
	PermMerchantList     = "MMA_GET_List"
	PermMerchantEdit     = "MMA_PATCH_Edit"
	PermMerchantDocument = "MMA_POST_Document"
	PermAccountList      = "MMA_GET_Account_List"
	PermAccountSingle    = "MMA_GET_Account_Single"
	PermAccountEdit      = "MMA_PATCH_Account_Edit"
	PermAddressList      = "MMA_GET_Address_List"
)

// backOfficePermissions are the permissions the back office's operations need, as a
// GP access token lists them on its merchant-management, settlement-reporting
// (DAA_), dispute-management (DIA_) and tokenization accounts [GP: a recorded token
// answer]. The rate lookup names none GP shows, and needs only a token [SB].
var backOfficePermissions = map[Operation]string{
	OpMerchantCreate: PermMerchantCreate, OpMerchantDetail: PermMerchantSingle,
	OpMerchantList: PermMerchantList, OpMerchantEdit: PermMerchantEdit,
	OpMerchantDocument: PermMerchantDocument, OpAccountList: PermAccountList,
	OpAccountDetail: PermAccountSingle, OpAccountEdit: PermAccountEdit, OpAddressList: PermAddressList,

	OpSettlementTransactionList: "TRN_GET_List_Funded",
	OpDepositList:               "DEP_GET_List", OpDepositDetail: "DEP_GET_Single",
	OpSettlementDisputeList: "DIS_GET_List_Funded", OpSettlementDisputeDetail: "DIS_GET_Single_Funded",
	OpDisputeList: "DIS_GET_Lists", OpDisputeDetail: "DIS_GET_Single", OpDisputeDocument: "DIS_GET_Single",
	OpDisputeAcceptance: "DIS_POST_Accept", OpDisputeChallenge: "DIS_POST_Challenge",
	OpActionList: "ACT_GET_List", OpActionDetail: "ACT_GET_Single",
	OpPaymentMethodList: "PMT_GET_List", OpPaymentMethodSearch: "PMT_POST_Search",
}

// authorizeBackOffice checks a back-office operation's permission; ok is false for
// any other operation.
func authorizeBackOffice(c Caller, op Operation) (err error, ok bool) {
	perm, ok := backOfficePermissions[op]
	if !ok {
		return nil, false
	}
	if c.Token.Has(perm) {
		return nil, true
	}
	return PermissionDenied(), true
}

// Merchant statuses [GP]; ReviewDelay is how long a new or edited merchant stays
// UNDER_REVIEW on the sandbox clock before it reads ACTIVE [SB].
const (
	MerchantActive      = "ACTIVE"
	MerchantInactive    = "INACTIVE"
	MerchantUnderReview = "UNDER_REVIEW"
	MerchantDeclined    = "DECLINED"

	ReviewDelay = 24 * time.Hour
)

// MerchantStatuses lists the statuses a merchant can have.
func MerchantStatuses() []string {
	return []string{MerchantActive, MerchantInactive, MerchantUnderReview, MerchantDeclined}
}

// Boarding is what a merchant was boarded (or last edited) with, beside the Merchant's
// own id and name. Bank account numbers are kept masked (maskedBank); card numbers
// as first six and last four; CVVs never.
type Boarding struct {
	Status            string    `json:"status"`
	StatusDescription string    `json:"status_description,omitempty"`
	ReviewUntil       time.Time `json:"review_until,omitempty"` // UNDER_REVIEW reads ACTIVE from then on
	Type              string    `json:"type,omitempty"`
	TimeCreated       time.Time `json:"time_created"`
	TimeLastUpdated   time.Time `json:"time_last_updated"`
	AppID             string    `json:"app_id,omitempty"` // the app that boarded it

	LegalName         string             `json:"legal_name,omitempty"`
	DBA               string             `json:"dba,omitempty"`
	CategoryCode      string             `json:"merchant_category_code,omitempty"`
	Website           string             `json:"website,omitempty"`
	Currency          string             `json:"currency,omitempty"`
	TaxIDReference    string             `json:"tax_id_reference,omitempty"`
	NotificationEmail string             `json:"notification_email,omitempty"`
	StatusURL         string             `json:"status_url,omitempty"`
	Description       string             `json:"description,omitempty"`
	Addresses         []BoardingAddress  `json:"addresses,omitempty"`
	Persons           []Person           `json:"persons,omitempty"`
	PaymentMethods    []PayoutMethod     `json:"payment_methods,omitempty"`
	Statistics        map[string]string  `json:"payment_processing_statistics,omitempty"`
	Products          []OrderProduct     `json:"products,omitempty"`
	OrderIDs          []string           `json:"order_ids,omitempty"`
	Documents         []MerchantDocument `json:"documents,omitempty"`
}

// StatusAt is the merchant's status on the sandbox clock: UNDER_REVIEW turns ACTIVE
// once its review is over.
func (b Boarding) StatusAt(now time.Time) string {
	if b.Status == MerchantUnderReview && !b.ReviewUntil.IsZero() && !now.Before(b.ReviewUntil) {
		return MerchantActive
	}
	return b.Status
}

// DescriptionAt is the status description that goes with StatusAt.
func (b Boarding) DescriptionAt(now time.Time) string {
	if b.StatusAt(now) != b.Status {
		return ""
	}
	return b.StatusDescription
}

// BoardingAddress is an address of a merchant, a person, a bank or an account.
type BoardingAddress struct {
	Functions  []string `json:"functions,omitempty"`
	Line1      string   `json:"line_1,omitempty"`
	Line2      string   `json:"line_2,omitempty"`
	Line3      string   `json:"line_3,omitempty"`
	City       string   `json:"city,omitempty"`
	State      string   `json:"state,omitempty"`
	PostalCode string   `json:"postal_code,omitempty"`
	Country    string   `json:"country,omitempty"`
}

// Phone is a phone number as GP splits it, and answers it: both members always.
type Phone struct {
	CountryCode      string `json:"country_code"`
	SubscriberNumber string `json:"subscriber_number"`
}

// Person is one person of a merchant (applicant, owner ...), kept as sent and
// answered as kept: its tags are GP's members, the first five always sent (the API
// answers no functions as []).
type Person struct {
	Functions           []string         `json:"functions"`
	FirstName           string           `json:"first_name"`
	MiddleName          string           `json:"middle_name"`
	LastName            string           `json:"last_name"`
	Email               string           `json:"email"`
	DateOfBirth         string           `json:"date_of_birth,omitempty"`
	NationalIDReference string           `json:"national_id_reference,omitempty"`
	EquityPercentage    string           `json:"equity_percentage,omitempty"`
	JobTitle            string           `json:"job_title,omitempty"`
	Address             *BoardingAddress `json:"address,omitempty"`
	ContactPhone        *Phone           `json:"contact_phone,omitempty"`
	WorkPhone           *Phone           `json:"work_phone,omitempty"`
}

// PayoutMethod is a merchant's payment method: a bank account or a card. Number is
// the input only: the record keeps the masked forms.
type PayoutMethod struct {
	Functions []string `json:"functions,omitempty"`
	Name      string   `json:"name,omitempty"`
	Bank      *Bank    `json:"bank_transfer,omitempty"`
	Card      *PayCard `json:"card,omitempty"`
}

// Bank is a bank account of a payout method. AccountNumber is the input only;
// MaskedAccountNumber keeps its last four digits.
type Bank struct {
	AccountHolderType   string           `json:"account_holder_type,omitempty"`
	AccountNumber       string           `json:"-"`
	MaskedAccountNumber string           `json:"masked_account_number,omitempty"`
	AccountType         string           `json:"account_type,omitempty"`
	BankName            string           `json:"bank_name,omitempty"`
	Code                string           `json:"code,omitempty"` // the routing number, not secret
	Address             *BoardingAddress `json:"address,omitempty"`
}

// PayCard is a card of a payout method or an account. Number is the input only.
type PayCard struct {
	Name         string `json:"name,omitempty"`
	Number       string `json:"-"`
	MaskedNumber string `json:"masked_number,omitempty"`
	ExpiryMonth  string `json:"expiry_month,omitempty"`
	ExpiryYear   string `json:"expiry_year,omitempty"`
}

// masked is the card as a record keeps it.
func (c *PayCard) masked() *PayCard {
	if c == nil {
		return nil
	}
	kept := *c
	if c.Number != "" {
		kept.MaskedNumber = carddata.MaskNumber(c.Number)
	}
	kept.Number = ""
	return &kept
}

// MaskAccountNumber keeps the last four characters of a number or id, the rest as X:
// a bank account number, a masked card number shown by its last four, an account id
// shown to a restricted token.
func MaskAccountNumber(n string) string {
	if len(n) <= 4 {
		return strings.Repeat("X", len(n))
	}
	return strings.Repeat("X", len(n)-4) + n[len(n)-4:]
}

// Masked is the payout method as a record keeps it: its bank account number as its
// last four digits, its card number as first six and last four.
func (p PayoutMethod) Masked() PayoutMethod {
	if p.Bank != nil {
		b := *p.Bank
		if b.AccountNumber != "" {
			b.MaskedAccountNumber = MaskAccountNumber(b.AccountNumber)
		}
		b.AccountNumber = ""
		p.Bank = &b
	}
	p.Card = p.Card.masked()
	return p
}

// MerchantDocument is an uploaded document: its hash and size, never its bytes.
type MerchantDocument struct {
	ID          string    `json:"id"`
	Name        string    `json:"name,omitempty"`
	Function    string    `json:"function"`
	Format      string    `json:"format"`
	Status      string    `json:"status"`
	SHA256      string    `json:"sha256"`
	Size        int       `json:"size"`
	TimeCreated time.Time `json:"time_created"`
}

// BoardingRequest is a validated POST /merchants or PATCH /merchants/{id} body.
type BoardingRequest struct {
	Name, LegalName, DBA, CategoryCode, Website, Currency string
	TaxIDReference, NotificationEmail, StatusURL          string
	Status, StatusChangeReason, PricingProfile            string
	Description, Type                                     string
	Addresses                                             []BoardingAddress
	Persons                                               []Person
	PaymentMethods                                        []PayoutMethod
	Statistics                                            map[string]string
	Products                                              []OrderProduct
	Version                                               string
	Idempotency                                           Idempotency
}

// MerchantQuery is GET /merchants: paging, ordering and filters.
type MerchantQuery struct {
	Paging
	Status string
	From   time.Time // from_time_created, a day
}

// MerchantPage is one page of merchants and how many match.
type MerchantPage struct {
	Query     MerchantQuery
	Merchants []Merchant
	Total     int
	Now       time.Time
}

// MerchantView is a merchant with the time its status is read at.
type MerchantView struct {
	Merchant Merchant
	Now      time.Time
	Action   Action
}

// BoardMerchant boards a merchant: stored UNDER_REVIEW with its accounts, the caller's
// app may act for it at once, and each card-present product with a device quantity
// is a device order placed in the same transaction.
func (s *Service) BoardMerchant(c Caller, req BoardingRequest) (MerchantView, error) {
	var orders []Order
	v, replayed, err := execute(s, c, req.Idempotency, "merchant", func(tx Tx, now time.Time) (string, MerchantView, error) {
		orders = nil
		if err := checkNewMerchant(tx, req); err != nil {
			return "", MerchantView{}, err
		}
		m := Merchant{ID: "MER_" + s.hexID(), Name: req.Name, PricingProfile: req.PricingProfile}
		m.Boarding = &Boarding{TimeCreated: now, AppID: c.App.ID}
		m.Boarding.apply(req)
		m.Boarding.review(now, "Merchant Boarding in progress")
		var err error
		if orders, err = s.orderDevices(tx, c, &m, req, now); err != nil {
			return "", MerchantView{}, err
		}
		if err := s.openAccounts(tx, m, req, now); err != nil {
			return "", MerchantView{}, err
		}
		if err := tx.PutMerchant(m); err != nil {
			return "", MerchantView{}, err
		}
		if err := actFor(tx, c.App.ID, m.ID); err != nil {
			return "", MerchantView{}, err
		}
		return m.ID, MerchantView{Merchant: m, Now: now, Action: s.newAction(c, "MERCHANT_CREATE", now)}, nil
	})
	if err == nil && !replayed {
		s.callers.Clear() // the app's cached callers must see the merchant it acts for now
		for _, o := range orders {
			s.orders.placed(o.TimeLastUpdated)
		}
	}
	return v, err
}

// checkNewMerchant refuses what GP refuses of a new merchant: a name already boarded
// [GP], an unknown pricing profile, products no profile lists [SB].
func checkNewMerchant(tx Tx, req BoardingRequest) error {
	if req.Type == "" {
		return MissingFields("type")
	}
	all, err := tx.Merchants()
	if err != nil {
		return err
	}
	for _, m := range all {
		if strings.EqualFold(m.Name, req.Name) {
			return DuplicateMerchantName()
		}
	}
	if req.PricingProfile == "" {
		return nil
	}
	p, err := tx.PricingProfile(req.PricingProfile)
	if err != nil {
		return notFoundAs(err, InvalidField("pricing_profile"))
	}
	for _, prod := range req.Products {
		if isDeviceProduct(prod) {
			if _, ok := p.Products[prod.ID]; !ok {
				return InvalidField("products.id")
			}
		}
	}
	return nil
}

// isDeviceProduct: a card-present product (its id holds _CP-) that carries a device
// quantity is ordered as devices [SB, from the SDKs' builders].
func isDeviceProduct(p OrderProduct) bool {
	return strings.Contains(p.ID, "_CP-") && p.Quantity > 0
}

// apply copies the members a request sets onto the boarding record; the card and
// bank numbers are masked on the way.
func (b *Boarding) apply(req BoardingRequest) {
	set := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	set(&b.Type, req.Type)
	set(&b.LegalName, req.LegalName)
	set(&b.DBA, req.DBA)
	set(&b.CategoryCode, req.CategoryCode)
	set(&b.Website, req.Website)
	set(&b.Currency, req.Currency)
	set(&b.TaxIDReference, req.TaxIDReference)
	set(&b.NotificationEmail, req.NotificationEmail)
	set(&b.StatusURL, req.StatusURL)
	set(&b.Description, req.Description)
	if len(req.Addresses) > 0 {
		b.Addresses = req.Addresses
	}
	if len(req.Persons) > 0 {
		b.Persons = req.Persons
	}
	if len(req.PaymentMethods) > 0 {
		b.PaymentMethods = nil
		for _, p := range req.PaymentMethods {
			b.PaymentMethods = append(b.PaymentMethods, p.Masked())
		}
	}
	if len(req.Statistics) > 0 {
		b.Statistics = req.Statistics
	}
	if len(req.Products) > 0 {
		b.Products = req.Products
	}
}

// review puts the merchant under review for ReviewDelay from now.
func (b *Boarding) review(now time.Time, description string) {
	b.Status, b.StatusDescription = MerchantUnderReview, description
	b.ReviewUntil, b.TimeLastUpdated = now.Add(ReviewDelay), now
}

// orderDevices places one device order holding the request's device products, if
// any, for the new merchant, as POST /merchants/{id}/orders would.
func (s *Service) orderDevices(tx Tx, c Caller, m *Merchant, req BoardingRequest, now time.Time) ([]Order, error) {
	var devices []OrderProduct
	for _, p := range req.Products {
		if isDeviceProduct(p) {
			devices = append(devices, p)
		}
	}
	if len(devices) == 0 {
		return nil, nil
	}
	o := Order{
		ID: "ORD_" + s.ids.Alphanumeric(30), Holder: HolderOf(*m, Account{}),
		Status: OrderInitiated, TimeCreated: now, TimeLastUpdated: now, AppID: c.App.ID,
		Version: req.Version, Request: OrderRequest{Products: devices, PricingProfile: req.PricingProfile},
		Action: s.newAction(c, "ORDER_INITIATED", now),
	}
	o.History = []Action{o.Action}
	if err := tx.PutOrder(o); err != nil {
		return nil, err
	}
	m.Boarding.OrderIDs = append(m.Boarding.OrderIDs, o.ID)
	return []Order{o}, nil
}

// actFor lets the app act for the merchant.
func actFor(tx Tx, appID, merchantID string) error {
	app, err := tx.App(appID)
	if err != nil {
		return err
	}
	if !app.ActsFor(merchantID) {
		app.Merchants = append(app.Merchants, merchantID)
	}
	return tx.PutApp(app)
}

// ReadMerchant is GET /merchants/{id}: a merchant the caller may act for.
func (s *Service) ReadMerchant(c Caller, id string) (MerchantView, error) {
	var v MerchantView
	err := s.store.View(func(tx Tx) error {
		now := s.clock.Now()
		m, err := s.boardedMerchant(tx, c, id, PermMerchantSingle)
		v = MerchantView{Merchant: m, Now: now, Action: s.newAction(c, "MERCHANT_SINGLE", now)}
		return err
	})
	return v, err
}

// boardedMerchant reads a merchant the caller's app may act for: an id that is no
// merchant id at all is GP's 40042, an unknown or foreign one 40041 naming the
// caller's merchant-management account [GP].
func (s *Service) boardedMerchant(tx Tx, c Caller, id, perm string) (Merchant, error) {
	if !merchantIDForm(id) {
		return Merchant{}, RetrieveNotSupported()
	}
	m, err := tx.Merchant(id)
	switch {
	case err == nil && c.App.ActsFor(id):
		return m, nil
	case err != nil && !errors.Is(err, ErrNotFound):
		return Merchant{}, err
	}
	// A merchant the app may not act for is answered as one that does not exist.
	return Merchant{}, MerchantNotConfigured(accountFor(c.App, perm), id)
}

// merchantIDForm reports whether id can be a merchant id: MER_ and anything but a
// GUID. GP answers 40042 to a GUID, bare (Java GetMerchantInfo_InvalidId) or after
// MER_ (.NET GetMerchantInfo_InvalidId, PHP testCreditSaleWithPartnerMode_WrongMerchant),
// and 40041 to MER_ and 32 hex digits it does not know [GP].
func merchantIDForm(id string) bool { return strings.HasPrefix(id, "MER_") && !madeUpID(id) }

// madeUpID reports whether id is a GUID with its hyphens, bare or after a resource's
// prefix (MER_, TRA_, …): the ids the SDKs' tests make up for one that does not exist,
// which GP answers 40042 rather than looking them up (Java and .NET
// GetMerchantInfo_InvalidId, AccountDetails_RandomId) [GP]. A fixture's own id with a
// hyphen (MER_acme-eu) is an id like any other.
func madeUpID(id string) bool {
	if _, rest, prefixed := strings.Cut(id, "_"); prefixed {
		id = rest
	}
	return guidPattern.MatchString(id)
}

// guidPattern is a GUID with its hyphens, as the SDKs' tests make them.
var guidPattern = regexp.MustCompile(`^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$`)

// ListMerchants is GET /merchants: the merchants the caller's app may act for.
func (s *Service) ListMerchants(c Caller, q MerchantQuery) (MerchantPage, error) {
	p := MerchantPage{Query: q}
	err := s.store.View(func(tx Tx) error {
		p.Now = s.clock.Now()
		all, err := tx.Merchants()
		if err != nil {
			return err
		}
		var matched []Merchant
		for _, m := range all {
			if c.App.ActsFor(m.ID) && q.matches(m, p.Now) {
				matched = append(matched, m)
			}
		}
		p.Total = len(matched)
		p.Merchants = sortedPage(matched, func(a, b Merchant) int {
			return cmp.Or(a.Profile().TimeCreated.Compare(b.Profile().TimeCreated), strings.Compare(a.ID, b.ID))
		}, q.Paging)
		return nil
	})
	return p, err
}

func (q MerchantQuery) matches(m Merchant, now time.Time) bool {
	b := m.Profile()
	if q.Status != "" && b.StatusAt(now) != q.Status {
		return false
	}
	return q.From.IsZero() || !b.TimeCreated.Before(q.From)
}

// Profile is the merchant's boarding record; a merchant the fixtures made without one
// reads as an ACTIVE merchant [SB].
func (m Merchant) Profile() Boarding {
	if m.Boarding != nil {
		return *m.Boarding
	}
	return Boarding{Status: MerchantActive, Type: "MERCHANT"}
}

// EditMerchant is PATCH /merchants/{id}: the change is taken and the merchant is
// under review again, answered PENDING [GP]. A status_change_reason alone lacks what
// goes with it (40241), and with other members is refused too (40268) [GP].
func (s *Service) EditMerchant(c Caller, id string, req BoardingRequest) (MerchantView, error) {
	v, _, err := execute(s, c, req.Idempotency, "merchant", func(tx Tx, now time.Time) (string, MerchantView, error) {
		m, err := s.boardedMerchant(tx, c, id, PermMerchantEdit)
		if err != nil {
			return "", MerchantView{}, err
		}
		if req.StatusChangeReason != "" {
			if req.changesProfile() {
				return "", MerchantView{}, ExtraTags()
			}
			return "", MerchantView{}, RequiredFieldMissing()
		}
		b := m.Profile()
		b.apply(req)
		if req.Name != "" {
			m.Name = req.Name
		}
		b.review(now, "Merchant Editing in progress")
		m.Boarding = &b
		if err := tx.PutMerchant(m); err != nil {
			return "", MerchantView{}, err
		}
		a := s.newAction(c, "MERCHANT_EDIT_INITIATED", now)
		a.ResultCode = "PENDING"
		return m.ID, MerchantView{Merchant: m, Now: now, Action: a}, nil
	})
	return v, err
}

// changesProfile: the edit sets a member besides its status change reason.
func (req BoardingRequest) changesProfile() bool {
	return req.Name != "" || req.LegalName != "" || req.DBA != "" || req.Website != "" ||
		req.TaxIDReference != "" || req.Description != "" || len(req.Addresses) > 0 ||
		len(req.Persons) > 0 || len(req.PaymentMethods) > 0 || len(req.Statistics) > 0
}

// SetMerchantStatus is the admin API's review decision: ACTIVE, INACTIVE, DECLINED or
// UNDER_REVIEW again, at once.
func (s *Service) SetMerchantStatus(id, status string) (MerchantView, error) {
	var m Merchant
	now := s.clock.Now()
	err := s.store.Update(func(tx Tx) error {
		var err error
		if m, err = tx.Merchant(id); err != nil {
			return notFoundAs(err, NotFoundMerchant(id))
		}
		if !slices.Contains(MerchantStatuses(), status) {
			return InvalidField("status")
		}
		b := m.Profile()
		b.Status, b.StatusDescription, b.ReviewUntil, b.TimeLastUpdated = status, "", time.Time{}, now
		m.Boarding = &b
		return tx.PutMerchant(m)
	})
	return MerchantView{Merchant: m, Now: now}, err
}

// UploadRequest is a validated document upload; Content is the base64 text, hashed
// and measured here and never kept.
type UploadRequest struct {
	Function, Format, Content string
	Idempotency               Idempotency
}

// DocumentView is an upload's answer: the document and its merchant.
type DocumentView struct {
	Merchant Merchant
	Document MerchantDocument
	Action   Action
}

// UploadDocument keeps a merchant's document by its SHA-256 and size [SB].
func (s *Service) UploadDocument(c Caller, merchantID string, req UploadRequest) (DocumentView, error) {
	v, _, err := execute(s, c, req.Idempotency, "document", func(tx Tx, now time.Time) (string, DocumentView, error) {
		m, err := s.boardedMerchant(tx, c, merchantID, PermMerchantDocument)
		if err != nil {
			return "", DocumentView{}, err
		}
		sum := sha256.Sum256([]byte(req.Content))
		d := MerchantDocument{
			ID: "DOC_" + s.ids.Alphanumeric(30), Function: req.Function, Format: req.Format,
			Status: "ACTIVE", SHA256: hex.EncodeToString(sum[:]), Size: len(req.Content), TimeCreated: now,
		}
		d.Name = d.ID + "." + strings.ToLower(req.Format)
		b := m.Profile()
		if len(b.Documents) >= maxDocuments {
			return "", DocumentView{}, InvalidField("b64_content")
		}
		b.Documents = append(b.Documents, d)
		m.Boarding = &b
		if err := tx.PutMerchant(m); err != nil {
			return "", DocumentView{}, err
		}
		return d.ID, DocumentView{Merchant: m, Document: d, Action: s.newAction(c, "DOCUMENT_UPLOAD", now)}, nil
	})
	return v, err
}

// maxDocuments bounds the documents one merchant keeps [SB].
const maxDocuments = 100

// MerchantRecord is a merchant with its accounts, as the admin API shows it.
type MerchantRecord struct {
	Merchant Merchant
	Accounts []MerchantAccount
}

// MerchantRecords reads every merchant with its accounts, by id, and the time their
// status is read at: an admin read of the few merchants a sandbox holds.
func (s *Service) MerchantRecords() ([]MerchantRecord, time.Time, error) {
	var out []MerchantRecord
	now := s.clock.Now()
	err := s.store.View(func(tx Tx) error {
		merchants, err := tx.Merchants()
		if err != nil {
			return err
		}
		accounts, err := tx.MerchantAccounts()
		if err != nil {
			return err
		}
		byMerchant := map[string][]MerchantAccount{}
		for _, a := range accounts {
			byMerchant[a.MerchantID] = append(byMerchant[a.MerchantID], a)
		}
		for _, m := range merchants {
			out = append(out, MerchantRecord{Merchant: m, Accounts: byMerchant[m.ID]})
		}
		return nil
	})
	return out, now, err
}
