package api_test

import (
	"strings"
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
)

const layoutAccount = "TRA_00000000000000000000000000000003"

// reachedDevice is the terminal a MiC request of tok (an app acting for merchant One
// through accountID) reaches, "" for none. Every terminal is INACTIVE, so that the
// refusal names the one reached and nothing changes.
func (env *sandboxEnv) reachedDevice(tok, accountID string) string {
	env.T.Helper()
	got := env.Do("POST", "/devices", apitest.APIHeader(tok), apitest.MICBody("Ping", "")).GPError(env.T)
	none := apitest.Err(404, "RESOURCE_NOT_FOUND", "40118", "Device for account "+accountID+" of merchant "+apitest.MerchantOne+" not found at this location.")
	if got == none {
		return ""
	}
	id, inactive := strings.CutSuffix(strings.TrimPrefix(got.Description, "Device "), " is not active")
	if got != (apitest.Err(400, "INVALID_ACTION", "40290", "Device "+id+" is not active")) || !inactive {
		env.T.Fatalf("MiC request through %s: %+v", accountID, got)
	}
	return id
}

// A MiC request reaches the terminal bound to its merchant's account however the
// binding came about: delivered spares bound and re-bound to another account, the
// terminal bound before made a spare, terminals deleted by a reset, a snapshot
// restored.
func TestMiCRequestReachesTheBoundTerminal(t *testing.T) {
	env := mustSandbox(t)
	partner, layout := env.MustToken(apitest.PartnerApp, apitest.PartnerKey, ""), env.MustToken(layoutApp, layoutKey, "")
	const dev1, dev4 = "DEV_00000000000000000000000000000001", "DEV_00000000000000000000000000000004"
	order := env.MustPlaceOrder(partner, terminalOrder(2, ""))
	env.mustDeliver(order)
	spares := env.mustDevices("order_id=" + order)
	if len(spares) != 2 || spares[0]["account_id"] != "" || spares[1]["account_id"] != "" {
		t.Fatalf("delivered: %v", spares)
	}
	x, y := spares[0]["id"].(string), spares[1]["id"].(string)
	for _, d := range env.mustDevices("") {
		env.MustAdmin("POST", "/_sandbox/devices/"+d["id"].(string), `{"status":"INACTIVE"}`)
	}
	bind := func(id, account string) {
		t.Helper()
		env.MustAdmin("POST", "/_sandbox/devices/"+id, `{"account_id":"`+account+`"}`)
	}
	reach := func(when, wantPartner, wantLayout string) {
		t.Helper()
		if got := env.reachedDevice(partner, partnerAccount); got != wantPartner {
			t.Errorf("%s: the partner account reaches %q, want %q", when, got, wantPartner)
		}
		if got := env.reachedDevice(layout, layoutAccount); got != wantLayout {
			t.Errorf("%s: the layout account reaches %q, want %q", when, got, wantLayout)
		}
	}
	spare := func(when string, ids ...string) {
		t.Helper()
		for _, id := range ids {
			if got := env.mustDevice(id)["account_id"]; got != "" {
				t.Errorf("%s: %s bound to %v, want a spare", when, id, got)
			}
		}
	}
	reach("fixtures", dev1, dev4)

	bind(y, partnerAccount)
	reach("a spare bound", y, dev4)
	spare("a spare bound", dev1, x)

	bind(y, layoutAccount)
	reach("re-bound to another account", "", y)
	spare("re-bound to another account", dev1, dev4, x)

	bind(dev1, partnerAccount)
	reach("the old terminal bound again", dev1, y)
	env.MustAdmin("POST", "/_sandbox/snapshots", `{"name":"rebound"}`)

	bind(x, partnerAccount)
	reach("the other spare bound", x, y)
	spare("the other spare bound", dev1, dev4)

	// A reset takes the tokens too; the snapshot brings back the ones it holds.
	saved := [2]string{partner, layout}
	env.MustReseed(withoutDevicesOf(apitest.MerchantOne))
	partner, layout = env.MustToken(apitest.PartnerApp, apitest.PartnerKey, ""), env.MustToken(layoutApp, layoutKey, "")
	reach("every terminal of the merchant deleted", "", "")
	if got := env.mustDevices("merchant_id=" + apitest.MerchantOne); len(got) != 0 {
		t.Errorf("deleted: %v", got)
	}

	env.MustAdmin("POST", "/_sandbox/snapshots/rebound/restore", ``)
	partner, layout = saved[0], saved[1]
	reach("the snapshot restored", dev1, y)
	spare("the snapshot restored", dev4, x)
}

// GET /_sandbox/devices?merchant_id= answers that merchant's terminals only, in id
// order; a merchant with none, or no merchant at all, answers an empty list. A query
// that cannot be decoded (a broken %-escape), or that names merchant_id twice, is
// refused.
func TestAdminDevicesOfAMerchant(t *testing.T) {
	env := mustSandbox(t)
	device := func(n, merchant, account, model string) string {
		return `{"id":"DEV_0000000000000000000000000000000` + n + `","merchant_id":"MER_0000000000000000000000000000000` + merchant +
			`","account_id":"TRA_0000000000000000000000000000000` + account + `","model":"` + model +
			`","status":"ACTIVE","mode":"COMPLETE","tran_no":0}`
	}
	list := func(devices ...string) string { return `{"devices":[` + strings.Join(devices, ",") + `]}` }
	one := list(device("1", "1", "1", "PAX A920"), device("3", "1", "2", "PAX A920"), device("4", "1", "3", "PAX A920"),
		strings.Replace(device("5", "1", "5", "PAX A920"), "TRA_00000000000000000000000000000005", "TRA_00000000000000000000000000000035", 1))
	two := list(device("2", "2", "1", "PAX A80"))
	for query, want := range map[string]string{
		"merchant_id=" + apitest.MerchantOne:                  one,
		"merchant_id=" + apitest.MerchantTwo:                  two,
		"merchant_id=MER_Nope":                                list(),
		"merchant_id=" + strings.ToLower(apitest.MerchantOne): list(),
		"merchant_id=": list(),
		"merchant_id":  list(),
		"merchant_id=" + apitest.MerchantOne + "&order_id=ORD_Nope": list(),
	} {
		r := env.Do("GET", "/_sandbox/devices?"+query, nil, "")
		if got := strings.TrimSpace(string(r.Body)); r.Status != 200 || got != want {
			t.Errorf("?%s: %d %s\nwant 200 %s", query, r.Status, got, want)
		}
	}
	// A filter that cannot be decoded is refused, not dropped (which listed them all).
	want := apitest.Err(400, "INVALID_REQUEST_DATA", "40213", `query: invalid URL escape "%ZZ"`)
	for _, path := range []string{"/_sandbox/devices?merchant_id=%ZZ", "/_sandbox/notifications?order_id=%ZZ", "/_sandbox/requests?operation=%ZZ"} {
		if got := env.Do("GET", path, nil, "").GPError(t); got != want {
			t.Errorf("%s: %+v, want %+v", path, got, want)
		}
	}
	// Nor is a filter given twice half applied (the first one was).
	twice := apitest.Err(400, "INVALID_REQUEST_DATA", "40213", "merchant_id contains unexpected data")
	if got := env.Do("GET", "/_sandbox/devices?merchant_id="+apitest.MerchantTwo+"&merchant_id=MER_Nope", nil, "").GPError(t); got != twice {
		t.Errorf("merchant_id twice: %+v, want %+v", got, twice)
	}
}
