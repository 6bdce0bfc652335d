package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"
)

// Permission names GP uses in token scopes.
const (
	PermAdjust = "TRN_POST_Adjust" // adjustment of a transaction [GP]
	PermOrder  = "MMA_POST_Order"  // device orders for a merchant [SB]

	PermAuthorize = "TRN_POST_Authorize" // POST /transactions, verifications, reauthorization, incremental [GP]/[SB]
	PermCapture   = "TRN_POST_Capture"   // capture, and closing a batch [GP]/[SB]
	PermRefund    = "TRN_POST_Refund"    // refund of a transaction [GP]
	PermReverse   = "TRN_POST_Reverse"   // reversal [GP]
	PermGetSingle = "TRN_GET_Single"     // GET /transactions/{id} [GP]
	PermGetList   = "TRN_GET_List"       // GET /transactions [GP]

	// The tokenization account's permissions [GP]; which operation each guards is ours [SB].
	PermTokenize       = "PMT_POST_Create"        // POST /payment-methods
	PermTokenizeSingle = "PMT_POST_Create_Single" // POST /payment-methods too (a browser's restricted token)
	PermTokenGet       = "PMT_GET_Single"         // GET /payment-methods/{id}
	PermTokenEdit      = "PMT_PATCH_Edit"         // PATCH /payment-methods/{id}
	PermTokenDelete    = "PMT_DELETE_Single"      // DELETE /payment-methods/{id}
)

// Transaction statuses the sandbox distinguishes.
const (
	StatusCaptured      = "CAPTURED"
	StatusPreauthorized = "PREAUTHORIZED"
	StatusDeclined      = "DECLINED"
	StatusReversed      = "REVERSED"
	StatusVerified      = "VERIFIED"
	StatusNotVerified   = "NOT_VERIFIED"
)

// Transaction types, channels and capture modes [GP].
const (
	TypeSale   = "SALE"
	TypeRefund = "REFUND"

	ChannelCP  = "CP"
	ChannelCNP = "CNP"

	CaptureAuto     = "AUTO"
	CaptureLater    = "LATER"
	CaptureMultiple = "MULTIPLE"
)

// Order statuses: the request may ask only FOR_REVIEW; a placed order starts INITIATED.
const (
	OrderForReview  = "FOR_REVIEW"
	OrderInitiated  = "INITIATED"
	OrderProcessing = "PROCESSING"
	OrderShipped    = "SHIPPED"
	OrderDelivered  = "DELIVERED"
	OrderCancelled  = "CANCELLED"
)

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

// ActsFor reports whether the app may act for the merchant.
func (a App) ActsFor(merchantID string) bool {
	for _, m := range a.Merchants {
		if m == merchantID {
			return true
		}
	}
	return false
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
}

// PricingProfile prices device products for FOR_REVIEW orders.
type PricingProfile struct {
	Name     string            `json:"name"`
	Currency string            `json:"currency"`
	Products map[string]string `json:"products"` // product id -> unit amount in minor units
}

// Token is an issued access token. The store keeps its Hash, never its Value: the
// value is a credential, and is given to the client once, in the token's answer.
type Token struct {
	Value       string    `json:"-"`
	Hash        string    `json:"hash"` // TokenHash(Value): the key the store finds it by
	AppID       string    `json:"app_id"`
	Permissions []string  `json:"permissions"`
	Restricted  bool      `json:"restricted,omitempty"`
	Created     time.Time `json:"created"`
	Expires     time.Time `json:"expires"`
}

// TokenHash is what the store keeps of a token's value: its SHA-256 in hex.
func TokenHash(value string) string {
	sum := sha256.Sum256([]byte(value))
	return hex.EncodeToString(sum[:])
}

// Has reports whether the token carries the permission.
func (t Token) Has(permission string) bool {
	for _, p := range t.Permissions {
		if p == permission {
			return true
		}
	}
	return false
}

// Transaction is a stored card-present transaction with everything the Transaction
// resource shows plus the sandbox's own state (gratuity, batch, history).
type Transaction struct {
	ID                  string        `json:"id"`
	MerchantID          string        `json:"merchant_id"`
	TimeCreated         time.Time     `json:"time_created"`
	Type                string        `json:"type"`
	Status              string        `json:"status"`
	Amount              string        `json:"amount"`
	AuthorizationAmount string        `json:"authorization_amount,omitempty"`
	GratuityAmount      string        `json:"gratuity_amount,omitempty"`
	Currency            string        `json:"currency"`
	Country             string        `json:"country"`
	Reference           string        `json:"reference"`
	PaymentMethod       PaymentResult `json:"payment_method"`
	Order               *OrderAmounts `json:"order,omitempty"`
	BatchID             string        `json:"batch_id"`
	BatchClosed         bool          `json:"batch_closed"`
	EMVTag              string        `json:"emv_tag,omitempty" mask:"emv"` // stored, never echoed
	AdjustmentCount     int           `json:"adjustment_count,omitempty"`   // adjustments ever made: numbers the history
	Action              Action        `json:"action"`
	Scenarios           []string      `json:"scenarios,omitempty"`

	// Set for transactions made through the API (and fixtures that say so).
	Channel        string      `json:"channel,omitempty"`
	CaptureMode    string      `json:"capture_mode,omitempty"`
	MerchantName   string      `json:"merchant_name,omitempty"`
	AccountID      string      `json:"account_id,omitempty"`
	AccountName    string      `json:"account_name,omitempty"`
	AppID          string      `json:"app_id,omitempty"`          // the app that created it
	ParentID       string      `json:"parent_id,omitempty"`       // a refund's original transaction
	RefundedAmount string      `json:"refunded_amount,omitempty"` // refunds made against it
	CapturedAmount string      `json:"captured_amount,omitempty"` // captures of a MULTIPLE authorization
	ReversedStatus string      `json:"reversed_status,omitempty"` // the status a reversal ended
	ReauthorizedBy string      `json:"reauthorized_by,omitempty"` // the one reauthorization made of it
	Card           StoredCard  `json:"card,omitempty"`
	Encryption     *Encryption `json:"encryption,omitempty"` // an encrypted track's scheme
	Lodging        *Lodging    `json:"lodging,omitempty"`    // the last incremental authorization's

	// DuplicateOf names the earlier approved payment this one repeats (same card,
	// amount, currency and reference within the duplicate window) [SB].
	DuplicateOf string `json:"duplicate_of,omitempty"`
}

// PaymentResult is the payment_method block of a Transaction response.
type PaymentResult struct {
	ID        string      `json:"id,omitempty"` // the token charged, if any
	Result    string      `json:"result"`
	Message   string      `json:"message"`
	EntryMode string      `json:"entry_mode,omitempty"`
	Card      CardResult  `json:"card"`
	BNPL      *BNPLResult `json:"bnpl,omitempty"`
}

// CardResult is payment_method.card of a Transaction response.
type CardResult struct {
	Brand             string        `json:"brand,omitempty"`
	MaskedNumberLast4 string        `json:"masked_number_last4,omitempty"`
	Authcode          string        `json:"authcode"`
	BrandReference    string        `json:"brand_reference"`
	BrandTimeCreated  string        `json:"brand_time_created,omitempty"`
	TagResponse       string        `json:"tag_response,omitempty"`
	CVVResult         string        `json:"cvv_result,omitempty"`
	AVSAddressResult  string        `json:"avs_address_result,omitempty"`
	AVSPostalResult   string        `json:"avs_postal_code_result,omitempty"`
	Provider          *CardProvider `json:"provider,omitempty"`
	Funding           string        `json:"funding,omitempty"`
}

// CardProvider is payment_method.card.provider: the issuer's own codes, which GP
// shows for its AVS test cards [GP].
type CardProvider struct {
	Result           string `json:"result"`
	CVVResult        string `json:"cvv_result"`
	AVSAddressResult string `json:"avs_address_result"`
	AVSPostalResult  string `json:"avs_postal_code_result"`
}

// BNPLResult is payment_method.bnpl of a Transaction response.
type BNPLResult struct {
	Provider string `json:"provider"`
}

// OrderAmounts is the order block of a Transaction response.
type OrderAmounts struct {
	Taxes          []Tax  `json:"taxes,omitempty"`
	DutyAmount     string `json:"duty_amount,omitempty"`
	ShippingAmount string `json:"shipping_amount,omitempty"`
}

// Tax is one tax line of a transaction's order block.
type Tax struct {
	Type   string `json:"type"`
	Amount string `json:"amount"`
}

// Action is the action block of a response: what the last request did.
type Action struct {
	ID          string `json:"id"`
	Type        string `json:"type"`
	TimeCreated string `json:"time_created"`
	ResultCode  string `json:"result_code"`
	AppID       string `json:"app_id"`
	AppName     string `json:"app_name"`
}

// Adjustment is one entry of a transaction's adjustment history.
type Adjustment struct {
	Seq      int               `json:"seq"` // 1 for the transaction's first adjustment
	ActionID string            `json:"action_id"`
	Time     string            `json:"time"`
	AppID    string            `json:"app_id"`
	Version  string            `json:"version,omitempty"`
	Changes  map[string]Change `json:"changes"`
}

// Change is a field's value before and after an adjustment.
type Change struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// Order is a stored device order.
type Order struct {
	ID              string       `json:"id"`
	MerchantID      string       `json:"merchant_id"`
	MerchantName    string       `json:"merchant_name"`
	Status          string       `json:"status"`
	TimeCreated     time.Time    `json:"time_created"`
	TimeLastUpdated time.Time    `json:"time_last_updated"`
	AppID           string       `json:"app_id"`
	Version         string       `json:"version,omitempty"`
	Request         OrderRequest `json:"request"`
	Action          Action       `json:"action"`
	History         []Action     `json:"history,omitempty"`
}

// IdempotencyRecord remembers what an idempotency key executed, for 24 hours: what a
// repeat's 409 names (the first resource, and for an order its status), and in replay
// mode what a true repeat gets again. The app and the key name the record in the store
// and are not kept again inside it: a day of keys can be millions of records.
type IdempotencyRecord struct {
	AppID      string          `json:"-"`
	Key        string          `json:"-"`
	ResourceID string          `json:"resource_id"`
	Kind       string          `json:"kind"` // "transaction" or "order": what ResourceID names
	Time       time.Time       `json:"time"`
	Request    string          `json:"request,omitempty"`  // replay mode only: Idempotency.Request of the first request
	Response   json.RawMessage `json:"response,omitempty"` // replay mode only: the action's typed value, JSON-encoded
}

// TimeFormat is GP's timestamp shape: UTC, exactly three fractional digits, Z.
const TimeFormat = "2006-01-02T15:04:05.000Z"

// FormatTime renders t the way GP does, in UTC with milliseconds (TimeFormat).
func FormatTime(t time.Time) string { return t.UTC().Format(TimeFormat) }
