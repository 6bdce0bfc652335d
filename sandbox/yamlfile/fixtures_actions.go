package yamlfile

import (
	"fmt"
	"strings"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
	"github.com/gp-sandbox/gp-sandbox/sandbox/carddata"
)

// actionRecordDoc is a recorded action (GET /actions), seeded so that a test suite can
// assert its exact id and date. The app's and the merchant's names are theirs.
type actionRecordDoc struct {
	ID               actionID       `yaml:"id,required"`
	Type             string         `yaml:"type,required"`
	TimeCreated      gpTime         `yaml:"time_created,required"`
	Resource         actionResource `yaml:"resource,required"`
	ResourceID       string         `yaml:"resource_id"`
	ResourceStatus   string         `yaml:"resource_status"`
	Version          string         `yaml:"version"`
	HTTPResponseCode httpCode       `yaml:"http_response_code"`
	ResponseCode     string         `yaml:"response_code"`
	AppID            ident          `yaml:"app_id,required"`
	MerchantID       ident          `yaml:"merchant_id,required"`
	AccountID        string         `yaml:"account_id"`
	AccountName      string         `yaml:"account_name"`
	MessageReceived  string         `yaml:"message_received"`
	MessageSent      string         `yaml:"message_sent"`
}

// actionID is an ACT_ id.
type actionID string

func (s actionID) check() string {
	if p := sandbox.IDProblem(string(s)); p != "" {
		return p
	}
	if !strings.HasPrefix(string(s), "ACT_") {
		return fmt.Sprintf("must start with ACT_, got %q", carddata.Excerpt(string(s)))
	}
	return ""
}

// actionResource is the resource an action acted on.
type actionResource string

func (s actionResource) check() string {
	return oneOf(string(s), sandbox.ResourceTransactions, sandbox.ResourcePaymentMethods, sandbox.ResourceOrders,
		sandbox.ResourceBatches, sandbox.ResourceDevices, sandbox.ResourceCurrencyConversions,
		sandbox.ResourceMerchants, sandbox.ResourceDisputes, sandbox.ResourceDocuments, sandbox.ResourceAccounts)
}

// httpCode is an HTTP status of three digits.
type httpCode string

func (s httpCode) check() string {
	if s != "" && (len(s) != 3 || strings.Trim(string(s), "0123456789") != "" || s[0] < '1' || s[0] > '5') {
		return fmt.Sprintf("must be an HTTP status like 200, got %q", carddata.Excerpt(string(s)))
	}
	return ""
}

// toDomain fills what an action written without it had: 200 and SUCCESS. The app's
// and the merchant's names are filled where the fixtures are stored.
func (a actionRecordDoc) toDomain() sandbox.ActionRecord {
	t, _ := a.TimeCreated.time()
	code, result := string(a.HTTPResponseCode), a.ResponseCode
	if code == "" {
		code = "200"
	}
	if result == "" {
		result = "SUCCESS"
	}
	return sandbox.ActionRecord{
		ID: string(a.ID), Type: a.Type, TimeCreated: t, Resource: string(a.Resource), ResourceID: a.ResourceID,
		ResourceStatus: a.ResourceStatus, Version: a.Version, HTTPResponseCode: code, ResponseCode: result,
		AppID:           string(a.AppID),
		Holder:          sandbox.Holder{MerchantID: string(a.MerchantID), AccountID: a.AccountID, AccountName: a.AccountName},
		MessageReceived: a.MessageReceived, MessageSent: a.MessageSent,
	}
}

// collectActions adds the document's actions, each an id of its own naming an app
// and a merchant of the fixtures.
func (l *fixturesLoader) collectActions(d *decoder, doc *fixturesDoc) {
	for i := range doc.Actions {
		a := &doc.Actions[i]
		l.define(d, "action", "id", string(a.ID), &a.ID)
		l.refer(d, "app", string(a.AppID), &a.AppID)
		l.refer(d, "merchant", string(a.MerchantID), &a.MerchantID)
		l.fixtures.Actions = append(l.fixtures.Actions, a.toDomain())
	}
}
