package sandbox

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gp-sandbox/gp-sandbox/sandbox/carddata"
)

// The back-office reads and the currency conversion, named as scenarios and the
// journal name them.
const (
	OpActionList          Operation = "action_list"           // GET /actions
	OpActionDetail        Operation = "action_detail"         // GET /actions/{id}
	OpCurrencyConversion  Operation = "currency_conversion"   // POST /currency-conversions
	OpPaymentMethodList   Operation = "payment_method_list"   // GET /payment-methods
	OpPaymentMethodSearch Operation = "payment_method_search" // POST /payment-methods/search
)

// BackOfficeOperations lists the operations of this file, in the order the wire
// contract presents them.
var BackOfficeOperations = []Operation{
	OpActionList, OpActionDetail, OpCurrencyConversion, OpPaymentMethodList, OpPaymentMethodSearch,
}

// readOperations are the operations that change nothing: their requests are not
// recorded as actions, so that reading the list of actions does not change it [SB].
var readOperations = []Operation{
	OpTransactionDetail, OpTransactionList, OpBatchDetail, OpPaymentMethodDetail,
	OpActionList, OpActionDetail, OpPaymentMethodList, OpPaymentMethodSearch,
	OpMerchantDetail, OpMerchantList, OpAccountList, OpAccountDetail, OpAddressList,
	OpSettlementTransactionList, OpDepositList, OpDepositDetail, OpDisputeList, OpDisputeDetail,
	OpDisputeDocument, OpSettlementDisputeList, OpSettlementDisputeDetail,
}

// Recorded reports whether a request of op is recorded as an action: every one but
// the reads.
func (op Operation) Recorded() bool { return !slices.Contains(readOperations, op) }

// Resource names of the action records: GP's for transactions, the path's upper-cased
// collection for the others [GP]/[SB].
const (
	ResourceTransactions        = "TRANSACTIONS"
	ResourcePaymentMethods      = "PAYMENT_METHODS"
	ResourceOrders              = "ORDERS"
	ResourceBatches             = "BATCHES"
	ResourceDevices             = "DEVICES"
	ResourceCurrencyConversions = "CURRENCY_CONVERSIONS"
	ResourceMerchants           = "MERCHANTS"
	ResourceDisputes            = "DISPUTES"
	ResourceDocuments           = "DOCUMENTS"
	ResourceAccounts            = "ACCOUNTS"
)

// failedActions names the resource and action type a refused request of an operation
// is recorded with, since no resource was made to say them [SB].
var failedActions = map[Operation][2]string{
	OpAdjustment:          {ResourceTransactions, "AUTHORIZE"},
	OpTransaction:         {ResourceTransactions, "SALE"},
	OpVerification:        {ResourceTransactions, "VERIFY"},
	OpCapture:             {ResourceTransactions, "CAPTURE"},
	OpRefund:              {ResourceTransactions, "REFUND"},
	OpReversal:            {ResourceTransactions, "REVERSAL"},
	OpReauthorization:     {ResourceTransactions, "REAUTHORIZE"},
	OpIncremental:         {ResourceTransactions, "INCREMENTAL_AUTH"},
	OpBatchClose:          {ResourceBatches, "CLOSE"},
	OpPaymentMethodCreate: {ResourcePaymentMethods, "PAYMENT_METHOD_CREATE"},
	OpPaymentMethodEdit:   {ResourcePaymentMethods, "PAYMENT_METHOD_EDIT"},
	OpPaymentMethodDelete: {ResourcePaymentMethods, "PAYMENT_METHOD_DELETE"},
	OpOrder:               {ResourceOrders, "ORDER_INITIATED"},
	OpDevice:              {ResourceDevices, "PROCESS_DEVICE_COMMAND"},
	OpCurrencyConversion:  {ResourceCurrencyConversions, "RATE_LOOKUP"},
	OpDisputeAcceptance:   {ResourceDisputes, "DISPUTE_ACCEPTANCE"},
	OpDisputeChallenge:    {ResourceDisputes, "DISPUTE_CHALLENGE"},
	OpMerchantCreate:      {ResourceMerchants, "MERCHANT_CREATE"},
	OpMerchantEdit:        {ResourceMerchants, "MERCHANT_EDIT_INITIATED"},
	OpMerchantDocument:    {ResourceDocuments, "DOCUMENT_UPLOAD"},
	OpAccountEdit:         {ResourceAccounts, "MERCHANT_EDIT"},
}

// ActionsKept is how many action records the sandbox keeps, the newest: a refused or
// adjusted request leaves a record, and a long run of them must not grow the store
// without bound [SB].
const ActionsKept = 10000

// maxMessageKept is how much of a request's body an action record keeps [SB].
const maxMessageKept = 4096

// keptMessage is a message as an action record keeps it: at most maxMessageKept
// bytes, cut short with "…" (after its card members were masked).
func keptMessage(s string) string {
	if len(s) <= maxMessageKept {
		return s
	}
	return carddata.Mask(s[:maxMessageKept]) + "…" // the cut may end in what reads as a card number: masked again
}

// ActionRecord is one recorded action, GET /actions: what a request did to which
// resource, with what answer. Successful actions are written in the Update of the
// action itself; a refused request is written on its own, as nothing else is.
type ActionRecord struct {
	ID               string    `json:"id"` // first: the store finds a record by its leading id
	Type             string    `json:"type"`
	TimeCreated      time.Time `json:"time_created"`
	Resource         string    `json:"resource"`
	ResourceID       string    `json:"resource_id,omitempty"`
	ResourceStatus   string    `json:"resource_status,omitempty"`
	Version          string    `json:"version,omitempty"`
	HTTPResponseCode string    `json:"http_response_code"`
	ResponseCode     string    `json:"response_code"`
	AppID            string    `json:"app_id"`
	AppName          string    `json:"app_name"`
	Holder
	// What the request carried (its body, card members masked) and a summary of the
	// answer (id, status and action; a refusal's error tuple) [SB].
	MessageReceived string `json:"message_received,omitempty"`
	MessageSent     string `json:"message_sent,omitempty"`
}

func (a ActionRecord) merchant() string { return a.MerchantID }

// CallRequest is what the API tells the domain of the request a caller made, for the
// action record: its X-GP-Version and its body with card members masked.
type CallRequest struct {
	Version  string
	Received string
}

// actionSubject is a resource an action returns: it names itself for the action
// record.
type actionSubject interface {
	actionSubject() ActionRecord
}

// actionRecordOf is the action record of an action that returned resource id, in
// status, held by h: the action's own members, and a summary of the resource.
func actionRecordOf(resource, id, status string, h Holder, a Action) ActionRecord {
	return ActionRecord{
		Resource: resource, ResourceID: id, ResourceStatus: status, Holder: h,
		ID: a.ID, Type: a.Type, ResponseCode: a.ResultCode,
	}
}

func (t Transaction) actionSubject() ActionRecord {
	return actionRecordOf(ResourceTransactions, t.ID, t.Status, t.Holder, t.Action)
}

func (p PaymentMethod) actionSubject() ActionRecord {
	return actionRecordOf(ResourcePaymentMethods, p.ID, p.Status, p.Holder, p.Action)
}

func (o Order) actionSubject() ActionRecord {
	return actionRecordOf(ResourceOrders, o.ID, o.Status, o.Holder, o.Action)
}

func (b Batch) actionSubject() ActionRecord {
	return actionRecordOf(ResourceBatches, b.ID, b.Status, b.Holder, b.Action)
}

func (d DeviceRequest) actionSubject() ActionRecord {
	return actionRecordOf(ResourceDevices, d.ID, d.Status, d.Holder, d.Action)
}

func (v MerchantView) actionSubject() ActionRecord {
	status := v.Merchant.Profile().StatusAt(v.Now)
	return actionRecordOf(ResourceMerchants, v.Merchant.ID, status, HolderOf(v.Merchant, Account{}), v.Action)
}

func (d Dispute) actionSubject() ActionRecord {
	return actionRecordOf(ResourceDisputes, d.ID, d.Status, d.Holder, d.Action)
}

func (v DocumentView) actionSubject() ActionRecord {
	return actionRecordOf(ResourceDocuments, v.Document.ID, v.Document.Status, HolderOf(v.Merchant, Account{}), v.Action)
}

func (e EditedAccount) actionSubject() ActionRecord {
	a := e.Account
	h := Holder{MerchantID: a.MerchantID, MerchantName: e.MerchantName, AccountID: a.ID, AccountName: a.Name}
	return actionRecordOf(ResourceAccounts, a.ID, a.Status, h, e.Action)
}

// recordAction writes the action record of v, the value an action returned, in the
// action's own store transaction. A value that names no action records nothing. v is
// a pointer to the value: the value in an interface would be a copy on the heap.
func recordAction(tx Tx, c Caller, v any, now time.Time) error {
	s, ok := v.(actionSubject)
	if !ok {
		return nil
	}
	rec := s.actionSubject()
	if rec.ID == "" {
		return nil
	}
	rec.TimeCreated, rec.HTTPResponseCode = now, "200"
	rec.Version, rec.MessageReceived = c.Request.Version, keptMessage(c.Request.Received)
	rec.AppID, rec.AppName = c.App.ID, c.App.Name
	rec.MessageSent = answerSummary(map[string]any{
		"id": rec.ResourceID, "status": rec.ResourceStatus,
		"action": map[string]string{"id": rec.ID, "type": rec.Type, "result_code": rec.ResponseCode},
	})
	return tx.PutAction(rec, ActionsKept)
}

// answerSummary is the JSON of what an answer said.
func answerSummary(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

// RecordRefusal records a request the API refused after it knew the caller: the
// resource and type its operation would have acted as, the HTTP status and error
// code of the answer, the app's own merchant. Reads are not recorded [SB]. It is
// its own store transaction: the refused request wrote nothing.
func (s *Service) RecordRefusal(c Caller, op Operation, httpStatus int, refusal error) error {
	kind, ok := failedActions[op]
	if !ok || c.App.ID == "" || !op.Recorded() {
		return nil
	}
	gp, isGP := AsError(refusal)
	if !isGP {
		gp = SystemError() // the sandbox's own failure: its cause is the log's, not the record's
	}
	return s.store.Update(func(tx Tx) error {
		now := s.clock.Now()
		rec := ActionRecord{
			ID: "ACT_" + s.ids.Alphanumeric(30), Type: kind[1], TimeCreated: now, Resource: kind[0],
			Version: c.Request.Version, HTTPResponseCode: strconv.Itoa(httpStatus), ResponseCode: gp.Code,
			AppID: c.App.ID, AppName: c.App.Name, Holder: Holder{MerchantID: c.App.MerchantID},
			MessageReceived: keptMessage(c.Request.Received),
			MessageSent: carddata.Mask(answerSummary(map[string]string{
				"error_code": gp.Code, "detailed_error_code": gp.Detail, "detailed_error_description": gp.Description,
			})),
		}
		if m, err := tx.Merchant(rec.MerchantID); err == nil {
			rec.MerchantName = m.Name
		}
		return tx.PutAction(rec, ActionsKept)
	})
}

// ActionOrderings are the orders an action list offers [GP].
var ActionOrderings = []string{"TIME_CREATED"}

// ActionQuery is a GET /actions query: paging, order and GP's filters, each an
// exact match when set.
type ActionQuery struct {
	Paging
	ID               string
	Type             string
	Resource         string
	ResourceStatus   string
	ResourceID       string
	From, To         time.Time // from_time_created, to_time_created: whole days
	MerchantName     string
	AccountName      string
	AppID            string
	AppName          string
	Version          string
	ResponseCode     string
	HTTPResponseCode string
}

func (q ActionQuery) matches(a ActionRecord) bool {
	eq := func(want, got string) bool { return want == "" || want == got }
	return eq(q.ID, a.ID) && eq(q.Type, a.Type) && eq(q.Resource, a.Resource) &&
		eq(q.ResourceStatus, a.ResourceStatus) && eq(q.ResourceID, a.ResourceID) &&
		eq(q.MerchantName, a.MerchantName) && eq(q.AccountName, a.AccountName) &&
		eq(q.AppID, a.AppID) && eq(q.AppName, a.AppName) && eq(q.Version, a.Version) &&
		eq(q.ResponseCode, a.ResponseCode) && eq(q.HTTPResponseCode, a.HTTPResponseCode) &&
		(q.From.IsZero() || !a.TimeCreated.Before(q.From)) &&
		(q.To.IsZero() || a.TimeCreated.Before(q.To.AddDate(0, 0, 1)))
}

// ActionPage is one page of a GET /actions answer, with the total that matched and
// the app's own merchant, which the list's envelope names.
type ActionPage struct {
	Query    ActionQuery
	Total    int
	Merchant Merchant
	Actions  []ActionRecord
}

// ListActions lists the actions of the merchants the caller's app acts for. A
// merchant_name the app acts for no merchant of is GP's 40003.
func (s *Service) ListActions(c Caller, q ActionQuery) (ActionPage, error) {
	page := ActionPage{Query: q}
	err := s.store.View(func(tx Tx) error {
		if err := checkMerchantName(tx, c, q.MerchantName); err != nil {
			return err
		}
		if m, err := tx.Merchant(c.App.MerchantID); err == nil {
			page.Merchant = m
		}
		return nil
	})
	if err != nil {
		return page, err
	}
	all, err := s.store.Actions()
	if err != nil {
		return page, err
	}
	hits := slices.DeleteFunc(all, func(a ActionRecord) bool { return !c.App.ActsFor(a.MerchantID) || !q.matches(a) })
	page.Total = len(hits)
	page.Actions = sortedPage(hits, func(a, b ActionRecord) int {
		return cmp.Or(a.TimeCreated.Compare(b.TimeCreated), strings.Compare(a.ID, b.ID))
	}, q.Paging)
	return page, nil
}

// checkMerchantName refuses a merchant_name filter naming no merchant the app acts for [GP].
func checkMerchantName(tx Tx, c Caller, name string) error {
	if name == "" {
		return nil
	}
	for _, id := range c.App.Merchants {
		if m, err := tx.Merchant(id); err == nil && m.Name == name {
			return nil
		}
	}
	return MerchantNameNotMatched()
}

// GetAction reads one recorded action of a merchant the caller's app acts for; any
// other is unknown (40118, naming the path asked).
func (s *Service) GetAction(c Caller, id, path string) (ActionRecord, error) {
	var a ActionRecord
	err := s.store.View(func(tx Tx) error {
		var err error
		a, err = visible(c, "", id, tx.Action, func(id string) *Error { return NotFoundAction(id, path) })
		return err
	})
	return a, err
}

// actionTx is the store's part for action records.
type actionTx interface {
	// Action reads one action record; PutAction writes it and forgets the oldest
	// when more than keep are kept. Store.Actions lists them.
	Action(id string) (ActionRecord, error)
	PutAction(a ActionRecord, keep int) error
}

// putFixtureActions writes the fixtures' action records, with their app's and
// merchant's names.
func putFixtureActions(tx Tx, actions []ActionRecord) error {
	for _, a := range actions {
		if a.ID == "" {
			return fmt.Errorf("fixture action without id")
		}
		// Fixtures are data like any request's: what they say was sent is masked.
		a.MessageReceived, a.MessageSent = carddata.Mask(a.MessageReceived), carddata.Mask(a.MessageSent)
		if app, err := tx.App(a.AppID); err == nil && a.AppName == "" {
			a.AppName = app.Name
		}
		if m, err := tx.Merchant(a.MerchantID); err == nil && a.MerchantName == "" {
			a.MerchantName = m.Name
		}
		if err := tx.PutAction(a, ActionsKept); err != nil {
			return err
		}
	}
	return nil
}
