package sandbox

import "slices"

// The partners of the sandbox: the apps that call the API and the merchants they act
// for.

// App is a partner application: its credentials, the accounts its tokens carry, the
// merchants it may act for and the live configuration that enables actions.
type App struct {
	ID         string     `json:"id"`
	Key        string     `json:"key"`
	Name       string     `json:"name"`
	Email      string     `json:"email"`
	MerchantID string     `json:"merchant_id"` // the merchant named in its tokens' scope
	Merchants  []string   `json:"merchants"`   // merchants it may act for
	Accounts   []Account  `json:"accounts"`
	Live       LiveConfig `json:"live"`
	Scenarios  []string   `json:"scenarios,omitempty"`
}

// LiveConfig is what GP's live configuration enables for an app, independently of the
// permissions in its tokens.
type LiveConfig struct {
	AdjustmentAllowed bool `json:"adjustment_allowed"`
	OrdersAllowed     bool `json:"orders_allowed"`
	// Operations lists the card-present operations (by scenario operation name) the
	// app may use. nil means not configured: every one of them is allowed; an empty
	// list allows none [SB].
	Operations []string `json:"operations"`
}

// Account is one account of a token scope, e.g. TRA_… transaction_processing.
type Account struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Permissions []string `json:"permissions"`
}

// Holder is the merchant, and the account, a resource belongs to: the four members
// GP shows on a transaction, a batch, a deposit, an action and most other resources.
// A record embeds it, so that they are declared, copied and viewed as one.
type Holder struct {
	MerchantID   string `json:"merchant_id"`
	MerchantName string `json:"merchant_name"`
	AccountID    string `json:"account_id,omitempty"`
	AccountName  string `json:"account_name,omitempty"`
}

// HolderOf is the holder of what account a of merchant m holds.
func HolderOf(m Merchant, a Account) Holder {
	return Holder{MerchantID: m.ID, MerchantName: m.Name, AccountID: a.ID, AccountName: a.Name}
}

// ActsFor reports whether the app may act for the merchant.
func (a App) ActsFor(merchantID string) bool {
	return slices.Contains(a.Merchants, merchantID)
}

// Merchant is a merchant an app may act for.
type Merchant struct {
	ID             string   `json:"id"`
	Name           string   `json:"name"`
	PricingProfile string   `json:"pricing_profile"`
	Scenarios      []string `json:"scenarios,omitempty"`
	// BatchCloseTime is the merchant's daily batch close, "HH:MM" in UTC on the sandbox
	// clock, set by a device order's batch_close_time; empty: batches close on request only.
	BatchCloseTime string `json:"batch_close_time,omitempty"`
	// Boarding is what the merchant was boarded with (boarding.go); nil for a
	// merchant the fixtures name only.
	Boarding *Boarding `json:"boarding,omitempty"`
}
