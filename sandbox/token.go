package sandbox

import (
	"crypto/sha512"
	"crypto/subtle"
	"encoding/hex"
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

// IntervalSeconds maps interval_to_expire values to seconds.
var IntervalSeconds = map[string]int{
	"WEEK": 604800, "DAY": 86400, "12_HOURS": 43200, "6_HOURS": 21600, "3_HOURS": 10800,
	"1_HOUR": 3600, "30_MINUTES": 1800, "10_MINUTES": 600, "5_MINUTES": 300,
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
}

type tokenView struct {
	Token           string    `json:"token"`
	Type            string    `json:"type"`
	Scope           scopeView `json:"scope"`
	AppID           string    `json:"app_id"`
	AppName         string    `json:"app_name"`
	TimeCreated     string    `json:"time_created"`
	SecondsToExpire int       `json:"seconds_to_expire"`
	Email           string    `json:"email"`
}

type scopeView struct {
	MerchantID   string    `json:"merchant_id"`
	MerchantName string    `json:"merchant_name"`
	Accounts     []Account `json:"accounts"`
}

// Secret computes the /accesstoken secret for a nonce and app key: lower-case hex
// SHA-512 of nonce followed by the key.
func Secret(nonce, appKey string) string {
	sum := sha512.Sum512([]byte(nonce + appKey))
	return hex.EncodeToString(sum[:])
}

// IssueToken checks the app credentials and issues a token whose scope holds only the
// requested permissions (all of the app's when none are requested).
func (s *Service) IssueToken(req TokenRequest) (Result, error) {
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
		return Result{}, err
	}
	want := Secret(req.Nonce, app.Key)
	if subtle.ConstantTimeCompare([]byte(want), []byte(strings.ToLower(req.Secret))) != 1 {
		return Result{}, WrongSecret()
	}
	accounts, perms, err := scopeAccounts(app, req.Permissions)
	if err != nil {
		return Result{}, err
	}
	now := s.clock.Now()
	seconds := tokenSeconds(req)
	t := Token{
		Value: s.ids.Alphanumeric(28), AppID: app.ID, Permissions: perms,
		Restricted: req.RestrictedToken == "YES",
		Created:    now, Expires: now.Add(time.Duration(seconds) * time.Second),
	}
	if err := s.store.Update(func(tx Tx) error {
		return tx.PutToken(t, t.Expires.Sub(now)+expiredTokenRetention)
	}); err != nil {
		return Result{}, err
	}
	body, err := jsonBody(tokenView{
		Token: t.Value, Type: "Bearer",
		Scope: scopeView{MerchantID: app.MerchantID, MerchantName: merchantName, Accounts: accounts},
		AppID: app.ID, AppName: app.Name, TimeCreated: FormatTime(now),
		SecondsToExpire: seconds, Email: app.Email,
	})
	return Result{Body: body, ResourceID: t.Value}, err
}

// tokenSeconds is the token life: the shorter of seconds_to_expire and
// interval_to_expire, the default when neither is given.
func tokenSeconds(req TokenRequest) int {
	seconds := req.SecondsToExpire
	if iv, ok := IntervalSeconds[req.IntervalToExpire]; ok && (seconds == 0 || iv < seconds) {
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
