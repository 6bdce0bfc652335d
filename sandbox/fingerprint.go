package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
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

// cardFingerprint is what a payment or verification that asked for a fingerprint
// answers in payment_method: nil, nil without a mode (GP's answers then carry the
// members empty or not at all); the card's fingerprint and EXISTS with ALWAYS, and
// with ON_SUCCESS when approved; "" and "" otherwise, as GP answers a declined
// ON_SUCCESS sale (Java CreditSaleWithFingerPrint_OnSuccess_WithDeclinedAuth) [GP].
//
// The fingerprint is the same for the same card at the same merchant, and differs
// from card to card: a SHA-256 of the merchant and the card by brand, first six,
// last four and expiry, as the duplicate check knows a card, so that it holds no card
// data; GP's own form is not recorded [SB].
func cardFingerprint(mode, merchantID string, stored StoredCard, card cardData, approved bool) (id, presence *string) {
	if mode == "" {
		return nil, nil
	}
	none := ""
	if mode == FingerprintOnSuccess && !approved || stored.First6 == "" || stored.Last4 == "" {
		return &none, &none
	}
	sum := sha256.Sum256([]byte("fingerprint\x00" + merchantID + "\x00" + stored.Brand + "\x00" + stored.First6 + "\x00" +
		stored.Last4 + "\x00" + card.expiryMM + "/" + card.expiryYY))
	fp, exists := hex.EncodeToString(sum[:16]), fingerprintExists
	return &fp, &exists
}
