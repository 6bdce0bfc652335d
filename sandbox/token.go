package sandbox

import (
	"crypto/sha256"
	"crypto/sha512"
	"crypto/subtle"
	"encoding/hex"
	"slices"
	"strings"
	"time"
)

// DefaultTokenSeconds is the token life when the request names none [GP].
const DefaultTokenSeconds = 86399

// Token life bounds for seconds_to_expire [GP].
const (
	MinTokenSeconds = 60
	MaxTokenSeconds = 604800
)

// tokenIntervals are the interval_to_expire values and their lengths, longest first
// as GP lists them [GP].
var tokenIntervals = []struct {
	name    string
	seconds int
}{
	{"WEEK", 604800}, {"DAY", 86400}, {"12_HOURS", 43200}, {"6_HOURS", 21600}, {"3_HOURS", 10800},
	{"1_HOUR", 3600}, {"30_MINUTES", 1800}, {"10_MINUTES", 600}, {"5_MINUTES", 300},
}

// TokenIntervals lists the interval_to_expire values a token request may name.
func TokenIntervals() []string {
	names := make([]string, len(tokenIntervals))
	for i, iv := range tokenIntervals {
		names[i] = iv.name
	}
	return names
}

// intervalSeconds is the length of an interval_to_expire value; false when unknown.
func intervalSeconds(name string) (int, bool) {
	for _, iv := range tokenIntervals {
		if iv.name == name {
			return iv.seconds, true
		}
	}
	return 0, false
}

// TokenRequest is a validated /accesstoken body.
type TokenRequest struct {
	AppID            string
	Nonce            string
	Secret           string
	SecondsToExpire  int // 0 when absent
	IntervalToExpire string
	Permissions      []string // nil when absent
	RestrictedToken  string
	Rehearsal        bool // as Caller.Rehearsal: checked, and no token kept
}

// IssuedToken is a token just issued and what its answer shows: the app it belongs
// to, the scope's merchant and accounts, and its life in seconds.
type IssuedToken struct {
	Token           Token
	App             App
	MerchantName    string
	Accounts        []Account // the scope: only accounts holding a requested permission; never nil
	SecondsToExpire int
}

// Secret computes the /accesstoken secret for a nonce and app key: lower-case hex
// SHA-512 of nonce followed by the key.
func Secret(nonce, appKey string) string {
	sum := sha512.Sum512([]byte(nonce + appKey))
	return hex.EncodeToString(sum[:])
}

// IssueToken checks the app credentials and issues a token whose scope holds only the
// requested permissions (all of the app's when none are requested).
func (s *Service) IssueToken(req TokenRequest) (IssuedToken, error) {
	// Checking the credentials only reads: it runs outside the single writer's lock,
	// which is held for the token's write alone.
	var app App
	var merchantName string
	err := s.store.View(func(tx Tx) error {
		var err error
		if app, err = tx.App(req.AppID); err != nil {
			return notFoundAs(err, UnknownApp())
		}
		if m, err := tx.Merchant(app.MerchantID); err == nil {
			merchantName = m.Name
		}
		return nil
	})
	if err != nil {
		return IssuedToken{}, err
	}
	want := Secret(req.Nonce, app.Key)
	if subtle.ConstantTimeCompare([]byte(want), []byte(strings.ToLower(req.Secret))) != 1 {
		return IssuedToken{}, WrongSecret()
	}
	accounts, perms, err := scopeAccounts(app, req.Permissions)
	if err != nil {
		return IssuedToken{}, err
	}
	now := s.clock.Now()
	seconds := tokenSeconds(req)
	value := s.ids.Alphanumeric(28)
	t := Token{
		Value: value, Hash: TokenHash(value), AppID: app.ID, Permissions: perms,
		Restricted: req.RestrictedToken == "YES",
		Created:    now, Expires: now.Add(time.Duration(seconds) * time.Second),
	}
	if err := s.update(req.Rehearsal, func(tx Tx) error {
		return tx.PutToken(t, t.Expires.Sub(now)+expiredTokenRetention)
	}); err != nil {
		return IssuedToken{}, err
	}
	return IssuedToken{Token: t, App: app, MerchantName: merchantName, Accounts: accounts, SecondsToExpire: seconds}, nil
}

// tokenSeconds is the token life: the shorter of seconds_to_expire and
// interval_to_expire, the default when neither is given.
func tokenSeconds(req TokenRequest) int {
	seconds := req.SecondsToExpire
	if iv, ok := intervalSeconds(req.IntervalToExpire); ok && (seconds == 0 || iv < seconds) {
		seconds = iv
	}
	if seconds == 0 {
		seconds = DefaultTokenSeconds
	}
	return seconds
}

// scopeAccounts filters the app's accounts down to the requested permissions. Asking
// for a permission the app does not hold is 40119 naming every such permission.
func scopeAccounts(app App, requested []string) ([]Account, []string, error) {
	held := map[string]bool{}
	for _, a := range app.Accounts {
		for _, p := range a.Permissions {
			held[p] = true
		}
	}
	var unknown []string
	want := map[string]bool{}
	for _, p := range requested {
		if !held[p] {
			unknown = append(unknown, p)
		}
		want[p] = true
	}
	if len(unknown) > 0 {
		return nil, nil, InvalidPermissions(unknown)
	}
	accounts := []Account{} // never null: the Node SDK crashes on a missing array
	var perms []string
	for _, a := range app.Accounts {
		kept := []string{}
		for _, p := range a.Permissions {
			if requested == nil || want[p] {
				kept = append(kept, p)
			}
		}
		if len(kept) == 0 && requested != nil {
			continue
		}
		accounts = append(accounts, Account{ID: a.ID, Name: a.Name, Permissions: kept})
		perms = append(perms, kept...)
	}
	return accounts, perms, nil
}

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
	return slices.Contains(t.Permissions, permission)
}
