package sandbox

import (
	"encoding/hex"
	"time"
)

// Test values of GP's sandbox, and the sandbox's own where GP documents none. The
// README's test-card table lists each with its outcome; a scenario can script any
// other outcome.
const (
	// DeclinedPINBlock is the PIN block GP's card-present tests send: with EMV tag data
	// (a chip read) the issuer declines it with result 55 [GP]; swiped it is approved.
	DeclinedPINBlock = "32539F50C245A6A93D123412324000AA"
	// CVVMismatchCard is GP's card whose CVV never matches: a verification answers
	// NOT_VERIFIED [GP]; a sale or authorization is declined, result N7 [SB].
	CVVMismatchCard = "30450000000985"
	// ExpiredTrackCard is the card of GP's expired test track (;4024720012345671=1812...):
	// declined with result 54 [GP]. Other tracks are not judged by their expiry date
	// [SB]: GP's own approved test track expired in 2025 and its tests still use it.
	ExpiredTrackCard = "4024720012345671"
	// ProcessingErrorCard is GP's card-not-present card that fails downstream [GP].
	ProcessingErrorCard = "4009830000001985"
)

// declinedCards are GP's card-not-present test cards that the issuer declines, with
// the result code GP gives each [GP].
var declinedCards = map[string]string{
	"4000120000001154": "101",
	"4000130000001724": "102",
	"4000160000004147": "103",
	"4242420000000091": "111",
}

// cardAction is what a card request asks of the issuer.
type cardAction int

const (
	actionSale cardAction = iota
	actionAuthorize
	actionRefund
	actionVerify
)

// outcome is the issuer's answer to a card request.
type outcome struct {
	approved  bool
	result    string // "00" or the issuer's code
	message   string
	cvvResult string // MATCHED, NOT_MATCHED, or "" when no CVV was sent
}

func approved() outcome { return outcome{approved: true, result: "00", message: "SUCCESS"} }

func declined(result string) outcome { return outcome{result: result, message: "DECLINED"} }

// decideCard checks the card data of a request and decides the issuer's answer: the
// scripted result when a scenario gives one, else from GP's test values. A request GP
// would refuse before asking an issuer is an error whatever is scripted; a decline is
// an outcome, answered 200 [GP].
func decideCard(action cardAction, in CardInput, amount, scripted string, now time.Time) (cardData, outcome, error) {
	d, err := checkCard(in, now)
	if err != nil {
		return d, outcome{}, err
	}
	if action == actionRefund && in.Tag != "" && in.PINBlock != "" {
		return d, outcome{}, OfflinePINRefund()
	}
	if scripted != "" {
		return d, withCVVResult(scriptedOutcome(scripted), in), nil
	}
	if d.number == ProcessingErrorCard {
		return d, outcome{}, DownstreamProcessingError()
	}
	return d, withCVVResult(testCardOutcome(action, d, in, amount), in), nil
}

// scriptedOutcome is the issuer's answer a scenario scripts: "00" approves, any other
// result declines.
func scriptedOutcome(result string) outcome {
	if result == "00" {
		return approved()
	}
	return declined(result)
}

// testCardOutcome is the issuer's answer GP's sandbox gives to its test values.
func testCardOutcome(action cardAction, d cardData, in CardInput, amount string) outcome {
	o := approved()
	switch {
	case d.fromTrack && d.number == ExpiredTrackCard:
		o = declined("54") // expired card [GP]
	case in.Tag != "" && in.PINBlock != "" && action != actionRefund:
		o = declined("55") // incorrect PIN [GP]
	case in.Tag != "" && action == actionSale && NormalizeAmount(amount) == "0":
		o = declined("13") // a zero-amount chip sale is declined [GP]; the code is ours [SB]
	case declinedCards[d.number] != "":
		o = declined(declinedCards[d.number])
	case d.number == CVVMismatchCard:
		o = declined("N7")
		o.cvvResult = "NOT_MATCHED"
	}
	return o
}

// withCVVResult notes a CVV the issuer did not judge otherwise as matched.
func withCVVResult(o outcome, in CardInput) outcome {
	if o.cvvResult == "" && in.CVV != "" {
		o.cvvResult = "MATCHED"
	}
	return o
}

// checkCard refuses card data GP would refuse before asking an issuer: no card at all,
// a manual card without its expiry, an expiry that is not a date or has passed, a CVV
// of the wrong length, track data that is not a track.
func checkCard(in CardInput, now time.Time) (cardData, error) {
	d := readCard(in)
	switch {
	case in.Track != "" && !d.trackParsed:
		return d, InvalidField("payment_method.card.track")
	case d.fromTrack:
		return d, nil
	case in.Number == "" || in.ExpiryMonth == "" || in.ExpiryYear == "":
		return d, ConditionalFieldsMissing("number,expiry_month,expiry_year")
	case d.expired(now):
		return d, InvalidCardData("Expiry date invalid")
	}
	if in.CVV != "" {
		want := 3
		if CardBrand(d.number) == "AMEX" {
			want = 4
		}
		if len(in.CVV) != want || !AllDigits(in.CVV) {
			return d, InvalidCardData("Security Code/CVV2/CVC must be " + string(rune('0'+want)) + " digits")
		}
	}
	return d, nil
}

// tagResponse is the EMV data the issuer sends back to a chip read: tag 8A, the
// authorization response code, in ASCII [SB].
func tagResponse(in CardInput, o outcome) string {
	if in.Tag == "" {
		return ""
	}
	code := o.result
	if len(code) != 2 {
		code = "05"
	}
	return "8A02" + hex.EncodeToString([]byte(code))
}
