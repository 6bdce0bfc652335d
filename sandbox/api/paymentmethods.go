package api

import (
	"strconv"
	"strings"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// createPaymentMethod is POST /payment-methods and its partner form: tokenize a card
// into the app's tokenization account [GP].
var createPaymentMethod = operation{
	op:            sandbox.OpPaymentMethodCreate,
	authenticated: true,
	pathIDs:       []string{"merchant_id"},
	handler: handle(func(s *Server, c *call, req tokenizeBody) (any, error) {
		pm, err := s.svc.Tokenize(c.caller, sandbox.TokenizeRequest{
			MerchantID: c.vars["merchant_id"], AccountID: req.AccountID, AccountName: req.AccountName,
			Reference: req.Reference, Name: req.Name, UsageMode: req.UsageMode, FingerprintMode: req.FingerprintMode,
			Idempotency: c.idem,
			Card: sandbox.CardInput{
				Number: req.Card.Number, ExpiryMonth: req.Card.ExpiryMonth.digits(),
				ExpiryYear: req.Card.ExpiryYear.digits(), CVV: req.Card.CVV, Track: req.Card.Track,
			},
		})
		if err != nil {
			return nil, err
		}
		return paymentMethodAnswer(c, pm), nil
	}),
}

// tokenizeBody is a POST /payment-methods body.
type tokenizeBody struct {
	accountBody
	Name            string `json:"name" gp:"min=0,max=100"` // .NET sends "" [GP]
	Reference       string `json:"reference" gp:"max=100"`
	UsageMode       string `json:"usage_mode" gp:"enum=SINGLE|MULTIPLE"`
	FingerprintMode string `json:"fingerprint_mode" gp:"enum=ALWAYS|ON_SUCCESS"`
	Payer           struct {
		ID string `json:"id" gp:"min=0,max=50"`
	} `json:"payer"`
	// A keyed card, or a card-present read's track. Node copies the expiry as given,
	// so a month may come as a number.
	Card struct {
		Number      string `json:"number" gp:"digits,max=19"`
		ExpiryMonth count  `json:"expiry_month" gp:"or-string,min=1,max=12"`
		ExpiryYear  count  `json:"expiry_year" gp:"or-string,max=9999"`
		CVV         string `json:"cvv" gp:"max=10"` // its length is judged with the card's brand: 40085
		Track       string `json:"track" gp:"max=300"`
	} `json:"card" gp:"required"`
}

// count is a card's expiry month or year, a JSON integer or a string of digits
// (or-string): Node copies the expiry as given.
type count int

// digits is a month or year as the SDKs write it, "" when absent (0).
func (n count) digits() string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(int(n))
}

// paymentMethodID is the {id} of a token path: a well-formed PMT_ id, else GP's 40213
// naming the value.
func paymentMethodID(c *call) (string, error) {
	id := c.vars["id"]
	if !sandbox.ValidPaymentMethodID(id) {
		return "", sandbox.InvalidPaymentMethodID(id)
	}
	return id, nil
}

// getPaymentMethod is GET /payment-methods/{id}: the stored payment method [GP].
var getPaymentMethod = read(sandbox.OpPaymentMethodDetail, []string{"merchant_id", "id"}, func(s *Server, c *call) (any, error) {
	id, err := paymentMethodID(c)
	if err != nil {
		return nil, err
	}
	pm, err := s.svc.GetPaymentMethod(c.caller, c.vars["merchant_id"], id, "/ucp"+c.r.URL.EscapedPath())
	if err != nil {
		return nil, err
	}
	pm.Action = s.svc.ReadAction(c.caller, sandbox.ActionPaymentMethodOne) // [GP]
	return paymentMethodAnswer(c, pm), nil
})

// editPaymentMethod is PATCH /payment-methods/{id}: a new expiry, holder name or
// card. Node sends "" for a month or year it was not given.
var editPaymentMethod = operation{
	op:            sandbox.OpPaymentMethodEdit,
	authenticated: true,
	pathIDs:       []string{"merchant_id", "id"},
	bodyOptional:  true,
	handler: handle(func(s *Server, c *call, req editPaymentMethodBody) (any, error) {
		id, err := paymentMethodID(c)
		if err != nil {
			return nil, err
		}
		pm, err := s.svc.EditPaymentMethod(c.caller, sandbox.EditPaymentMethodRequest{
			MerchantID: c.vars["merchant_id"], ID: id, UsageMode: req.UsageMode, Name: req.Name,
			ExpiryMonth: req.Card.ExpiryMonth, ExpiryYear: req.Card.ExpiryYear, Number: req.Card.Number,
			Idempotency: c.idem,
		})
		if err != nil {
			return nil, err
		}
		return paymentMethodAnswer(c, pm), nil
	}),
}

// editPaymentMethodBody is a PATCH /payment-methods/{id} body.
type editPaymentMethodBody struct {
	UsageMode string `json:"usage_mode" gp:"enum=SINGLE|MULTIPLE"`
	Name      string `json:"name" gp:"min=0,max=100"`
	Card      struct {
		Number      string `json:"number" gp:"digits,min=0,max=19"`
		ExpiryMonth string `json:"expiry_month" gp:"digits,min=0,max=2"`
		ExpiryYear  string `json:"expiry_year" gp:"digits,min=0,max=4"`
	} `json:"card"`
}

// deletePaymentMethod is DELETE /payment-methods/{id}: answered with the token, its
// status DELETED, and the action (the Java, PHP and Node SDKs read it) [GP].
var deletePaymentMethod = read(sandbox.OpPaymentMethodDelete, []string{"merchant_id", "id"}, func(s *Server, c *call) (any, error) {
	id, err := paymentMethodID(c)
	if err != nil {
		return nil, err
	}
	pm, err := s.svc.DeletePaymentMethod(c.caller, c.vars["merchant_id"], id, c.idem)
	if err != nil {
		return nil, err
	}
	return paymentMethodAnswer(c, pm), nil
})

// paymentMethodAnswer is a token as the caller is shown it: to a restricted access
// token (restricted_token YES, a browser's) GP shows the account id truncated, TKA_
// then an X for every character but the last four (the PHP SDK's
// testGenerateRestrictedAccessToken finds "TKA_" and 28 X in the answer;
// testGenerateUnrestrictedAccessToken does not) [GP].
func paymentMethodAnswer(c *call, pm sandbox.PaymentMethod) paymentMethodResourceView {
	v := newStoredMethodView(pm)
	if c.caller.Token.Restricted {
		v.AccountID = truncatedAccountID(v.AccountID)
	}
	return v
}

// truncatedAccountID keeps an account id's prefix and last four characters.
func truncatedAccountID(id string) string {
	prefix, rest, ok := strings.Cut(id, "_")
	if !ok || len(rest) <= 4 {
		return id
	}
	return prefix + "_" + sandbox.MaskAccountNumber(rest)
}
