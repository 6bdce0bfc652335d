package sandbox

import "testing"

// A fingerprint names the card at the merchant: the same card has the same one, another
// card or merchant another; ON_SUCCESS gives none to a decline, and no mode none at all.
func TestCardFingerprint(t *testing.T) {
	visa := StoredCard{Brand: "VISA", First6: "426397", Last4: "5262"}
	expiry := cardData{expiryMM: "05", expiryYY: "29"}
	fp := func(mode, merchant string, card StoredCard, approved bool) (string, string, bool) {
		id, presence := cardFingerprint(mode, merchant, card, expiry, approved)
		if id == nil || presence == nil {
			return "", "", false
		}
		return *id, *presence, true
	}
	first, presence, ok := fp(FingerprintAlways, "MER_1", visa, true)
	if !ok || len(first) != 32 || presence != "EXISTS" {
		t.Fatalf("ALWAYS: %q %q %v, want 32 hex digits and EXISTS", first, presence, ok)
	}
	if again, _, _ := fp(FingerprintOnSuccess, "MER_1", visa, true); again != first {
		t.Errorf("the same card again: %q, want %q", again, first)
	}
	if declined, _, _ := fp(FingerprintAlways, "MER_1", visa, false); declined != first {
		t.Errorf("ALWAYS, declined: %q, want the card's %q", declined, first)
	}
	other := visa
	other.Last4 = "0016"
	if id, _, _ := fp(FingerprintAlways, "MER_1", other, true); id == first {
		t.Errorf("another card has the same fingerprint %q", id)
	}
	if id, _, _ := fp(FingerprintAlways, "MER_2", visa, true); id == first {
		t.Errorf("another merchant has the same fingerprint %q", id)
	}
	if id, presence, ok := fp(FingerprintOnSuccess, "MER_1", visa, false); !ok || id != "" || presence != "" {
		t.Errorf("ON_SUCCESS, declined: %q %q %v, want both empty", id, presence, ok)
	}
	if _, _, ok := fp("", "MER_1", visa, true); ok {
		t.Error("no mode answered a fingerprint")
	}
}
