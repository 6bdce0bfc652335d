package yamlfile

import (
	"crypto/sha256"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/carddata"
)

// The fixture file schema. These types mirror the domain types with yaml keys and
// with named scalar types whose check validates ids, amounts, codes and times where
// they are written; toDomain converts once the whole set is valid. They share no
// declaration with the API's views of the same records (sandbox/api/views.go): a
// fixture member is typed by its check (amount, ident, gpTime) and marked required or
// not, a view member by its wire form (omitempty, a pointer for a block left out), and
// a type both used would have to live in the domain with the tags of both formats.

// fixturesDoc is one YAML document of a fixtures file.
type fixturesDoc struct {
	Apps            []appDoc            `yaml:"apps"`
	Merchants       []merchantDoc       `yaml:"merchants"`
	PricingProfiles []pricingProfileDoc `yaml:"pricing_profiles"`
	Transactions    []transactionDoc    `yaml:"transactions"`
	Devices         []deviceDoc         `yaml:"devices"`
	Deposits        []depositDoc        `yaml:"deposits"`
	Disputes        []disputeDoc        `yaml:"disputes"`
	Actions         []actionRecordDoc   `yaml:"actions"`
}

// deviceDoc is a card-present terminal, bound to a merchant's transaction-processing
// account: MiC requests through that account reach it.
type deviceDoc struct {
	ID         ident      `yaml:"id,required"`
	MerchantID ident      `yaml:"merchant_id,required"`
	AccountID  ident      `yaml:"account_id,required"`
	Model      string     `yaml:"model"`
	Status     deviceWord `yaml:"status"`
	Mode       deviceWord `yaml:"mode"`
}

// deviceWord is a device status (ACTIVE, INACTIVE) or answer mode (COMPLETE, INITIATED).
type deviceWord string

func (s deviceWord) check() string {
	if s == "" {
		return ""
	}
	return oneOf(string(s), sandbox.DeviceActive, sandbox.DeviceInactive, sandbox.DeviceModeComplete, sandbox.DeviceModeInitiated)
}

func (d deviceDoc) toDomain() sandbox.Device {
	return sandbox.Device{
		ID: string(d.ID), MerchantID: string(d.MerchantID), AccountID: string(d.AccountID), Model: d.Model,
		Status: string(d.Status), Mode: string(d.Mode),
	}
}

type appDoc struct {
	ID         ident        `yaml:"id,required"`
	Key        string       `yaml:"key,required"`
	Name       string       `yaml:"name,required"`
	Email      string       `yaml:"email"`
	MerchantID ident        `yaml:"merchant_id,required"`
	Merchants  []ident      `yaml:"merchants"`
	Accounts   []accountDoc `yaml:"accounts"`
	Live       liveDoc      `yaml:"live"`
	Scenarios  []string     `yaml:"scenarios"`
}

type accountDoc struct {
	ID          ident        `yaml:"id,required"`
	Name        string       `yaml:"name,required"`
	Permissions []permission `yaml:"permissions"`
}

type liveDoc struct {
	AdjustmentAllowed bool `yaml:"adjustment_allowed"`
	OrdersAllowed     bool `yaml:"orders_allowed"`
	// Operations lists the card-present operations the app may use; absent: all.
	Operations *[]cardOperation `yaml:"operations"`
}

// cardOperation names a card-present operation, as scenarios name it.
type cardOperation string

func (s cardOperation) check() string {
	names := make([]string, len(sandbox.CardPresentOperations))
	for i, op := range sandbox.CardPresentOperations {
		names[i] = string(op)
	}
	return oneOf(string(s), names...)
}

type merchantDoc struct {
	ID             ident    `yaml:"id,required"`
	Name           string   `yaml:"name,required"`
	PricingProfile string   `yaml:"pricing_profile"`
	Scenarios      []string `yaml:"scenarios"`
	// Boarding members and accounts: merchants_schema.go.
	Status         merchantStatus       `yaml:"status"`
	TimeCreated    fixtureTime          `yaml:"time_created"`
	LegalName      string               `yaml:"legal_name"`
	DBA            string               `yaml:"dba"`
	Addresses      []addressDoc         `yaml:"addresses"`
	PaymentMethods []payoutDoc          `yaml:"payment_methods"`
	Accounts       []merchantAccountDoc `yaml:"accounts"`
}

type pricingProfileDoc struct {
	Name     string           `yaml:"name,required"`
	Currency currency         `yaml:"currency,required"`
	Products map[ident]amount `yaml:"products"`
}

type transactionDoc struct {
	ID             ident      `yaml:"id,required"`
	MerchantID     ident      `yaml:"merchant_id,required"`
	TimeCreated    gpTime     `yaml:"time_created,required"`
	Type           txType     `yaml:"type,required"`
	Status         txStatus   `yaml:"status,required"`
	Amount         amount     `yaml:"amount,required"`
	GratuityAmount amount     `yaml:"gratuity_amount"`
	CashbackAmount amount     `yaml:"cashback_amount"`
	Currency       currency   `yaml:"currency,required"`
	Country        country    `yaml:"country,required"`
	Reference      string     `yaml:"reference"`
	PaymentMethod  paymentDoc `yaml:"payment_method"`
	Order          *orderDoc  `yaml:"order"`
	BatchID        ident      `yaml:"batch_id"`
	BatchClosed    bool       `yaml:"batch_closed"`
	Action         *actionDoc `yaml:"action"`
	Scenarios      []string   `yaml:"scenarios"`
}

type paymentDoc struct {
	Result  string   `yaml:"result"`
	Message string   `yaml:"message"`
	Card    cardDoc  `yaml:"card"`
	BNPL    *bnplDoc `yaml:"bnpl"`
}

type cardDoc struct {
	Authcode       string `yaml:"authcode"`
	BrandReference string `yaml:"brand_reference"`
}

type bnplDoc struct {
	Provider string `yaml:"provider,required"`
}

type orderDoc struct {
	Taxes          []taxDoc `yaml:"taxes"`
	DutyAmount     amount   `yaml:"duty_amount"`
	ShippingAmount amount   `yaml:"shipping_amount"`
}

type taxDoc struct {
	Type   string `yaml:"type,required"`
	Amount amount `yaml:"amount,required"`
}

type actionDoc struct {
	ID          ident  `yaml:"id,required"`
	Type        string `yaml:"type,required"`
	TimeCreated gpTime `yaml:"time_created,required"`
	ResultCode  string `yaml:"result_code,required"`
	AppID       ident  `yaml:"app_id"`
	AppName     string `yaml:"app_name"`
}

// ident is an id: sandbox.IDProblem's rule.
type ident string

func (s ident) check() string { return sandbox.IDProblem(string(s)) }

// amount is a GP amount: digits in the currency's minor unit, 1..50 of them.
type amount string

func (s amount) check() string {
	if len(s) == 0 || len(s) > sandbox.MaxIDLength || strings.Trim(string(s), "0123456789") != "" {
		return fmt.Sprintf("must be 1 to %d digits in minor units (\"1000\" is 10.00), got %q", sandbox.MaxIDLength, carddata.Excerpt(string(s)))
	}
	return ""
}

// gpTime is a timestamp in GP's shape, exactly: 2021-03-24T02:02:27.158Z.
type gpTime string

func (gpTime) timestampText() {}

func (s gpTime) check() string {
	if _, ok := s.time(); !ok {
		return fmt.Sprintf("must be a UTC time with milliseconds like 2021-03-24T02:02:27.158Z, got %q", carddata.Excerpt(string(s)))
	}
	return ""
}

func (s gpTime) time() (time.Time, bool) {
	t, err := time.Parse(sandbox.TimeFormat, string(s))
	return t, err == nil && sandbox.FormatTime(t) == string(s)
}

// fixtureTime is a gpTime, or a time some whole days from when the fixtures are read:
// now, now-7d, now+30d. GP's sandbox holds records of the last days, and the SDKs'
// tests look for them in windows that end today (a dispute staged a week ago, the
// accounts of the last year), which no fixed date stays in.
type fixtureTime string

func (fixtureTime) timestampText() {}

// relativeTime is now, and whole days from it: back up to 9999, ahead up to
// maxDaysAhead.
var relativeTime = regexp.MustCompile(`^now(?:([+-])([1-9][0-9]{0,3})d)?$`)

// maxDaysAhead is how far ahead of the clock a fixture's time may be: the sandbox
// clock keeps a year's room before the last time GP can show (sandbox.ClockLimits).
const maxDaysAhead = 365

func (s fixtureTime) check() string {
	if _, ok := s.at(time.Time{}); !ok {
		return fmt.Sprintf("must be a UTC time with milliseconds like 2021-03-24T02:02:27.158Z, or now, now-7d, now+30d (at most now+365d), got %q", carddata.Excerpt(string(s)))
	}
	return ""
}

// at is the time s names, a relative one counted from now; a clock set so early that
// the days back reach before the first time GP can show gives that first time.
func (s fixtureTime) at(now time.Time) (time.Time, bool) {
	m := relativeTime.FindStringSubmatch(string(s))
	if m == nil {
		return gpTime(s).time()
	}
	days, _ := strconv.Atoi(m[2])
	switch {
	case m[1] == "+" && days > maxDaysAhead:
		return time.Time{}, false
	case m[1] == "-":
		days = -days
	}
	earliest, _ := sandbox.ClockLimits()
	t := now.UTC().Truncate(time.Millisecond).AddDate(0, 0, days)
	if t.Before(earliest) {
		t = earliest
	}
	return t, true
}

// currency is an ISO 4217 code such as USD.
type currency string

func (s currency) check() string {
	if problem := sandbox.CurrencyProblem(string(s)); problem != "" {
		return fmt.Sprintf("%s, got %q", problem, carddata.Excerpt(string(s)))
	}
	return ""
}

// country is an ISO 3166 alpha-2 code such as US.
type country string

func (s country) check() string {
	if problem := sandbox.CountryProblem(string(s)); problem != "" {
		return fmt.Sprintf("%s, got %q", problem, carddata.Excerpt(string(s)))
	}
	return ""
}

// txType is a transaction type the sandbox stores.
type txType string

func (s txType) check() string { return oneOf(string(s), "SALE", "REFUND") }

// txStatus is a transaction status the sandbox distinguishes.
type txStatus string

func (s txStatus) check() string {
	return oneOf(string(s), sandbox.StatusCaptured, sandbox.StatusPreauthorized, sandbox.StatusDeclined, sandbox.StatusReversed)
}

func oneOf(s string, values ...string) string {
	if slices.Contains(values, s) {
		return ""
	}
	return fmt.Sprintf("must be one of %s, got %q", strings.Join(values, ", "), carddata.Excerpt(s))
}

// permission is a permission name such as TRN_POST_Adjust.
type permission string

func (s permission) check() string {
	ok := len(s) > 0 && len(s) <= 100
	for _, c := range []byte(s) {
		ok = ok && (isAlnum(c) || c == '_')
	}
	if !ok {
		return fmt.Sprintf("must be a permission name like TRN_POST_Adjust (letters, digits and _), got %q", carddata.Excerpt(string(s)))
	}
	return ""
}

func isAlnum(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func (a appDoc) toDomain() sandbox.App {
	app := sandbox.App{
		ID: string(a.ID), Key: a.Key, Name: a.Name, Email: a.Email, MerchantID: string(a.MerchantID),
		Merchants: strs(a.Merchants), Accounts: make([]sandbox.Account, len(a.Accounts)),
		Live:      sandbox.LiveConfig{AdjustmentAllowed: a.Live.AdjustmentAllowed, OrdersAllowed: a.Live.OrdersAllowed},
		Scenarios: a.Scenarios,
	}
	if a.Live.Operations != nil {
		app.Live.Operations = []string{} // listed, even empty: only these are allowed
		for _, op := range *a.Live.Operations {
			app.Live.Operations = append(app.Live.Operations, string(op))
		}
	}
	for i, acc := range a.Accounts {
		// Token scopes show permissions as a list, never null.
		perms := append([]string{}, strs(acc.Permissions)...)
		app.Accounts[i] = sandbox.Account{ID: string(acc.ID), Name: acc.Name, Permissions: perms}
	}
	return app
}

func (m merchantDoc) toDomain(now time.Time, accounts []sandbox.MerchantAccount) sandbox.Merchant {
	return sandbox.Merchant{ID: string(m.ID), Name: m.Name, PricingProfile: m.PricingProfile, Scenarios: m.Scenarios, Boarding: m.boarding(now, accounts)}
}

func (p pricingProfileDoc) toDomain() sandbox.PricingProfile {
	products := make(map[string]string, len(p.Products))
	for id, unit := range p.Products {
		products[string(id)] = string(unit)
	}
	return sandbox.PricingProfile{Name: p.Name, Currency: string(p.Currency), Products: products}
}

func (t transactionDoc) toDomain() sandbox.Transaction {
	created, _ := t.TimeCreated.time()
	tr := sandbox.Transaction{
		ID: string(t.ID), Holder: sandbox.Holder{MerchantID: string(t.MerchantID)}, TimeCreated: created,
		Type: string(t.Type), Status: string(t.Status), Amount: string(t.Amount),
		GratuityAmount: string(t.GratuityAmount), Currency: string(t.Currency),
		Country: string(t.Country), Reference: t.Reference,
		ExtraAmounts: sandbox.ExtraAmounts{CashbackAmount: string(t.CashbackAmount)},
		PaymentMethod: sandbox.PaymentResult{
			Result: t.PaymentMethod.Result, Message: t.PaymentMethod.Message,
			Card: sandbox.CardResult{
				Authcode: t.PaymentMethod.Card.Authcode, BrandReference: t.PaymentMethod.Card.BrandReference,
			},
		},
		BatchID: string(t.BatchID), BatchClosed: t.BatchClosed, Scenarios: t.Scenarios,
	}
	if b := t.PaymentMethod.BNPL; b != nil {
		tr.PaymentMethod.BNPL = &sandbox.BNPLResult{Provider: b.Provider}
	}
	if o := t.Order; o != nil {
		tr.Order = &sandbox.OrderAmounts{DutyAmount: string(o.DutyAmount), ShippingAmount: string(o.ShippingAmount)}
		for _, tax := range o.Taxes {
			tr.Order.Taxes = append(tr.Order.Taxes, sandbox.Tax{Type: tax.Type, Amount: string(tax.Amount)})
		}
	}
	if a := t.Action; a != nil {
		tr.Action = sandbox.Action{
			ID: string(a.ID), Type: a.Type, TimeCreated: string(a.TimeCreated),
			ResultCode: a.ResultCode, AppID: string(a.AppID), AppName: a.AppName,
		}
	} else {
		tr.Action = sandbox.Action{
			ID: defaultActionID(tr.ID), Type: "AUTHORIZE", TimeCreated: string(t.TimeCreated), ResultCode: "SUCCESS",
		}
	}
	return tr
}

// defaultActionID is the action id of a fixture transaction written without an
// action: "ACT_" and 30 alphanumerics derived from the transaction id, so the same
// fixtures always produce the same responses.
func defaultActionID(transactionID string) string {
	const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	sum := sha256.Sum256([]byte(transactionID))
	id := make([]byte, 30)
	for i := range id {
		id[i] = alphabet[int(sum[i])%len(alphabet)]
	}
	return "ACT_" + string(id)
}

func strs[S ~string](in []S) []string {
	if in == nil {
		return nil
	}
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = string(s)
	}
	return out
}
