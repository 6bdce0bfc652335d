package sandbox

import (
	"math/big"
	"regexp"
	"time"
)

// Dynamic currency conversion: a rate looked up for a card and an amount
// (POST /currency-conversions), then named by its id on a sale, an authorization,
// a capture or a refund, which echoes the conversion of its own amount.

// Rate lookup statuses [GP].
const (
	RateAvailable    = "AVAILABLE"
	RateNotAvailable = "NOT_AVAILABLE"
)

// dccRate is one row of the rate table: the currency a card of a merchant's currency
// pays in, and the rate, at most three decimals [SB].
type dccRate struct {
	PayerCurrency string
	Rate          string
}

// dccRates is the sandbox's fixed rate table, by the merchant's currency [SB]. The
// EUR row is the one the SDKs' DCC tests use: 15.11 EUR at 1.1 is 16.621, whose payer
// amount is 16.62 however an SDK rounds it (Java down, PHP and Node half up).
var dccRates = map[string]dccRate{
	"EUR": {"USD", "1.1"},
	"USD": {"EUR", "0.91"},
	"GBP": {"USD", "1.25"},
	"CAD": {"USD", "0.73"},
	"AUD": {"USD", "0.66"},
}

// NoDCCCard is the card GP's DCC tests look a rate up for and get NOT_AVAILABLE [GP].
const NoDCCCard = "4263970000005262"

// DCC's constant members [SB]: GP's answers carry them; the sandbox charges neither
// margin nor commission.
const (
	dccRateSource     = "REUTERS"
	dccMarginRate     = "0"
	dccCommissionRate = "0"
)

// RateLookup is a looked-up rate, a DCC_ id. It keeps what the conversion of a later
// payment needs, and no card data.
type RateLookup struct {
	ID string `json:"id"`
	Holder
	AppID         string    `json:"app_id"`
	Status        string    `json:"status"`
	Channel       string    `json:"channel"`
	Amount        string    `json:"amount"`
	Currency      string    `json:"currency"`
	Country       string    `json:"country"`
	Reference     string    `json:"reference"`
	PayerCurrency string    `json:"payer_currency,omitempty"`
	ExchangeRate  string    `json:"exchange_rate,omitempty"`
	TimeCreated   time.Time `json:"time_created"`
	Action        Action    `json:"action"`
}

func (r RateLookup) merchant() string { return r.MerchantID }

func (r RateLookup) actionSubject() ActionRecord {
	return actionRecordOf(ResourceCurrencyConversions, r.ID, r.Status, r.Holder, r.Action)
}

// Conversion is the conversion of one amount at a looked-up rate: what a payment
// naming the rate echoes as currency_conversion, and the lookup's own figures.
type Conversion struct {
	ID       string `json:"id"`
	Status   string `json:"status"`
	Amount   string `json:"amount"`
	Currency string `json:"currency"`
	ConversionFigures
}

// ConversionFigures are what a conversion works out, as GP answers them on a rate
// lookup and on a payment's currency_conversion. A rate NOT_AVAILABLE has no rate.
type ConversionFigures struct {
	PayerAmount   string `json:"payer_amount,omitempty"`
	PayerCurrency string `json:"payer_currency,omitempty"`
	ExchangeRate  string `json:"exchange_rate,omitempty"`
	Margin        string `json:"margin_rate_percentage,omitempty"`
	Commission    string `json:"commission_percentage,omitempty"`
	Source        string `json:"exchange_rate_source,omitempty"`
	RateTime      string `json:"exchange_rate_time_created,omitempty"`
}

// ConvertAt converts amount (minor units) at r: the payer amount is amount × rate,
// rounded down to the cent, as the SDKs compute it. A rate NOT_AVAILABLE converts
// nothing: the payer pays the amount in its own currency.
func (r RateLookup) ConvertAt(amount string) Conversion {
	c := Conversion{ID: r.ID, Status: r.Status, Amount: amount, Currency: r.Currency}
	if r.Status != RateAvailable {
		c.PayerAmount, c.PayerCurrency = amount, r.Currency
		return c
	}
	c.PayerCurrency, c.ExchangeRate = r.PayerCurrency, r.ExchangeRate
	c.PayerAmount = convertAmount(amount, r.ExchangeRate)
	c.Margin, c.Commission, c.Source = dccMarginRate, dccCommissionRate, dccRateSource
	c.RateTime = FormatTime(r.TimeCreated)
	return c
}

// convertAmount is amount (minor units) × rate (a decimal), rounded down to a whole
// minor unit, in exact arithmetic.
func convertAmount(amount, rate string) string {
	a, okA := new(big.Rat).SetString(orDefault(amount, "0"))
	x, okX := new(big.Rat).SetString(rate)
	if !okA || !okX {
		return ""
	}
	p := new(big.Rat).Mul(a, x)
	return new(big.Int).Quo(p.Num(), p.Denom()).String()
}

// RateLookupRequest is a validated POST /currency-conversions body.
type RateLookupRequest struct {
	MerchantID  string
	AccountID   string
	AccountName string
	Channel     string
	Amount      string
	Currency    string
	Country     string
	Reference   string
	Card        CardInput
	TokenID     string
	Idempotency Idempotency
	Scripted    *ScriptedRate // a scenario's rate instead of the table's
}

// ScriptedRate is the rate a scenario makes a lookup answer: an exchange rate, or
// status NOT_AVAILABLE.
type ScriptedRate struct {
	ExchangeRate string
	Status       string
}

// LookUpRate answers a rate for the card and the amount from the rate table: the
// card GP's tests name, and a currency the table lacks, are NOT_AVAILABLE. A card
// number that fails the Luhn check is GP's 40090 [GP]; a stored card is not checked,
// as its number is rebuilt from the token's first six and last four digits (storedCard)
// and no Luhn check is made when a card is tokenized [SB].
func (s *Service) LookUpRate(c Caller, req RateLookupRequest) (RateLookup, error) {
	v, _, err := execute(s, c, req.Idempotency, "currency_conversion", func(tx Tx, now time.Time) (string, RateLookup, error) {
		m, acct, err := s.transactionAccount(tx, c, TransactionRequest{MerchantID: req.MerchantID, AccountID: req.AccountID, AccountName: req.AccountName})
		if err != nil {
			return "", RateLookup{}, err
		}
		card := req.Card
		if req.TokenID != "" {
			// A lookup reads the stored card: only a payment uses up a single-use one (A54).
			if card, _, err = storedCard(tx, c, req.MerchantID, req.TokenID, card); err != nil {
				return "", RateLookup{}, err
			}
		}
		number := readCard(card).number
		if req.TokenID == "" && card.Track == "" && !luhnValid(number) {
			return "", RateLookup{}, InvalidURLField("card.number")
		}
		r := RateLookup{
			ID: "DCC_" + s.ids.Alphanumeric(30), Holder: HolderOf(m, acct), AppID: c.App.ID, Status: RateNotAvailable, Channel: req.Channel,
			Amount: NormalizeAmount(req.Amount), Currency: req.Currency, Country: req.Country,
			Reference: req.Reference, TimeCreated: now, Action: s.newAction(c, "RATE_LOOKUP", now),
		}
		if rate, ok := dccRates[req.Currency]; ok && number != NoDCCCard {
			r.Status, r.PayerCurrency, r.ExchangeRate = RateAvailable, rate.PayerCurrency, rate.Rate
		}
		scriptRate(&r, req.Scripted)
		return r.ID, r, tx.PutRateLookup(r)
	})
	return v, err
}

// scriptRate applies a scenario's rate: NOT_AVAILABLE, or an exchange rate, the
// payer's currency the table's for the currency (USD when the table has none) [SB].
func scriptRate(r *RateLookup, s *ScriptedRate) {
	switch {
	case s == nil:
	case s.Status == RateNotAvailable:
		r.Status, r.PayerCurrency, r.ExchangeRate = RateNotAvailable, "", ""
	default:
		r.Status, r.ExchangeRate = RateAvailable, s.ExchangeRate
		r.PayerCurrency = orDefault(dccRates[r.Currency].PayerCurrency, "USD")
	}
}

// rateIDPattern is a well-formed rate id [SB].
var rateIDPattern = regexp.MustCompile(`^DCC_[0-9A-Za-z]{1,46}$`)

// convertWithRate reads the rate a payment names (one of a merchant the caller acts
// for) and converts the payment's amount at it. An unknown rate is 40008 naming it.
func convertWithRate(tx Tx, c Caller, merchantID, rateID, amount string) (*Conversion, error) {
	if rateID == "" {
		return nil, nil
	}
	if !rateIDPattern.MatchString(rateID) {
		return nil, InvalidField("currency_conversion.id")
	}
	r, err := visible(c, merchantID, rateID, tx.RateLookup, NotFoundRate)
	if err != nil {
		return nil, err
	}
	conv := r.ConvertAt(amount)
	return &conv, nil
}

// luhnValid reports whether number passes the Luhn check (carddata's masker finds
// card numbers inside text, which is looser than this check of one whole number).
func luhnValid(number string) bool {
	if len(number) < 12 || !AllDigits(number) {
		return false
	}
	sum := 0
	for i := range len(number) {
		n := int(number[len(number)-1-i] - '0')
		if i%2 == 1 {
			if n *= 2; n > 9 {
				n -= 9
			}
		}
		sum += n
	}
	return sum%10 == 0
}

// duplicateRate is the 409 of a repeated lookup: GP names the rate and its status [GP].
func duplicateRate(tx Tx, rec IdempotencyRecord) error {
	r, err := tx.RateLookup(rec.ResourceID)
	if err != nil {
		return notFoundAs(err, DuplicateAction(rec.ResourceID, ""))
	}
	return DuplicateAction(rec.ResourceID, r.Status)
}

// rateTx is the store's part for looked-up rates.
type rateTx interface {
	RateLookup(id string) (RateLookup, error)
	PutRateLookup(RateLookup) error
}
