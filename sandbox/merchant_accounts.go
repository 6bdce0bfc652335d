package sandbox

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"time"
)

// A merchant's accounts: what GET /accounts lists. Each belongs to one merchant and
// is named by a prefix and 32 hex digits as GP names them (TRA_, FMA_ ...).

// Account types [GP] and the id prefix of each.
const (
	AccountTransactionProcessing = "TRANSACTION_PROCESSING"
	AccountFundManagement        = "FUND_MANAGEMENT"
	AccountTokenization          = "TOKENIZATION"
	AccountDataServices          = "DATA_SERVICES"
	AccountDisputeManagement     = "DISPUTE_MANAGEMENT"
	AccountMerchantManagement    = "MERCHANT_MANAGEMENT"
)

var accountPrefix = map[string]string{
	AccountTransactionProcessing: "TRA_", AccountFundManagement: "FMA_", AccountTokenization: "TKA_",
	AccountDataServices: "DAA_", AccountDisputeManagement: "DIA_", AccountMerchantManagement: "MMA_",
}

// AccountTypes lists the account types.
func AccountTypes() []string {
	return []string{AccountTransactionProcessing, AccountFundManagement, AccountTokenization,
		AccountDataServices, AccountDisputeManagement, AccountMerchantManagement}
}

// MerchantAccount is one account of a merchant.
type MerchantAccount struct {
	ID          string            `json:"id"`
	MerchantID  string            `json:"merchant_id"`
	Type        string            `json:"type"`
	Name        string            `json:"name"`
	Status      string            `json:"status"`
	TimeCreated time.Time         `json:"time_created"`
	Permissions []string          `json:"permissions,omitempty"`
	Countries   []string          `json:"countries,omitempty"`
	Channels    []string          `json:"channels,omitempty"`
	Currencies  []string          `json:"currencies,omitempty"`
	Addresses   []BoardingAddress `json:"addresses,omitempty"`
	// Payer is what an account edit set: the card masked, the billing address.
	Payer *AccountPayer `json:"payer,omitempty"`
}

// AccountPayer is an account's payment card and billing address, set by PATCH.
type AccountPayer struct {
	Card           *PayCard         `json:"card,omitempty"`
	BillingAddress *BoardingAddress `json:"billing_address,omitempty"`
}

// AccountPaymentMethods is what an account of this type takes, as GP lists it in
// payment_methods: cards for a transaction-processing account, the one kind of
// payment the sandbox takes [SB]; nothing for the others. The SDKs pick the account
// they charge through by it (.NET GpApiCreditWithMerchantIdTest).
func AccountPaymentMethods(accountType string) []string {
	if accountType == AccountTransactionProcessing {
		return []string{"CARD"}
	}
	return nil
}

// openAccounts gives a new merchant its accounts [SB]: transaction processing,
// tokenization, data services and dispute management always, fund management when a
// product is a funds product (PRO_FMA_...).
func (s *Service) openAccounts(tx Tx, m Merchant, req BoardingRequest, now time.Time) error {
	types := []string{AccountTransactionProcessing, AccountTokenization, AccountDataServices, AccountDisputeManagement}
	for _, p := range req.Products {
		if strings.HasPrefix(p.ID, "PRO_FMA_") && !slices.Contains(types, AccountFundManagement) {
			types = append(types, AccountFundManagement)
		}
	}
	currencies := []string{}
	if req.Currency != "" {
		currencies = []string{req.Currency}
	}
	for _, t := range types {
		a := MerchantAccount{
			ID: accountPrefix[t] + s.hexID(), MerchantID: m.ID, Type: t,
			Name: strings.ToLower(t), Status: MerchantActive, TimeCreated: now,
			Currencies: currencies, Addresses: req.Addresses,
		}
		if t == AccountTransactionProcessing {
			a.Channels = []string{ChannelCP, ChannelCNP}
		}
		if err := tx.PutMerchantAccount(a); err != nil {
			return err
		}
	}
	return nil
}

// hexID is 32 lower-case hex digits, as GP's merchant and account ids end.
func (s *Service) hexID() string {
	sum := sha256.Sum256([]byte(s.ids.Alphanumeric(32)))
	return hex.EncodeToString(sum[:16])
}

// AccountQuery is GET /accounts: paging, ordering and filters.
type AccountQuery struct {
	MerchantID string // the path's merchant, "" for every merchant the app acts for
	Paging
	From, To     time.Time // days
	Status, Name string
	ID           string
}

// AccountPage is one page of accounts and how many match.
type AccountPage struct {
	Query    AccountQuery
	Accounts []MerchantAccount
	Total    int
}

// ListAccounts lists the accounts of the merchants the caller's app acts for, or of
// the path's merchant.
func (s *Service) ListAccounts(c Caller, q AccountQuery) (AccountPage, error) {
	p := AccountPage{Query: q}
	err := s.store.View(func(tx Tx) error {
		if q.MerchantID != "" {
			if _, err := s.boardedMerchant(tx, c, q.MerchantID, PermAccountList); err != nil {
				return err
			}
		}
		all, err := tx.MerchantAccounts()
		if err != nil {
			return err
		}
		var matched []MerchantAccount
		for _, a := range all {
			if c.App.ActsFor(a.MerchantID) && q.matches(a) {
				matched = append(matched, a)
			}
		}
		p.Total = len(matched)
		p.Accounts = sortedPage(matched, func(a, b MerchantAccount) int {
			return cmp.Or(a.TimeCreated.Compare(b.TimeCreated), strings.Compare(a.ID, b.ID))
		}, q.Paging)
		return nil
	})
	return p, err
}

func (q AccountQuery) matches(a MerchantAccount) bool {
	switch {
	case q.MerchantID != "" && a.MerchantID != q.MerchantID,
		q.Status != "" && a.Status != q.Status,
		q.Name != "" && !strings.EqualFold(a.Name, q.Name),
		q.ID != "" && a.ID != q.ID,
		!q.From.IsZero() && a.TimeCreated.Before(q.From),
		!q.To.IsZero() && !a.TimeCreated.Before(q.To.AddDate(0, 0, 1)):
		return false
	}
	return true
}

// ReadAccount is GET /accounts/{id} and its merchant form. An id without an account
// prefix is GP's 40042, an unknown one 40041 naming it [GP].
func (s *Service) ReadAccount(c Caller, merchantID, id string) (MerchantAccount, error) {
	var a MerchantAccount
	err := s.store.View(func(tx Tx) error {
		var err error
		a, err = s.account(tx, c, merchantID, id, PermAccountSingle)
		return err
	})
	return a, err
}

// account reads an account of a merchant the caller acts for.
func (s *Service) account(tx Tx, c Caller, merchantID, id, perm string) (MerchantAccount, error) {
	if merchantID != "" {
		if _, err := s.boardedMerchant(tx, c, merchantID, perm); err != nil {
			return MerchantAccount{}, err
		}
	}
	if madeUpID(id) {
		return MerchantAccount{}, RetrieveNotSupported()
	}
	a, err := tx.MerchantAccount(id)
	if err != nil {
		return a, notFoundAs(err, NotFoundAccount(id))
	}
	if !c.App.ActsFor(a.MerchantID) || merchantID != "" && a.MerchantID != merchantID {
		return MerchantAccount{}, NotFoundAccount(id)
	}
	return a, nil
}

// AccountEdit is a validated account PATCH: its payer's card and billing address.
type AccountEdit struct {
	Card           PayCard
	BillingAddress BoardingAddress
	Idempotency    Idempotency
}

// EditedAccount is an account edit's answer: the account and the action, typed
// MERCHANT_EDIT, the type the SDKs' merchant-management mappers read [SB].
type EditedAccount struct {
	Account      MerchantAccount
	MerchantName string // for its action record
	Action       Action
}

// EditAccount is PATCH /merchants/{id}/accounts/{id}: the account's payer card and
// billing address are replaced, the card masked. Without the merchant in the path GP
// answers 40042 [GP].
func (s *Service) EditAccount(c Caller, merchantID, id string, req AccountEdit) (EditedAccount, error) {
	if merchantID == "" {
		return EditedAccount{}, RetrieveNotSupported()
	}
	v, _, err := execute(s, c, req.Idempotency, "account", func(tx Tx, now time.Time) (string, EditedAccount, error) {
		a, err := s.account(tx, c, merchantID, id, PermAccountEdit)
		if err != nil {
			return "", EditedAccount{}, err
		}
		m, err := tx.Merchant(a.MerchantID)
		if err != nil {
			return "", EditedAccount{}, err
		}
		addr := req.BillingAddress
		a.Payer = &AccountPayer{Card: req.Card.masked(), BillingAddress: &addr}
		return a.ID, EditedAccount{Account: a, MerchantName: m.Name, Action: s.newAction(c, "MERCHANT_EDIT", now)}, tx.PutMerchantAccount(a)
	})
	return v, err
}

// AddressQuery is an address lookup: a postal code and a line of the address.
type AddressQuery struct {
	Paging
	PostalCode   string
	Line1, Line2 string
	AccountID    string
}

// LookupAddresses is GET /accounts/{id}/addresses: the addresses matching a postal
// code and line, read from the merchant-management account's app [SB]: the sandbox
// holds no address book, so it answers the address asked for, completed from the
// merchants' addresses with that postal code when one matches.
func (s *Service) LookupAddresses(c Caller, q AddressQuery) (AddressPage, error) {
	if q.PostalCode == "" {
		return AddressPage{}, LookupFieldMissing("postal_code")
	}
	if q.Line1 == "" && q.Line2 == "" {
		return AddressPage{}, LookupFieldMissing("line_1 or line_2")
	}
	if accountFor(c.App, PermAddressList) != q.AccountID {
		return AddressPage{}, RetrieveNotSupported()
	}
	var found []BoardingAddress
	err := s.store.View(func(tx Tx) error {
		all, err := tx.Merchants()
		if err != nil {
			return err
		}
		for _, m := range all {
			for _, a := range m.Profile().Addresses {
				if strings.EqualFold(a.PostalCode, q.PostalCode) && (q.Line1 == "" || strings.Contains(a.Line1, q.Line1)) {
					found = append(found, a)
				}
			}
		}
		return nil
	})
	if len(found) == 0 {
		found = []BoardingAddress{{Line1: q.Line1, Line2: q.Line2, PostalCode: q.PostalCode}}
	}
	now := s.clock.Now()
	return AddressPage{Query: q, Addresses: pageOf(found, q.Paging), Total: len(found),
		Action: s.newAction(c, "ADDRESS_LIST", now)}, err
}

// AddressPage is a page of an address lookup.
type AddressPage struct {
	Query     AddressQuery
	Addresses []BoardingAddress
	Total     int
	Action    Action
}

// boardingTx is the store's part for merchants and their accounts.
type boardingTx interface {
	// Merchants lists every merchant by id.
	Merchants() ([]Merchant, error)
	// MerchantAccount reads an account; MerchantAccounts lists them all by id.
	MerchantAccount(id string) (MerchantAccount, error)
	PutMerchantAccount(MerchantAccount) error
	MerchantAccounts() ([]MerchantAccount, error)
}

// putFixtureAccounts stores the fixtures' merchant accounts.
func putFixtureAccounts(tx Tx, accounts []MerchantAccount) error {
	for _, a := range accounts {
		if err := tx.PutMerchantAccount(a); err != nil {
			return err
		}
	}
	return nil
}
