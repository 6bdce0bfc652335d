package yamlfile

import (
	"errors"
	"io/fs"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/gp-sandbox/gp-sandbox/fixtures"
	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// files builds a file system from name, content pairs.
func files(nameContent ...string) fstest.MapFS {
	fsys := fstest.MapFS{}
	for i := 0; i+1 < len(nameContent); i += 2 {
		fsys[nameContent[i]] = &fstest.MapFile{Data: []byte(nameContent[i+1])}
	}
	return fsys
}

func mustLoadFixtures(t *testing.T, fsys fs.FS) sandbox.Fixtures {
	t.Helper()
	f, err := LoadFixtures(fsys, testNow)
	if err != nil {
		t.Fatalf("LoadFixtures: %v", err)
	}
	return f
}

// mustProblems loads fsys expecting Problems and returns them as strings.
func mustProblems(t *testing.T, fsys fs.FS) []string {
	t.Helper()
	_, err := LoadFixtures(fsys, testNow)
	var ps Problems
	if !errors.As(err, &ps) {
		t.Fatalf("LoadFixtures error = %v, want Problems", err)
	}
	return problemStrings(ps)
}

// complete uses every key of the schema, in two documents of one file.
const complete = `# every key of the schema
pricing_profiles:
  - name: standard
    currency: USD
    products:
      PRO_TRA_CP-US-CARD-A920_SP: "29900"
merchants:
  - id: MER_1
    name: One
    pricing_profile: standard
    scenarios: [slow]
apps:
  - id: APP_1
    key: KEY_1
    name: app one
    email: one@sandbox.example
    merchant_id: MER_1
    merchants: [MER_1]
    accounts:
      - id: TRA_1
        name: transaction_processing
        permissions: [TRN_POST_Adjust]
    live:
      adjustment_allowed: true
      orders_allowed: false
    scenarios: [flaky]
---
transactions:
  - id: TRN_1
    merchant_id: MER_1
    time_created: 2021-03-24T02:02:27.158Z
    type: REFUND
    status: REVERSED
    amount: "1000"
    gratuity_amount: "150"
    currency: USD
    country: US
    reference: ref-1
    payment_method:
      result: "00"
      message: SUCCESS
      card: {authcode: "123456", brand_reference: BR1}
      bnpl: {provider: AFFIRM}
    order:
      taxes: [{type: SALES, amount: "80"}]
      duty_amount: "10"
      shipping_amount: "500"
    batch_id: BAT_1
    batch_closed: true
    action:
      id: ACT_1
      type: AUTHORIZE
      time_created: "2021-03-24T02:03:00.000Z"
      result_code: SUCCESS
      app_id: APP_1
      app_name: app one
    scenarios: [decline]
  - id: TRN_2
    merchant_id: MER_1
    time_created: "2021-03-25T00:00:00.001Z"
    type: SALE
    status: CAPTURED
    amount: "0"
    cashback_amount: "2000"
    currency: EUR
    country: IE
`

func TestLoadFixturesReadsEveryKey(t *testing.T) {
	fsys := files(
		"a.yaml", complete,
		"b.yml", "merchants: [{id: MER_2, name: Two}]\n",
		"empty.yaml", "",
		"comments.yaml", "# nothing yet\n",
		"dashes.yaml", "---\n---\n",
		"README.md", "not: [yaml",
		".hidden.yaml", "{{{",
		"sub/c.yaml", "{{{",
	)
	got := mustLoadFixtures(t, fsys)
	created := time.Date(2021, 3, 24, 2, 2, 27, 158e6, time.UTC)
	want := sandbox.Fixtures{
		PricingProfiles: []sandbox.PricingProfile{{
			Name: "standard", Currency: "USD", Products: map[string]string{"PRO_TRA_CP-US-CARD-A920_SP": "29900"},
		}},
		Merchants: []sandbox.Merchant{
			{ID: "MER_1", Name: "One", PricingProfile: "standard", Scenarios: []string{"slow"}, Boarding: undated()},
			{ID: "MER_2", Name: "Two", Boarding: undated()},
		},
		Apps: []sandbox.App{{
			ID: "APP_1", Key: "KEY_1", Name: "app one", Email: "one@sandbox.example", MerchantID: "MER_1",
			Merchants: []string{"MER_1"},
			Accounts: []sandbox.Account{
				{ID: "TRA_1", Name: "transaction_processing", Permissions: []string{"TRN_POST_Adjust"}},
			},
			Live:      sandbox.LiveConfig{AdjustmentAllowed: true},
			Scenarios: []string{"flaky"},
		}},
		Transactions: []sandbox.Transaction{
			{
				ID: "TRN_1", Holder: sandbox.Holder{MerchantID: "MER_1"}, TimeCreated: created, Type: "REFUND", Status: "REVERSED",
				Amount: "1000", GratuityAmount: "150", Currency: "USD", Country: "US", Reference: "ref-1",
				PaymentMethod: sandbox.PaymentResult{
					Result: "00", Message: "SUCCESS",
					Card: sandbox.CardResult{Authcode: "123456", BrandReference: "BR1"},
					BNPL: &sandbox.BNPLResult{Provider: "AFFIRM"},
				},
				Order: &sandbox.OrderAmounts{
					Taxes:      []sandbox.Tax{{Type: "SALES", Amount: "80"}},
					DutyAmount: "10", ShippingAmount: "500",
				},
				BatchID: "BAT_1", BatchClosed: true,
				Action: sandbox.Action{
					ID: "ACT_1", Type: "AUTHORIZE", TimeCreated: "2021-03-24T02:03:00.000Z",
					ResultCode: "SUCCESS", AppID: "APP_1", AppName: "app one",
				},
				Scenarios: []string{"decline"},
			},
			{
				ID: "TRN_2", Holder: sandbox.Holder{MerchantID: "MER_1"}, TimeCreated: time.Date(2021, 3, 25, 0, 0, 0, 1e6, time.UTC),
				Type: "SALE", Status: "CAPTURED", Amount: "0", Currency: "EUR", Country: "IE",
				ExtraAmounts: sandbox.ExtraAmounts{CashbackAmount: "2000"},
				Action: sandbox.Action{
					ID: defaultActionID("TRN_2"), Type: "AUTHORIZE", TimeCreated: "2021-03-25T00:00:00.001Z",
					ResultCode: "SUCCESS",
				},
			},
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("LoadFixtures\n got: %+v\nwant: %+v", got, want)
	}
}

func TestDefaultActionIDIsStable(t *testing.T) {
	id := defaultActionID("TRN_2")
	if len(id) != 34 || !strings.HasPrefix(id, "ACT_") || ident(id).check() != "" {
		t.Errorf("defaultActionID = %q, want ACT_ + 30 alphanumerics", id)
	}
	if id != defaultActionID("TRN_2") || id == defaultActionID("TRN_3") {
		t.Errorf("defaultActionID is not a function of the transaction id")
	}
}

func TestLoadFixturesEmpty(t *testing.T) {
	got := mustLoadFixtures(t, files("empty.yaml", ""))
	if !reflect.DeepEqual(got, sandbox.Fixtures{}) {
		t.Errorf("got %+v, want nothing", got)
	}
}

// merchantOne is a valid file the problem cases refer to.
const merchantOne = `pricing_profiles: [{name: standard, currency: USD}]
merchants: [{id: MER_1, name: One, pricing_profile: standard}]
`

// sale returns a valid transaction item with one line replaced or added (key: value).
func sale(line string) string {
	lines := []string{
		"  - id: TRN_1",
		"    merchant_id: MER_1",
		"    time_created: 2021-03-24T02:02:27.158Z",
		"    type: SALE",
		"    status: CAPTURED",
		"    amount: \"1000\"",
		"    currency: USD",
		"    country: US",
	}
	key, _, _ := strings.Cut(strings.TrimSpace(line), ":")
	replaced := false
	for i, l := range lines {
		if k, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimSpace(l), "- "), ":"); k == key {
			lines[i] = strings.Replace(l, strings.TrimPrefix(strings.TrimSpace(l), "- "), strings.TrimSpace(line), 1)
			replaced = true
		}
	}
	if !replaced {
		lines = append(lines, "    "+strings.TrimSpace(line))
	}
	return "transactions:\n" + strings.Join(lines, "\n") + "\n"
}

func TestLoadFixturesProblems(t *testing.T) {
	for _, tc := range []struct {
		name string
		fsys fstest.MapFS
		want []string
	}{
		{"unknown keys", files("m.yaml", merchantOne, "a.yaml", "merchant: []\napps:\n  - id: APP_1\n    nmae: x\n"), []string{
			`a.yaml:1:1: unknown key "merchant"`,
			`a.yaml:3:5: apps[0]: missing required key "key"`,
			`a.yaml:3:5: apps[0]: missing required key "name"`,
			`a.yaml:3:5: apps[0]: missing required key "merchant_id"`,
			`a.yaml:4:5: apps[0]: unknown key "nmae"`,
		}},
		{"number where a string is due", files("m.yaml", merchantOne, "t.yaml", sale("amount: 1000")), []string{
			"t.yaml:7:13: transactions[0].amount: expected a string, got the number 1000; write it in quotes",
		}},
		{"float where a string is due", files("m.yaml", merchantOne, "t.yaml", sale("gratuity_amount: 12.75")), []string{
			"t.yaml:10:22: transactions[0].gratuity_amount: expected a string, got the number 12.75; write it in quotes",
		}},
		{"quoted non-digits cashback", files("m.yaml", merchantOne, "t.yaml", sale(`cashback_amount: "5.00"`)), []string{
			`t.yaml:10:22: transactions[0].cashback_amount: must be 1 to 50 digits in minor units ("1000" is 10.00), got "5.00"`,
		}},
		{"quoted non-digits amount", files("m.yaml", merchantOne, "t.yaml", sale(`amount: "10.00"`)), []string{
			`t.yaml:7:13: transactions[0].amount: must be 1 to 50 digits in minor units ("1000" is 10.00), got "10.00"`,
		}},
		{"wrong types", files("m.yaml", merchantOne, "t.yaml", sale(`batch_closed: "yes"`)+"merchants: {id: MER_2}\n"), []string{
			`t.yaml:10:19: transactions[0].batch_closed: expected true or false, got the string "yes"`,
			"t.yaml:11:12: merchants: expected a list, got a mapping",
		}},
		{"bad times", files("m.yaml", merchantOne,
			"a.yaml", sale("time_created: 2021-03-24 02:02:27"),
			"b.yaml", sale(`time_created: "2021-03-24T02:02:27Z"`),
			"c.yaml", strings.ReplaceAll(sale("time_created: 2021-02-30T02:02:27.158Z"), "TRN_1", "TRN_3")+
				"    action: {id: ACT_1, type: AUTHORIZE, time_created: 2021-03-24T02:02:27.158+01:00, result_code: SUCCESS}\n",
		), []string{
			`a.yaml:4:19: transactions[0].time_created: must be a UTC time with milliseconds like 2021-03-24T02:02:27.158Z, got "2021-03-24 02:02:27"`,
			`b.yaml:2:9: transactions[0].id: duplicate transaction id "TRN_1" (first defined at a.yaml:2:9)`,
			`b.yaml:4:19: transactions[0].time_created: must be a UTC time with milliseconds like 2021-03-24T02:02:27.158Z, got "2021-03-24T02:02:27Z"`,
			`c.yaml:4:19: transactions[0].time_created: must be a UTC time with milliseconds like 2021-03-24T02:02:27.158Z, got "2021-02-30T02:02:27.158Z"`,
			`c.yaml:10:56: transactions[0].action.time_created: must be a UTC time with milliseconds like 2021-03-24T02:02:27.158Z, got "2021-03-24T02:02:27.158+01:00"`,
		}},
		{"bad enums and codes", files("m.yaml", merchantOne,
			"t.yaml", strings.Replace(strings.Replace(sale("status: captured"), "SALE", "PURCHASE", 1), "USD", "usd", 1)+"    country: USA\n"), []string{
			`t.yaml:5:11: transactions[0].type: must be one of SALE, REFUND, got "PURCHASE"`,
			`t.yaml:6:13: transactions[0].status: must be one of CAPTURED, PREAUTHORIZED, DECLINED, REVERSED, got "captured"`,
			`t.yaml:8:15: transactions[0].currency: must be an ISO 4217 currency code in capitals, like USD, got "usd"`,
			`t.yaml:10:5: transactions[0]: duplicate key "country" (first at line 9)`,
		}},
		{"bad ids", files("m.yaml", merchantOne, "a.yaml", `apps:
  - id: APP/1
    key: K
    name: ""
    merchant_id: MER_1
    accounts:
      - id: TRA_123456789012345678901234567890123456789012345678
        name: transaction_processing
        permissions: [TRN POST Adjust]
`), []string{
			`a.yaml:2:9: apps[0].id: must contain only letters, digits, '-', '.', '_' and '~', got "APP/1"`,
			`a.yaml:4:11: apps[0].name: must not be empty`,
			`a.yaml:7:13: apps[0].accounts[0].id: must be 1 to 50 characters long, got 52`,
			`a.yaml:9:23: apps[0].accounts[0].permissions[0]: must be a permission name like TRN_POST_Adjust (letters, digits and _), got "TRN POST Adjust"`,
		}},
		{"duplicate ids across files", files("m.yaml", merchantOne,
			"n.yaml", "merchants:\n  - {id: MER_2, name: Two}\n  - {id: MER_1, name: Again}\npricing_profiles:\n  - {name: standard, currency: EUR}\n",
			"t.yaml", sale("batch_id: BAT_1")+strings.TrimPrefix(sale("batch_id: BAT_2"), "transactions:\n"),
		), []string{
			`n.yaml:3:10: merchants[1].id: duplicate merchant id "MER_1" (first defined at m.yaml:2:18)`,
			`n.yaml:5:12: pricing_profiles[0].name: duplicate pricing profile name "standard" (first defined at m.yaml:1:27)`,
			`t.yaml:11:9: transactions[1].id: duplicate transaction id "TRN_1" (first defined at t.yaml:2:9)`,
		}},
		{"dangling references", files("m.yaml", merchantOne,
			"a.yaml", "apps:\n  - {id: APP_1, key: K, name: N, merchant_id: MER_9, merchants: [MER_1, MER_8]}\n",
			"n.yaml", "merchants: [{id: MER_2, name: Two, pricing_profile: gold}]\n",
			"t.yaml", sale("merchant_id: MER_7"),
		), []string{
			`a.yaml:2:47: apps[0].merchant_id: unknown merchant "MER_9"`,
			`a.yaml:2:73: apps[0].merchants[1]: unknown merchant "MER_8"`,
			`n.yaml:1:53: merchants[0].pricing_profile: unknown pricing profile "gold"`,
			`t.yaml:3:18: transactions[0].merchant_id: unknown merchant "MER_7"`,
		}},
		{"closed batch without id", files("m.yaml", merchantOne, "t.yaml", sale("batch_closed: true")), []string{
			"t.yaml:10:19: transactions[0].batch_closed: a closed batch needs a batch_id",
		}},
		{"multi-document file", files("m.yaml", merchantOne,
			"t.yaml", "merchants: [{id: MER_2, name: Two}]\n---\n"+sale("reference: 12")+"---\nmerchants: [{id: MER_2, name: Twice}]\n"), []string{
			"t.yaml:12:16: transactions[0].reference: expected a string, got the number 12; write it in quotes",
			`t.yaml:14:18: merchants[0].id: duplicate merchant id "MER_2" (first defined at t.yaml:1:18)`,
		}},
		{"not YAML", files(
			"a.yaml", "{{{",
			"b.yaml", "hello world\n",
			"c.yaml", "\x00\x01\x02",
			"d.yaml", "merchants: []\n---\nmerchants: [\n",
			"e.yaml", "- 1\n- 2\n",
		), []string{
			"a.yaml:1: invalid YAML: did not find expected node content",
			`b.yaml:1:1: expected a mapping, got the string "hello world"`,
			"c.yaml: invalid YAML: control characters are not allowed",
			"d.yaml:3: invalid YAML: did not find expected node content",
			"e.yaml:1:1: expected a mapping, got a list",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := mustProblems(t, tc.fsys)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("problems\n got: %s\nwant: %s", strings.Join(got, "\n      "), strings.Join(tc.want, "\n      "))
			}
		})
	}
}

func TestLoadFixturesListErrors(t *testing.T) {
	_, err := LoadFixtures(fstest.MapFS{"x.yaml": {Mode: fs.ModeDir}, "x.yaml/y": {}}, testNow)
	if err != nil {
		t.Fatalf("a directory named *.yaml is not a fixture file: %v", err)
	}
	var missing fs.FS = fstest.MapFS{}
	if _, err := LoadFixtures(subFS{missing}, testNow); err == nil {
		t.Fatal("LoadFixtures of an unreadable FS: no error")
	} else if errors.As(err, new(Problems)) {
		t.Fatalf("LoadFixtures of an unreadable FS: %v, want a plain error", err)
	}
}

// subFS fails every ReadDir, as a vanished --fixtures directory does.
type subFS struct{ fs.FS }

func (subFS) Open(string) (fs.File, error) { return nil, fs.ErrNotExist }

func TestDecodeTransaction(t *testing.T) {
	json := `{"id": "TRN_9", "merchant_id": "MER_UNKNOWN", "time_created": "2021-03-24T02:02:27.158Z",
"type": "SALE", "status": "PREAUTHORIZED", "amount": "2500", "currency": "USD", "country": "US",
"batch_id": "BAT_7"}`
	got, err := DecodeTransaction([]byte(json), "body.json")
	if err != nil {
		t.Fatalf("DecodeTransaction: %v", err)
	}
	want := sandbox.Transaction{
		ID: "TRN_9", Holder: sandbox.Holder{MerchantID: "MER_UNKNOWN"}, TimeCreated: time.Date(2021, 3, 24, 2, 2, 27, 158e6, time.UTC),
		Type: "SALE", Status: "PREAUTHORIZED", Amount: "2500", Currency: "USD", Country: "US", BatchID: "BAT_7",
		Action: sandbox.Action{ID: defaultActionID("TRN_9"), Type: "AUTHORIZE", TimeCreated: "2021-03-24T02:02:27.158Z", ResultCode: "SUCCESS"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("DecodeTransaction\n got: %+v\nwant: %+v", got, want)
	}

	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"empty", "", []string{"t.yaml: no transaction: the document is empty"}},
		{"fixtures shape", sale("amount: \"1\""), []string{
			`t.yaml:1:1: unknown key "transactions"`,
			`t.yaml:1:1: missing required key "id"`,
			`t.yaml:1:1: missing required key "merchant_id"`,
			`t.yaml:1:1: missing required key "time_created"`,
			`t.yaml:1:1: missing required key "type"`,
			`t.yaml:1:1: missing required key "status"`,
			`t.yaml:1:1: missing required key "amount"`,
			`t.yaml:1:1: missing required key "currency"`,
			`t.yaml:1:1: missing required key "country"`,
		}},
		{"two documents", "id: TRN_1\n---\nid: TRN_2\n", []string{
			`t.yaml:1:1: missing required key "merchant_id"`,
			`t.yaml:1:1: missing required key "time_created"`,
			`t.yaml:1:1: missing required key "type"`,
			`t.yaml:1:1: missing required key "status"`,
			`t.yaml:1:1: missing required key "amount"`,
			`t.yaml:1:1: missing required key "currency"`,
			`t.yaml:1:1: missing required key "country"`,
			"t.yaml:3:1: expected one transaction document, found a second one",
		}},
		{"wrong amount type", `{"id": "TRN_9", "merchant_id": "M", "time_created": "2021-03-24T02:02:27.158Z",
"type": "SALE", "status": "CAPTURED", "amount": 12.75, "currency": "USD", "country": "US"}`, []string{
			"t.yaml:2:49: amount: expected a string, got the number 12.75; write it in quotes",
		}},
		{"garbage", "}", []string{"t.yaml:1: invalid YAML: did not find expected node content"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeTransaction([]byte(tc.src), "t.yaml")
			var ps Problems
			if !errors.As(err, &ps) {
				t.Fatalf("DecodeTransaction error = %v, want Problems", err)
			}
			if got := problemStrings(ps); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("problems\n got: %s\nwant: %s", strings.Join(got, "\n      "), strings.Join(tc.want, "\n      "))
			}
		})
	}
}

func TestFixtureScenarioBindings(t *testing.T) {
	_, got, err := LoadFixturesWithBindings(files("a.yaml", complete), testNow)
	if err != nil {
		t.Fatalf("LoadFixturesWithBindings: %v", err)
	}
	want := []ScenarioBinding{
		{File: "a.yaml", Line: 11, Col: 17, Kind: "merchant", ID: "MER_1", Scenario: "slow"},
		{File: "a.yaml", Line: 26, Col: 17, Kind: "app", ID: "APP_1", Scenario: "flaky"},
		{File: "a.yaml", Line: 57, Col: 17, Kind: "transaction", ID: "TRN_1", Scenario: "decline"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("bindings\n got: %+v\nwant: %+v", got, want)
	}
	if p := got[0].Problem(`unknown scenario "slow"`).String(); p != `a.yaml:11:17: unknown scenario "slow"` {
		t.Errorf("Problem = %q", p)
	}
}

func FuzzLoadFixtures(f *testing.F) {
	entries, err := fs.ReadDir(fixtures.FS, ".")
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range entries {
		data, err := fs.ReadFile(fixtures.FS, e.Name())
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(complete))
	f.Add([]byte(merchantOne + "---\n" + sale("order: {taxes: [{type: X, amount: \"1\"}]}")))
	f.Fuzz(func(t *testing.T, data []byte) {
		fx, err := LoadFixtures(files("f.yaml", string(data)), testNow)
		if err != nil {
			var ps Problems
			if !errors.As(err, &ps) || len(ps) == 0 {
				t.Fatalf("error %v is not a non-empty Problems", err)
			}
			for _, p := range ps {
				if p.File != "f.yaml" || p.Message == "" || strings.Contains(p.Message, "\n") {
					t.Fatalf("malformed problem %#v", p)
				}
			}
			return
		}
		for _, tr := range fx.Transactions {
			if tr.ID == "" || tr.Action.ID == "" || tr.TimeCreated.IsZero() {
				t.Fatalf("incomplete transaction %+v", tr)
			}
		}
		_, _ = DecodeTransaction(data, "f.yaml") // must not panic either
	})
}

// testNow is the sandbox clock's time the tests read fixtures at: relative times
// (now-7d) count from it.
var testNow = time.Date(2021, 3, 22, 10, 0, 0, 0, time.UTC)

// undated is the boarding record of a fixture merchant that gives no boarding
// members: an ACTIVE merchant boarded when the fixtures were read.
func undated() *sandbox.Boarding {
	return &sandbox.Boarding{Status: sandbox.MerchantActive, Type: "MERCHANT", TimeCreated: testNow, TimeLastUpdated: testNow}
}
