package sandbox

import (
	"regexp"
	"slices"
	"strings"
	"time"
)

// Payment method (token) statuses and usage modes [GP].
const (
	TokenActive  = "ACTIVE"
	TokenDeleted = "DELETED"

	UsageSingle   = "SINGLE"
	UsageMultiple = "MULTIPLE"

	// A payment's payment_method.storage_mode: store its card as a multi-use token
	// whatever the issuer said, or only when it approved [GP]. OFF and PROMPT (.NET's
	// other two; PROMPT asks a payer on a hosted page) store none [SB].
	StorageAlways    = "ALWAYS"
	StorageOnSuccess = "ON_SUCCESS"
)

// PaymentMethod is a stored card token, a PMT_ id. Of the card it keeps what a
// transaction keeps (brand, first six and last four digits) and the expiry, which a
// charge needs and which is no card data; never the number, CVV or track.
type PaymentMethod struct {
	ID string `json:"id"`
	Holder
	AppID           string     `json:"app_id"`
	Status          string     `json:"status"`
	UsageMode       string     `json:"usage_mode"`
	Reference       string     `json:"reference,omitempty"`
	Name            string     `json:"name,omitempty"`
	Card            StoredCard `json:"card"`
	ExpiryMonth     string     `json:"expiry_month"`
	ExpiryYear      string     `json:"expiry_year"`
	TimeCreated     time.Time  `json:"time_created"`
	TimeLastUpdated time.Time  `json:"time_last_updated"`
	Action          Action     `json:"action"`
	*Fingerprint               // what the creation's fingerprint_mode asked for: nil without one
}

// paymentMethodIDPattern is a well-formed token id: PMT_ and the letters, digits and
// dashes of a UUID [GP]. Anything else is refused before it is looked up.
var paymentMethodIDPattern = regexp.MustCompile(`^PMT_[0-9A-Za-z-]{1,46}$`)

// ValidPaymentMethodID reports whether id has the shape of a token id.
func ValidPaymentMethodID(id string) bool { return paymentMethodIDPattern.MatchString(id) }

// newPaymentMethodID is PMT_ and a lower-case UUID-shaped id, as GP writes them [GP].
func (s *Service) newPaymentMethodID() string {
	const hexDigits = "0123456789abcdef"
	raw := []byte(s.ids.Alphanumeric(32))
	for i, c := range raw {
		raw[i] = hexDigits[int(c)%16]
	}
	h := string(raw)
	return "PMT_" + h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// TokenizeRequest is a validated POST /payment-methods body.
type TokenizeRequest struct {
	MerchantID  string // the partner path's merchant; else the app's own
	AccountID   string
	AccountName string
	Reference   string
	Name        string
	UsageMode   string // SINGLE or MULTIPLE; "" is MULTIPLE [SB]
	// FingerprintMode asks for the card's fingerprint in the answer (cardFingerprint).
	FingerprintMode string
	Card            CardInput
	Idempotency     Idempotency
}

// Tokenize stores a card as a token of the app's tokenization account. The card is
// checked as a charge would check it (number, expiry, CVV length); it is not sent to
// an issuer [SB].
func (s *Service) Tokenize(c Caller, req TokenizeRequest) (PaymentMethod, error) {
	v, _, err := execute(s, c, req.Idempotency, "payment_method", func(tx Tx, now time.Time) (string, PaymentMethod, error) {
		m, acct, err := s.tokenizationAccount(tx, c, req)
		if err != nil {
			return "", PaymentMethod{}, err
		}
		if req.Card.Number == "" && req.Card.Track == "" {
			return "", PaymentMethod{}, MissingFields(": number") // GP's spacing [GP]
		}
		d, err := checkCard(actionSale, req.Card, now) // a card is tokenized as a sale would read it
		if err != nil {
			return "", PaymentMethod{}, err
		}
		pm := s.newPaymentMethod(c, HolderOf(m, acct), d, orDefault(req.UsageMode, UsageMultiple), req.Reference, req.Name, now)
		pm.Fingerprint = cardFingerprint(req.FingerprintMode, m.ID, pm.Card, d, true)
		return pm.ID, pm, tx.PutPaymentMethod(pm)
	})
	return v, err
}

// newPaymentMethod is a new token of the card d, as POST /payment-methods and a
// payment's storage_mode store it: of the card, its brand, first six and last four
// digits and its expiry.
func (s *Service) newPaymentMethod(c Caller, h Holder, d cardData, usage, reference, name string, now time.Time) PaymentMethod {
	return PaymentMethod{
		ID: s.newPaymentMethodID(), Holder: h, AppID: c.App.ID, Status: TokenActive, UsageMode: usage,
		Reference: reference, Name: name, Card: d.stored(""),
		ExpiryMonth: twoDigits(d.expiryMM), ExpiryYear: twoDigits(d.expiryYY), TimeCreated: now, TimeLastUpdated: now,
		Action: s.newAction(c, "PAYMENT_METHOD_CREATE", now),
	}
}

// keepsCard reports whether a payment with this storage mode stores its card: a sale,
// an authorization or a verification (a refund pays a card out, and stores none).
func keepsCard(storageMode string, action cardAction, approved bool) bool {
	if action == actionRefund {
		return false
	}
	return storageMode == StorageAlways || storageMode == StorageOnSuccess && approved
}

// keepCard stores the card a payment was made with as a multi-use token of the app's
// tokenization account, as POST /payment-methods would, and returns its id, which the
// payment answers as payment_method.id, as GP does with a storage_mode. Only a caller
// that may tokenize stores one: without the permission, the app's tokenization
// account, or a number read in clear (an encrypted track, a chip's tag alone), the
// payment goes through and answers no token [SB]. The token's creation is an action
// of its own.
func (s *Service) keepCard(tx Tx, c Caller, req TransactionRequest, d cardData, now time.Time) (string, error) {
	if d.stored("").First6 == "" || authorizeCardPresent(c, OpPaymentMethodCreate) != nil ||
		!slices.ContainsFunc(c.App.Accounts, tokenizes) {
		return "", nil
	}
	m, acct, err := s.tokenizationAccount(tx, c, TokenizeRequest{MerchantID: req.MerchantID})
	if err != nil {
		return "", err
	}
	pm := s.newPaymentMethod(c, HolderOf(m, acct), d, UsageMultiple, req.Reference, req.Card.Name, now)
	if err := tx.PutPaymentMethod(pm); err != nil {
		return "", err
	}
	return pm.ID, recordAction(tx, c, pm, now)
}

// twoDigits writes a month or a year as the SDKs send it: two digits.
func twoDigits(s string) string {
	if len(s) == 1 {
		return "0" + s
	}
	if len(s) == 4 {
		return s[2:]
	}
	return s
}

// tokenizationAccount finds the merchant a token is for and the app's tokenization
// account it goes to: the one the request names (by id or name), else the first
// account that may create tokens. One the app does not hold is GP's 40041.
func (s *Service) tokenizationAccount(tx Tx, c Caller, req TokenizeRequest) (Merchant, Account, error) {
	merchantID := orDefault(req.MerchantID, c.App.MerchantID)
	for _, a := range c.App.Accounts {
		if !tokenizes(a) {
			continue
		}
		if (req.AccountID == "" || a.ID == req.AccountID) && (req.AccountName == "" || a.Name == req.AccountName) && c.App.ActsFor(merchantID) {
			m, err := tx.Merchant(merchantID)
			if err == nil {
				return m, a, nil
			}
			return Merchant{}, Account{}, notFoundAs(err, MerchantNotConfigured(a.ID, merchantID))
		}
	}
	return Merchant{}, Account{}, MerchantNotConfigured(orDefault(req.AccountID, req.AccountName, accountFor(c.App, PermTokenize)), merchantID)
}

// tokenizes reports whether an account may store cards, multi-use or single-use.
func tokenizes(a Account) bool {
	return hasPermission(a, PermTokenize) || hasPermission(a, PermTokenizeSingle)
}

// visiblePaymentMethod reads a token the caller may use: one of a merchant its app
// acts for, and the partner path's merchant when the path names one. Any other, a
// deleted one included, is unknown (40116).
func visiblePaymentMethod(tx Tx, c Caller, merchantID, id string) (PaymentMethod, error) {
	return visible(c, merchantID, id, tx.PaymentMethod, NotFoundPaymentMethod)
}

// GetPaymentMethod reads a token. One the app cannot see is 40118 naming the path it
// was asked at (GP's /ucp/payment-methods/{id}), not the 40116 of using it.
func (s *Service) GetPaymentMethod(c Caller, merchantID, id, path string) (PaymentMethod, error) {
	var pm PaymentMethod
	err := s.store.View(func(tx Tx) error {
		var err error
		pm, err = visible(c, merchantID, id, tx.PaymentMethod, func(id string) *Error { return NotFoundPaymentMethodDetail(id, path) })
		return err
	})
	return pm, err
}

// EditPaymentMethodRequest is a validated PATCH /payment-methods/{id} body.
type EditPaymentMethodRequest struct {
	MerchantID  string
	ID          string
	UsageMode   string
	Name        string
	ExpiryMonth string
	ExpiryYear  string
	Number      string // a new card number: only its brand and digits shown are kept
	Idempotency Idempotency
}

// EditPaymentMethod changes a token's expiry, holder name or card. A token can only
// stay multi-use (50020), and an edit must say something (50021) [GP].
func (s *Service) EditPaymentMethod(c Caller, req EditPaymentMethodRequest) (PaymentMethod, error) {
	v, _, err := execute(s, c, req.Idempotency, "payment_method", func(tx Tx, now time.Time) (string, PaymentMethod, error) {
		// GP checks the body before it looks the token up: a random id with a single
		// usage mode is 50020, with an expiry 40116 (the SDKs' tests).
		switch {
		case req.UsageMode == UsageSingle:
			return "", PaymentMethod{}, TokenUsageOnlyMulti()
		case req.UsageMode == "" && (req.ExpiryMonth == "" || req.ExpiryYear == ""):
			return "", PaymentMethod{}, TokenEditMissingFields()
		}
		pm, err := visiblePaymentMethod(tx, c, req.MerchantID, req.ID)
		if err != nil {
			return "", PaymentMethod{}, err
		}
		if req.Number != "" {
			pm.Card = readCard(CardInput{Number: req.Number}).stored("")
		}
		if req.ExpiryMonth != "" && req.ExpiryYear != "" {
			pm.ExpiryMonth, pm.ExpiryYear = twoDigits(req.ExpiryMonth), twoDigits(req.ExpiryYear)
			if (cardData{expiryMM: pm.ExpiryMonth, expiryYY: pm.ExpiryYear}).expired(now) {
				return "", PaymentMethod{}, InvalidCardData("Expiry date invalid")
			}
		}
		if req.Name != "" {
			pm.Name = req.Name
		}
		pm.UsageMode = orDefault(req.UsageMode, pm.UsageMode)
		pm.TimeLastUpdated, pm.Action = now, s.newAction(c, "PAYMENT_METHOD_EDIT", now)
		return pm.ID, pm, tx.PutPaymentMethod(pm)
	})
	return v, err
}

// DeletePaymentMethod forgets a token: later uses are 40116. The answer is the token
// as it was, DELETED.
func (s *Service) DeletePaymentMethod(c Caller, merchantID, id string, idem Idempotency) (PaymentMethod, error) {
	v, _, err := execute(s, c, idem, "payment_method", func(tx Tx, now time.Time) (string, PaymentMethod, error) {
		pm, err := visiblePaymentMethod(tx, c, merchantID, id)
		if err != nil {
			return "", PaymentMethod{}, err
		}
		pm.Status, pm.TimeLastUpdated, pm.Action = TokenDeleted, now, s.newAction(c, "PAYMENT_METHOD_DELETE", now)
		return pm.ID, pm, tx.DeletePaymentMethod(id)
	})
	return v, err
}

// tokenCard turns a charge by token into the card input a charge by card is
// (storedCard). A single-use token is consumed.
func tokenCard(tx Tx, c Caller, merchantID, id string, in CardInput) (CardInput, PaymentMethod, error) {
	in, pm, err := storedCard(tx, c, merchantID, id, in)
	if err == nil && pm.UsageMode == UsageSingle {
		err = tx.DeletePaymentMethod(id)
	}
	return in, pm, err
}

// storedCard is the card input a stored payment method stands for: the token's card
// and expiry, with what the request adds (entry mode, CVV, name). The number is GP's
// test card with the token's first six and last four digits, so that a test card
// keeps its outcome when tokenized; any other card's middle digits are zeros, which no
// outcome depends on and which need not pass the Luhn check (so a rate lookup does
// not check it). It lives only as long as the request.
func storedCard(tx Tx, c Caller, merchantID, id string, in CardInput) (CardInput, PaymentMethod, error) {
	pm, err := visiblePaymentMethod(tx, c, merchantID, id)
	if err != nil {
		return in, pm, err
	}
	in.Number = testCardLike(pm.Card.First6, pm.Card.Last4)
	in.ExpiryMonth, in.ExpiryYear, in.Track = pm.ExpiryMonth, pm.ExpiryYear, ""
	if in.Name == "" {
		in.Name = pm.Name
	}
	return in, pm, nil
}

// testCards are the numbers whose outcome GP's sandbox decides (see testCardOutcome).
func testCards() []string {
	cards := []string{CVVMismatchCard, ExpiredTrackCard, ProcessingErrorCard}
	for n := range declinedCards {
		cards = append(cards, n)
	}
	slices.Sort(cards)
	return cards
}

// testCardLike is the test card with these first six and last four digits, or a
// 16-digit number of them with zeros between.
func testCardLike(first6, last4 string) string {
	for _, n := range testCards() {
		if strings.HasPrefix(n, first6) && strings.HasSuffix(n, last4) {
			return n
		}
	}
	return first6 + "000000" + last4
}
