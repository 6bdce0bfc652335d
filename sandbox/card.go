package sandbox

import (
	"strings"
	"time"
)

// CardInput is payment_method of a card request as the SDKs send it, for every entry
// mode. It lives only as long as the request, and is the place each card member's
// rule is stated: what a transaction or a token keeps of it is built from it here
// (readCard, cardData.stored) and in paymentResult, and nothing else of it is kept.
type CardInput struct {
	EntryMode     string // SWIPE, CHIP, MANUAL, CONTACTLESS_CHIP, ... (ECOM, MOTO for CNP): kept
	Name          string // the cardholder's name: no card data, kept as sent
	Number        string // card data: kept as brand, first six and last four digits (stored)
	ExpiryMonth   string // kept by a token only, which a charge needs
	ExpiryYear    string // two digits, as the SDKs send it; as ExpiryMonth
	CVV           string // card data: read for the outcome, dropped
	Track         string // card data: read for the number and expiry, dropped
	Tag           string // EMV TLV data in hex, card data: read for the outcome, dropped
	PINBlock      string // card data: read for the outcome, dropped
	ChipCondition string // PREV_SUCCESS, PREV_FAILED: read, dropped
	Funding       string // CREDIT, DEBIT: kept
	Encrypted     bool   // payment_method.encryption was sent: Track may be ciphertext
	Authcode      string // an offline authorization code: no card data, kept as sent
	AVSAddress    string // read for the AVS outcome, dropped
	AVSPostalCode string // as AVSAddress
}

// StoredCard is what the sandbox keeps of a card: enough to show and to search
// transactions by, nothing that could pay.
type StoredCard struct {
	Brand   string `json:"brand,omitempty"`
	First6  string `json:"first6,omitempty"`
	Last4   string `json:"last4,omitempty"`
	Digits  int    `json:"digits,omitempty"` // how many digits the number has, for its mask
	Funding string `json:"funding,omitempty"`
	Name    string `json:"name,omitempty"` // the cardholder's, as payment_method.name sent it
}

// MaskedLast4 is the masked_number_last4 GP shows: X for every digit but the last four.
func (c StoredCard) MaskedLast4() string {
	if c.Last4 == "" {
		return ""
	}
	return "XXXXXXXXXXXX" + c.Last4
}

// MaskedFirst6Last4 is the masked_number_first6last4 GP's reporting shows: the first
// six and last four digits with an X for each digit between, so that the mask is as
// long as the number ("411111XXXXXX1111", "379132XXXXX1007") [GP]. A card kept
// before its length was is taken to have the usual length of its brand [SB].
func (c StoredCard) MaskedFirst6Last4() string {
	if c.First6 == "" || c.Last4 == "" {
		return ""
	}
	digits := c.Digits
	if digits == 0 {
		digits = 16
		if c.Brand == "AMEX" {
			digits = 15
		}
	}
	return c.First6 + strings.Repeat("X", max(digits-10, 0)) + c.Last4
}

// cardData is what the Service reads out of a CardInput: the number (from the manual
// fields or the track) and its expiry.
type cardData struct {
	number      string
	expiryYY    string
	expiryMM    string
	fromTrack   bool
	trackParsed bool
	encrypted   bool // the track came in an E3 envelope
	ciphertext  bool // an encrypted track with nothing in clear: no number, no expiry
}

// readCard extracts the card number and expiry from manual fields or track data:
// track 1 is %B<number>^<name>^<YYMM>..., track 2 is ;<number>=<YYMM>...
func readCard(in CardInput) cardData {
	if in.Track == "" {
		return cardData{number: in.Number, expiryYY: in.ExpiryYear, expiryMM: in.ExpiryMonth}
	}
	d := cardData{fromTrack: true}
	track := in.Track
	// An E3 reader's envelope (<E1...>, HTML-escaped by the Java and .NET SDKs'
	// tests) carries the masked tracks in clear between its encrypted parts.
	if inner, ok := e3Envelope(track); ok {
		d.encrypted, track = true, inner
	}
	if i := strings.Index(track, ";"); i >= 0 && strings.Contains(track[i:], "=") {
		t2 := track[i+1:]
		num, rest, _ := strings.Cut(t2, "=")
		d.number = num
		if len(rest) >= 4 {
			d.expiryYY, d.expiryMM = rest[:2], rest[2:4]
		}
	} else if strings.HasPrefix(track, "%B") {
		parts := strings.SplitN(track[2:], "^", 3)
		if len(parts) == 3 && len(parts[2]) >= 4 {
			d.number, d.expiryYY, d.expiryMM = parts[0], parts[2][:2], parts[2][2:4]
		}
	}
	d.trackParsed = AllDigits(d.number) && len(d.number) >= 12 && len(d.number) <= 19 &&
		AllDigits(d.expiryYY) && AllDigits(d.expiryMM)
	if !d.trackParsed && in.Encrypted {
		// Only GP can decrypt it: the sandbox knows neither the card nor its brand.
		d = cardData{fromTrack: true, ciphertext: true}
	}
	return d
}

// EncryptedTrack reports whether a track is encrypted: sent with
// payment_method.encryption, or in an E3 reader's envelope. Its length is the
// encryption's, not a track's.
func EncryptedTrack(track string, withEncryption bool) bool {
	_, e3 := e3Envelope(track)
	return withEncryption || e3
}

// e3Envelope returns an E3 reader's envelope without its opening bracket, and whether
// the track is one.
func e3Envelope(track string) (string, bool) {
	inner := strings.TrimPrefix(strings.TrimPrefix(track, "&lt;"), "<")
	return inner, strings.HasPrefix(inner, "E1")
}

// expired reports whether a card expiring at the end of its month has expired by
// now, or has no expiry a card can have. The year is read as written: YY (or Y, as a
// number loses its zero) is 20YY, YYYY is itself; three digits are no year.
func (d cardData) expired(now time.Time) bool {
	year, mm := atoiDigits(d.expiryYY), atoiDigits(d.expiryMM)
	switch len(d.expiryYY) {
	case 1, 2:
		year += 2000
	case 4:
	default:
		return true
	}
	if mm < 1 || mm > 12 {
		return true
	}
	end := time.Date(year, time.Month(mm)+1, 1, 0, 0, 0, 0, time.UTC)
	return !now.Before(end)
}

func (d cardData) stored(funding string) StoredCard {
	c := StoredCard{Funding: funding}
	if !d.ciphertext {
		c.Brand = CardBrand(d.number)
	}
	if len(d.number) >= 10 {
		c.First6, c.Last4, c.Digits = d.number[:6], d.number[len(d.number)-4:], len(d.number)
	}
	return c
}

// CardBrand names the card scheme of a number by its prefix, as GP's brand field does.
func CardBrand(number string) string {
	p := func(n int) int {
		if len(number) < n {
			return -1
		}
		return atoiDigits(number[:n])
	}
	switch {
	case strings.HasPrefix(number, "4"):
		return "VISA"
	case p(2) >= 51 && p(2) <= 55, p(4) >= 2221 && p(4) <= 2720:
		return "MASTERCARD"
	case p(2) == 34 || p(2) == 37:
		return "AMEX"
	case p(4) == 6011 || p(2) == 65 || (p(3) >= 644 && p(3) <= 649):
		return "DISCOVER"
	case p(2) == 36 || p(2) == 38 || (p(3) >= 300 && p(3) <= 305):
		return "DINERS"
	case p(2) == 35:
		return "JCB"
	}
	return "UNKNOWN"
}

// AllDigits reports whether s is one or more decimal digits, the shape of GP's amounts
// and card numbers.
func AllDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func atoiDigits(s string) int {
	if !AllDigits(s) || len(s) > 9 {
		return -1
	}
	n := 0
	for i := 0; i < len(s); i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n
}
