package yamlfile

import (
	"cmp"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// A merchant's boarding members and accounts in a fixture: a merchant reads as
// boarded with the members it is given (status, time_created, legal_name, dba,
// addresses, payment_methods); one given none reads ACTIVE. GP dates every merchant
// and account: see merchantDoc.boarding and the loader's accounts.

// merchantStatus is a merchant's or an account's status.
type merchantStatus string

func (s merchantStatus) check() string { return oneOf(string(s), sandbox.MerchantStatuses()...) }

// accountType is an account's type (TRANSACTION_PROCESSING, FUND_MANAGEMENT ...).
type accountType string

func (s accountType) check() string { return oneOf(string(s), sandbox.AccountTypes()...) }

type addressDoc struct {
	Functions  []string `yaml:"functions"`
	Line1      string   `yaml:"line_1"`
	Line2      string   `yaml:"line_2"`
	Line3      string   `yaml:"line_3"`
	City       string   `yaml:"city"`
	State      string   `yaml:"state"`
	PostalCode string   `yaml:"postal_code"`
	Country    string   `yaml:"country"`
}

func (a addressDoc) toDomain() sandbox.BoardingAddress { return sandbox.BoardingAddress(a) }

func addresses(docs []addressDoc) []sandbox.BoardingAddress {
	var out []sandbox.BoardingAddress
	for _, a := range docs {
		out = append(out, a.toDomain())
	}
	return out
}

// payoutDoc is a payout method of a merchant: a bank account or a card, their numbers
// masked where the merchant is built (sandbox.PayoutMethod.Masked).
type payoutDoc struct {
	Functions []string `yaml:"functions"`
	Name      string   `yaml:"name"`
	Bank      *struct {
		AccountHolderType string `yaml:"account_holder_type"`
		AccountNumber     string `yaml:"account_number"`
		AccountType       string `yaml:"account_type"`
		Name              string `yaml:"bank_name"`
		Code              string `yaml:"code"`
	} `yaml:"bank_transfer"`
	Card *struct {
		Name        string `yaml:"name"`
		Number      string `yaml:"number"`
		ExpiryMonth string `yaml:"expiry_month"`
		ExpiryYear  string `yaml:"expiry_year"`
	} `yaml:"card"`
}

func (p payoutDoc) toDomain() sandbox.PayoutMethod {
	out := sandbox.PayoutMethod{Functions: p.Functions, Name: p.Name}
	if b := p.Bank; b != nil {
		out.Bank = &sandbox.Bank{AccountHolderType: b.AccountHolderType, AccountNumber: b.AccountNumber,
			AccountType: b.AccountType, BankName: b.Name, Code: b.Code}
	}
	if c := p.Card; c != nil {
		out.Card = &sandbox.PayCard{Name: c.Name, Number: c.Number, ExpiryMonth: c.ExpiryMonth, ExpiryYear: c.ExpiryYear}
	}
	return out.Masked()
}

// merchantAccountDoc is one account of a merchant.
type merchantAccountDoc struct {
	ID          ident          `yaml:"id,required"`
	Type        accountType    `yaml:"type,required"`
	Name        string         `yaml:"name,required"`
	Status      merchantStatus `yaml:"status"` // default ACTIVE
	TimeCreated fixtureTime    `yaml:"time_created"`
	Currencies  []currency     `yaml:"currencies"`
	Channels    []string       `yaml:"channels"`
	Addresses   []addressDoc   `yaml:"addresses"`
}

func (a merchantAccountDoc) toDomain(merchantID string, now time.Time) sandbox.MerchantAccount {
	created, _ := a.TimeCreated.at(now)
	out := sandbox.MerchantAccount{
		ID: string(a.ID), MerchantID: merchantID, Type: string(a.Type), Name: a.Name,
		Status: string(a.Status), TimeCreated: created, Channels: a.Channels, Addresses: addresses(a.Addresses),
	}
	if out.Status == "" {
		out.Status = sandbox.MerchantActive
	}
	for _, c := range a.Currencies {
		out.Currencies = append(out.Currencies, string(c))
	}
	return out
}

// boarding is the merchant's boarding record. GP dates every merchant: one whose
// fixture gives no time_created was boarded with the oldest of its dated accounts, or
// without one when the fixtures were read.
func (m merchantDoc) boarding(now time.Time, accounts []sandbox.MerchantAccount) *sandbox.Boarding {
	created, _ := cmp.Or(m.TimeCreated, "now").at(now)
	if m.TimeCreated == "" {
		for _, a := range accounts {
			if !a.TimeCreated.IsZero() && a.TimeCreated.Before(created) {
				created = a.TimeCreated
			}
		}
	}
	b := &sandbox.Boarding{
		Status: string(m.Status), Type: "MERCHANT", TimeCreated: created, TimeLastUpdated: created,
		LegalName: m.LegalName, DBA: m.DBA, Addresses: addresses(m.Addresses),
	}
	if b.Status == "" {
		b.Status = sandbox.MerchantActive
	}
	for _, p := range m.PaymentMethods {
		b.PaymentMethods = append(b.PaymentMethods, p.toDomain())
	}
	return b
}
