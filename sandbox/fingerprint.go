package sandbox

import (
	"crypto/sha256"
	"encoding/base32"
)

// Fingerprint modes of payment_method.fingerprint_mode [GP].
const (
	FingerprintAlways    = "ALWAYS"
	FingerprintOnSuccess = "ON_SUCCESS"
)

// fingerprintExists is the presence indicator GP's tests record for a fingerprinted
// card (Java and .NET CreditSaleWithFingerPrint: EXISTS) [GP]. No recorded answer
// shows another value, so the sandbox gives it to every card it fingerprints [SB].
const fingerprintExists = "EXISTS"

// Fingerprint is what a request's fingerprint_mode asked for, answered beside the
// payment method's other members. An answer without a mode has neither member.
type Fingerprint struct {
	Value    string `json:"fingerprint"`
	Presence string `json:"fingerprint_presence_indicator"`
}

// fingerprintEncoding writes a fingerprint in letters and the digits 2 to 7: no run
// of digits long enough for the card-data masker to read as a card number, so a
// fingerprint reads the same in the answer, the journal and the action records.
var fingerprintEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// cardFingerprint is the Fingerprint of a payment, verification or token creation: nil
// without a mode; the card's fingerprint and EXISTS with ALWAYS, and with ON_SUCCESS
// when approved; both "" otherwise, as GP answers a declined ON_SUCCESS sale (Java
// CreditSaleWithFingerPrint_OnSuccess_WithDeclinedAuth) [GP].
//
// The fingerprint is a SHA-256 of the merchant and the card as the sandbox tells
// cards apart (cardIdentity), so the same card at the same merchant has the same one
// however its expiry was written, and it holds no card data; GP's own form is not
// recorded [SB].
func cardFingerprint(mode, merchantID string, stored StoredCard, card cardData, approved bool) *Fingerprint {
	switch {
	case mode == "":
		return nil
	case (mode == FingerprintOnSuccess && !approved) || stored.First6 == "" || stored.Last4 == "":
		return &Fingerprint{}
	}
	sum := sha256.Sum256([]byte("fingerprint\x00" + merchantID + "\x00" + cardIdentity(stored, card)))
	return &Fingerprint{Value: fingerprintEncoding.EncodeToString(sum[:20]), Presence: fingerprintExists}
}
