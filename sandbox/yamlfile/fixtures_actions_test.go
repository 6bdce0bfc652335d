package yamlfile

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

const actionsApp = `merchants: [{id: MER_1, name: One}]
apps: [{id: APP_1, key: K, name: app one, merchant_id: MER_1, merchants: [MER_1]}]
`

// An action is read with every key; what it leaves out is a success's.
func TestLoadFixtureActions(t *testing.T) {
	f := mustLoadFixtures(t, files("a.yaml", actionsApp+`actions:
  - id: ACT_seeded1
    type: SALE
    time_created: 2021-03-20T09:30:00.000Z
    resource: TRANSACTIONS
    resource_id: TRN_1
    resource_status: CAPTURED
    version: "2021-03-22"
    http_response_code: "200"
    response_code: SUCCESS
    app_id: APP_1
    merchant_id: MER_1
    account_id: TRA_1
    account_name: transaction_processing
    message_received: '{"amount":"100"}'
    message_sent: '{"id":"TRN_1"}'
  - {id: ACT_seeded2, type: CLOSE, time_created: 2021-03-20T10:00:00.000Z, resource: BATCHES, app_id: APP_1, merchant_id: MER_1}
`))
	want := []sandbox.ActionRecord{{
		ID: "ACT_seeded1", Type: "SALE", TimeCreated: time.Date(2021, 3, 20, 9, 30, 0, 0, time.UTC), Resource: "TRANSACTIONS",
		ResourceID: "TRN_1", ResourceStatus: "CAPTURED", Version: "2021-03-22", HTTPResponseCode: "200", ResponseCode: "SUCCESS",
		AppID: "APP_1", Holder: sandbox.Holder{MerchantID: "MER_1", AccountID: "TRA_1", AccountName: "transaction_processing"},
		MessageReceived: `{"amount":"100"}`, MessageSent: `{"id":"TRN_1"}`,
	}, {
		ID: "ACT_seeded2", Type: "CLOSE", TimeCreated: time.Date(2021, 3, 20, 10, 0, 0, 0, time.UTC), Resource: "BATCHES",
		HTTPResponseCode: "200", ResponseCode: "SUCCESS", AppID: "APP_1", Holder: sandbox.Holder{MerchantID: "MER_1"},
	}}
	if !reflect.DeepEqual(f.Actions, want) {
		t.Errorf("actions\n got %+v\nwant %+v", f.Actions, want)
	}
}

// An action's id, resource, status and references are checked where they are written.
func TestFixtureActionProblems(t *testing.T) {
	got := mustProblems(t, files("a.yaml", actionsApp+`actions:
  - {id: TRN_1, type: SALE, time_created: 2021-03-20T09:30:00.000Z, resource: TRANSACTION, app_id: APP_9, merchant_id: MER_1, http_response_code: "20"}
  - {id: ACT_1, time_created: 2021-03-20T09:30:00.000Z, resource: ORDERS, app_id: APP_1, merchant_id: MER_1}
  - {id: ACT_1, type: X, time_created: 2021-03-20T09:30:00.000Z, resource: ORDERS, app_id: APP_1, merchant_id: MER_1}
`))
	want := []string{
		`a.yaml:4:10: actions[0].id: must start with ACT_, got "TRN_1"`,
		`a.yaml:4:79: actions[0].resource: must be one of TRANSACTIONS, PAYMENT_METHODS, ORDERS, BATCHES, DEVICES, CURRENCY_CONVERSIONS, MERCHANTS, DISPUTES, DOCUMENTS, ACCOUNTS, got "TRANSACTION"`,
		`a.yaml:4:100: actions[0].app_id: unknown app "APP_9"`,
		`a.yaml:4:147: actions[0].http_response_code: must be an HTTP status like 200, got "20"`,
		`a.yaml:5:5: actions[1]: missing required key "type"`,
		`a.yaml:6:10: actions[2].id: duplicate action id "ACT_1" (first defined at a.yaml:5:10)`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("problems\n got: %s\nwant: %s", strings.Join(got, "\n      "), strings.Join(want, "\n      "))
	}
}
