package sandbox

import (
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox/carddata"
)

// A fingerprint names the card at the merchant: the same card has the same one however
// its expiry was written, another card or merchant another; ON_SUCCESS gives none to a
// decline, and no mode none at all. It reads the same to the card-data masker.
func TestCardFingerprint(t *testing.T) {
	visa := StoredCard{Brand: "VISA", First6: "426397", Last4: "5262"}
	expiry := cardData{expiryMM: "05", expiryYY: "30"}
	first := cardFingerprint(FingerprintAlways, "MER_1", visa, expiry, true)
	if first == nil || len(first.Value) != 32 || first.Presence != "EXISTS" {
		t.Fatalf("ALWAYS: %+v, want 32 characters and EXISTS", first)
	}
	if !carddata.NoneIn(first.Value) {
		t.Errorf("the masker reads a card number in %q", first.Value)
	}
	same := []struct {
		mode     string
		expiry   cardData
		approved bool
	}{
		{FingerprintOnSuccess, expiry, true},
		{FingerprintAlways, expiry, false},
		{FingerprintAlways, cardData{expiryMM: "5", expiryYY: "2030"}, true},
	}
	for _, c := range same {
		if got := cardFingerprint(c.mode, "MER_1", visa, c.expiry, c.approved); got == nil || got.Value != first.Value {
			t.Errorf("%s %+v approved %v: %+v, want %q", c.mode, c.expiry, c.approved, got, first.Value)
		}
	}
	other := visa
	other.Last4 = "0016"
	if got := cardFingerprint(FingerprintAlways, "MER_1", other, expiry, true); got.Value == first.Value {
		t.Errorf("another card has the same fingerprint %q", got.Value)
	}
	if got := cardFingerprint(FingerprintAlways, "MER_2", visa, expiry, true); got.Value == first.Value {
		t.Errorf("another merchant has the same fingerprint %q", got.Value)
	}
	if got := cardFingerprint(FingerprintOnSuccess, "MER_1", visa, expiry, false); got == nil || *got != (Fingerprint{}) {
		t.Errorf("ON_SUCCESS, declined: %+v, want both members empty", got)
	}
	if got := cardFingerprint("", "MER_1", visa, expiry, true); got != nil {
		t.Errorf("no mode answered %+v", got)
	}
}
