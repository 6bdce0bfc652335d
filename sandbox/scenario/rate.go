package scenario

import (
	"regexp"
	"slices"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/carddata"
)

// Rate scripts the DCC rate a currency conversion (POST /currency-conversions)
// answers, instead of the sandbox's table: another exchange rate, or status
// NOT_AVAILABLE. The rate is stored as answered, so the payments naming it follow.
type Rate struct {
	ExchangeRate string // at most three decimals, such as "0.857"
	Status       string // sandbox.RateAvailable or sandbox.RateNotAvailable; "" is AVAILABLE with ExchangeRate
}

// exchangeRatePattern is a rate as GP's tests show them: at most three decimals.
var exchangeRatePattern = regexp.MustCompile(`^[0-9]{1,6}(\.[0-9]{1,3})?$`)

// rateProblems lists what is wrong with a rate outcome of a rule for the operations
// valid.
func rateProblems(r Rate, hidden bool, valid []string) []OutcomeProblem {
	var ps []OutcomeProblem
	add := func(message string) { ps = append(ps, OutcomeProblem{Member: "rate", Message: message}) }
	switch {
	case r.Status != "" && r.Status != sandbox.RateAvailable && r.Status != sandbox.RateNotAvailable:
		add("rate.status: unknown status " + quote(r.Status) + " (want AVAILABLE or NOT_AVAILABLE)")
	case r.Status == sandbox.RateNotAvailable && r.ExchangeRate != "":
		add("rate: a NOT_AVAILABLE rate has no exchange_rate")
	case r.Status != sandbox.RateNotAvailable && !exchangeRatePattern.MatchString(r.ExchangeRate):
		add("rate.exchange_rate: must be a rate of at most three decimals such as \"0.857\", got " + quote(r.ExchangeRate))
	}
	if hidden {
		add("rate scripts the answer of an executed action: it cannot be combined with error or fault")
	}
	if i := slices.IndexFunc(valid, func(op string) bool { return op != string(sandbox.OpCurrencyConversion) }); i >= 0 {
		add("rate applies only to the currency_conversion operation (POST /currency-conversions), not " + valid[i])
	}
	return ps
}

func quote(s string) string { return "\"" + carddata.Excerpt(s) + "\"" }
