package sandbox

import (
	"encoding/hex"
	"slices"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox/carddata"
)

// Test values of GP's sandbox, and the sandbox's own where GP documents none. The
// README's test-card table lists each with its outcome; a scenario can script any
// other outcome.
const (
	// DeclinedPINBlock is the PIN block GP's card-present tests send: with EMV tag data
	// (a chip read) a credit card is declined with result 55, a debit card approved
	// [GP]; swiped it is approved.
	DeclinedPINBlock = "32539F50C245A6A93D123412324000AA"
	// CVVMismatchCard is GP's card whose CVV never matches: a verification answers
	// NOT_VERIFIED [GP]; a sale or authorization fails downstream like the
	// processingErrorCards [GP].
	CVVMismatchCard = "30450000000985"
	// ExpiredTrackCard is the card of GP's expired test track (;4024720012345671=1812...):
	// as credit declined with result 54, as debit approved [GP]; unexpired, GP's debit
	// test card, approved with its PIN block [GP]. Other tracks are not
	// judged by their expiry date [SB]: GP's own approved test track expired in 2025
	// and its tests still use it.
	ExpiredTrackCard = "4024720012345671"
	// FundingDebit is payment_method.card.funding of a debit card. GP's debit tests
	// send the same tracks, PIN blocks and EMV data as its credit tests and expect
	// other outcomes, so funding is what tells them apart [GP]; without it a card is
	// credit, unless its chip names an Interac application, which only debit cards
	// have (debitCard).
	FundingDebit = "DEBIT"
	// ReauthorizationAuthcode is the authcode GP's sandbox gives a reauthorization
	// [GP]; CNPAuthcode the one it gives every approval on the card-not-present
	// channel [GP].
	ReauthorizationAuthcode = "VI1202"
	CNPAuthcode             = "123456"
	// ProcessingErrorCard is GP's Visa that fails downstream [GP].
	ProcessingErrorCard = "4009830000001985"
	// UnsupportedCard is GP's UATP card, a card type GP does not process [GP].
	UnsupportedCard = "135400000007187"
)

// declinedCards are GP's test cards that the issuer declines, with the result code
// GP gives each, brand by brand [GP].
var declinedCards = map[string]string{
	"4000120000001154": "101", "4000130000001724": "102", "4000160000004147": "103", "4242420000000091": "111",
	"5114610000004778": "101", "5114630000009791": "102", "5121220000006921": "103", "5100000000000131": "111",
	"376525000000010": "101", "375425000000907": "102", "343452000000306": "103", "374205502001004": "111",
	"36256000000998": "101", "36256000000634": "102", "38865000000705": "103",
	"6011000000001010": "101", "6011000000001028": "102", "6011000000001036": "103",
	"3566000000001016": "101", "3566000000001024": "102", "3566000000001032": "103",
}

// cardPresentDeclines are the declined cards whose result differs card present:
// keyed at a terminal, GP answers 38865000000705 with 14 (the .NET SDK's
// GpApiBatchTest.CloseBatch_WithCardNumberDetails_DeclinedTransaction), card not
// present with 103 (the Java and .NET certification tests) [GP].
var cardPresentDeclines = map[string]string{"38865000000705": "14"}

// cardPresent reports whether the card was read or keyed at a terminal, by its entry
// mode: the card-not-present modes are GP's ECOM, MOTO, PHONE, MAIL and IN_APP.
func cardPresent(in CardInput) bool {
	return !slices.Contains([]string{"ECOM", "MOTO", "PHONE", "MAIL", "IN_APP"}, in.EntryMode)
}

// processingErrorCards are GP's test cards whose payments fail downstream, one per
// brand [GP].
var processingErrorCards = []string{
	ProcessingErrorCard, "5135020000005871", "372349000000852", CVVMismatchCard, "6011000000002000", "3566000000002006",
}

// avsCards are GP's AVS test cards: the issuer's CVV, postal code and address
// results (M matched, N not matched, I, U, P not checked) whatever the request sends;
// the Mastercards are approved, the Visas declined [GP].
var avsCards = map[string]avsResult{
	"5167308114614170": {"M", "U", "U", true}, "5167300431085507": {"M", "I", "I", true},
	"5167302774869323": {"M", "P", "P", true}, "5167308372298823": {"M", "M", "M", true},
	"5167304376624205": {"M", "N", "N", true}, "5167305286858551": {"M", "N", "M", true},
	"5167302027021516": {"M", "N", "N", true}, "5167300747736579": {"N", "N", "M", true},
	"5167300575629722": {"N", "U", "U", true}, "5167305971795258": {"N", "I", "I", true},
	"5167306563324952": {"N", "P", "P", true}, "5167305301636255": {"N", "P", "M", true},
	"5167308925965308": {"N", "M", "N", true}, "5167308304373025": {"N", "N", "N", true},
	"4259917010910078": {"I", "U", "U", false}, "4259916460134858": {"I", "I", "I", false},
	"4259910583250337": {"I", "P", "P", false}, "4259913676419876": {"M", "M", "M", false},
	"4259915858684813": {"I", "M", "N", false}, "4259919754924299": {"I", "N", "M", false},
	"4259917979151326": {"I", "N", "N", false}, "4259915339571613": {"U", "U", "U", false},
	"4259911964632119": {"U", "I", "I", false}, "4259912262216019": {"U", "P", "P", false},
	"4259912836281333": {"U", "M", "M", false}, "4259914539794240": {"U", "M", "N", false},
	"4259913732291939": {"U", "N", "M", false}, "4259913622000341": {"U", "N", "N", false},
}

// avsResult is the issuer's CVV and AVS codes for one of GP's AVS test cards.
type avsResult struct {
	cvv, postalCode, address string
	approved                 bool
}

// checkWord is how payment_method.card shows an issuer's check code [GP].
func checkWord(code string) string {
	switch code {
	case "M":
		return "MATCHED"
	case "N":
		return "NOT_MATCHED"
	}
	return "NOT_CHECKED"
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
	avs       *avsResult
}

func approved() outcome { return outcome{approved: true, result: "00", message: "SUCCESS"} }

func declined(result string) outcome { return outcome{result: result, message: "DECLINED"} }

// decideCard checks the card data of a request and decides the issuer's answer: the
// scripted result when a scenario gives one, else from GP's test values. A request GP
// would refuse before asking an issuer is an error whatever is scripted; a decline is
// an outcome, answered 200 [GP].
func decideCard(action cardAction, in CardInput, amount, scripted string, now time.Time) (cardData, outcome, error) {
	d, err := checkCard(action, in, now)
	if err != nil {
		return d, outcome{}, err
	}
	if action == actionRefund && in.Tag != "" && in.PINBlock != "" {
		return d, outcome{}, OfflinePINRefund()
	}
	if d.number == UnsupportedCard {
		return d, outcome{}, CardNotSupported()
	}
	if scripted != "" {
		return d, withCVVResult(scriptedOutcome(scripted), in), nil
	}
	if slices.Contains(processingErrorCards, d.number) && (action != actionVerify || d.number != CVVMismatchCard) {
		return d, outcome{}, DownstreamProcessingError()
	}
	return d, withCVVResult(testCardOutcome(action, d, in, amount, now), in), nil
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
// The declines of GP's card-present test tracks are credit declines: the same data as
// debit is approved [GP].
func testCardOutcome(action cardAction, d cardData, in CardInput, amount string, now time.Time) outcome {
	o := approved()
	credit := !debitCard(in)
	switch {
	case d.fromTrack && d.number == ExpiredTrackCard && d.expired(now) && in.Funding != FundingDebit:
		// expired card [GP]: without funding too, whatever the chip names (the .NET and
		// PHP SDKs' CreditTrackData_SaleSwipeChip_ExpiredCreditTrackDataDetails); the
		// same card unexpired is GP's Interac debit card (PHP testDebitSaleSwipeChip)
		o = declined("54")
	case credit && d.encrypted:
		o = declined("14") // GP's E3 test track does not decrypt as a credit card [GP]
	case credit && in.Tag != "" && in.PINBlock != "" && action != actionRefund && !(d.number == ExpiredTrackCard && in.Funding == ""):
		// incorrect PIN [GP]: the PIN block GP's credit tests send is wrong for a credit
		// card; GP's debit test card unexpired, read without funding, is approved (.NET
		// GpApiBatchTest CloseBatch_ContactlessTransaction, PHP
		// testBatchClose_ContactlessTransaction)
		o = declined("55")
	case in.Tag != "" && action == actionSale && NormalizeAmount(amount) == "0":
		o = declined("13") // a zero-amount chip sale is declined [GP]; the code is ours [SB]
	case cardPresentDeclines[d.number] != "" && cardPresent(in):
		o = declined(cardPresentDeclines[d.number])
	case declinedCards[d.number] != "":
		o = declined(declinedCards[d.number])
	case d.number == CVVMismatchCard: // a verification: the CVV does not match [GP]
		o = declined("N7") // the code is ours [SB]
		o.cvvResult = "NOT_MATCHED"
	case avsCards[d.number] != avsResult{}:
		a := avsCards[d.number]
		if !a.approved {
			o = declined("05") // the code is ours [SB]
		}
		o.cvvResult, o.avs = checkWord(a.cvv), &a
	}
	return o
}

// debitCard reports whether a card is debit: funding says so, or, without funding,
// the chip names an Interac application (Interac is debit only). The .NET and PHP
// SDKs send no funding with track data; their debit tests with GP's Interac test
// card expect the debit outcome [GP] (A49).
func debitCard(in CardInput) bool {
	if in.Funding != "" {
		return in.Funding == FundingDebit
	}
	return carddata.InteracChip(in.Tag)
}

// withCVVResult notes a CVV the issuer did not judge otherwise as matched.
func withCVVResult(o outcome, in CardInput) outcome {
	if o.cvvResult == "" && in.CVV != "" {
		o.cvvResult = "MATCHED"
	}
	return o
}

// checkCard refuses card data GP would refuse before asking an issuer: no card at all
// (a chip's data without a track or number is a card), a manual card without its
// expiry, an expiry that is not a date or has passed (a verification is not judged by
// its expiry: PHP's AccessTokenTest verifies 4263970000005262 expiring 05/2025 in
// 2026, VERIFIED [GP]), a CVV of the wrong length, track data that is not a track; a
// verification's CVV that is not digits fails downstream (50018) [GP].
func checkCard(action cardAction, in CardInput, now time.Time) (cardData, error) {
	d := readCard(in)
	switch {
	case in.Track != "" && !d.trackParsed && !d.ciphertext:
		return d, InvalidField("payment_method.card.track")
	case d.fromTrack:
		return d, nil
	case in.Number == "" && in.Tag != "":
		return d, nil // the card is in the chip's data: a contactless or chip read without a track [GP]
	case in.Number == "" || in.ExpiryMonth == "" || in.ExpiryYear == "":
		return d, ConditionalFieldsMissing("number,expiry_month,expiry_year")
	case d.expired(now) && action != actionVerify:
		return d, InvalidCardData("Expiry date invalid")
	}
	if action == actionVerify && in.CVV != "" && !AllDigits(in.CVV) {
		return d, CVVNotNumeric()
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
