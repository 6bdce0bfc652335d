package api_test

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
)

// encryptedSaleBody is a chip sale with an encrypted track, as the Java SDK sends it
// (CreditTrackData_SaleSwipe_Chip_MissingFieldValidation); encryption is the
// payment_method.encryption member, or "" for none.
func encryptedSaleBody(track, encryption string) string {
	pm := `{"entry_mode":"CHIP","card":{"track":"` + track + `","tag":"` + apitest.EMVTag + `","track_number":"2","funding":"CREDIT"}`
	if encryption != "" {
		pm += `,"encryption":` + encryption
	}
	pm += "}"
	return `{"account_name":"transaction_processing","channel":"CP","type":"SALE","capture_mode":"AUTO","amount":"1202",` +
		`"currency":"USD","country":"US","payment_method":` + pm + `}`
}

// ciphertext is n characters of base64 standing for an encrypted track; it holds
// digits enough to look like anything.
func ciphertext(n int) string {
	raw := make([]byte, n)
	for i := range raw {
		raw[i] = byte(i*131 + 7)
	}
	return base64.StdEncoding.EncodeToString(raw)[:n]
}

const ksnEncryption = `{"version":"05","method":"KSN","info":"//89P4EAKAADiA==","type":"BINARY"}`

// A track sent with payment_method.encryption is ciphertext: accepted up to 2048
// characters and approved, with nothing of the card shown, since only GP could read
// it. Without encryption a track is held to 300 characters and must be a track.
func TestEncryptedTrackSale(t *testing.T) {
	env := mustSinkSandbox(t, apitest.Options{})
	tok := env.PartnerToken()
	secret := ciphertext(600)
	sale := env.MustCharge(tok, encryptedSaleBody(secret, ksnEncryption))
	if sale["status"] != "CAPTURED" || field(sale, "action", "result_code") != "SUCCESS" || field(sale, "payment_method", "result") != "00" {
		t.Errorf("encrypted track sale: %v", sale)
	}
	id := sale["id"].(string)
	detail := env.Do("GET", "/transactions/"+id, apitest.APIHeader(tok), "").JSON(t)
	card, _ := field(detail, "payment_method", "card").(map[string]any)
	for _, member := range []string{"brand", "masked_number_last4", "masked_number_first6last4"} {
		if v, ok := card[member]; ok {
			t.Errorf("the detail shows %s %v of a card the sandbox cannot read", member, v)
		}
	}
	// The version of the encryption alone, as the .NET and PHP SDKs' EncryptionData.Version1().
	if got := env.MustCharge(tok, encryptedSaleBody(ciphertext(2048), `{"version":"01"}`)); got["status"] != "CAPTURED" {
		t.Errorf("2048 characters of ciphertext: %v", got["status"])
	}
	refused := map[string]string{
		"ciphertext without encryption":     encryptedSaleBody(ciphertext(600), ""),
		"2049 characters of ciphertext":     encryptedSaleBody(ciphertext(2049), ksnEncryption),
		"301 characters without encryption": encryptedSaleBody(";4012002000060016=25121011803939600000?"+strings.Repeat("0", 262), ""),
	}
	want := apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "payment_method.card.track contains unexpected data")
	for name, body := range refused {
		if got := env.Do("POST", "/transactions", apitest.APIHeader(tok), body).GPError(t); got != want {
			t.Errorf("%s: %+v", name, got)
		}
	}
	env.mustHoldNone(t, []string{"/_sandbox/transactions/" + id, "/_sandbox/transactions"}, true, secret, secret[100:140])
}
