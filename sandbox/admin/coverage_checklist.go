package admin

import (
	"slices"

	"github.com/gp-sandbox/gp-sandbox/sandbox"
)

// The card-present certification checklist GET /_sandbox/coverage reports against:
// what GP's official SDKs exercise in their GP API integration tests (Java and .NET
// GpApiCreditCardPresentTest, GpApiDebitTest, GpApiBatchTest,
// GpApiBatchCloseWithoutIdTest, GpApiAuthenticationTest, GpApiReportingTransactionsTest,
// GpApiTokenManagementTest; PHP CreditCardPresentTest, DebitCardTest; Node
// DebitCard.test and the MiC device tests), each item with what in the journal
// satisfies it. README.md (Coverage) lists it for people.

// checkItem is one item of the checklist.
type checkItem struct {
	ID      string // stable, for scripts: "sale.swipe"
	Group   string
	Title   string
	By      string // what satisfies it, in words
	Source  string // the SDK tests that exercise it
	matches func(o *observation) bool
}

// succeeded is an answered 200 of one of ops.
func (o *observation) succeeded(ops ...sandbox.Operation) bool {
	return o.status == 200 && slices.Contains(ops, sandbox.Operation(o.op))
}

// approvedPayment is a payment (POST /transactions) the issuer approved, of the kind
// the sandbox took it for: its answer's type, whatever the body spelled (an
// authorization sent without type is a SALE).
func (o *observation) approvedPayment(kind string) bool {
	return o.succeeded(sandbox.OpTransaction) && o.answer.Type == kind && o.approved()
}

// failedWith is an answer with this GP tuple's detailed code (and status).
func (o *observation) failedWith(status int, details ...string) bool {
	if o.status != status {
		return false
	}
	for _, d := range details {
		if o.answer.Detail == d {
			return true
		}
	}
	return false
}

var checklist = slices.Concat([]checkItem{
	{ID: "token", Group: "access", Title: "Access token",
		By: "POST /accesstoken answered 200", Source: "every SDK test signs in; Java/.NET GpApiAuthenticationTest",
		matches: func(o *observation) bool { return o.succeeded(sandbox.OpAccessToken) }},
	{ID: "token.refused", Group: "access", Title: "A refused sign-in",
		By: "POST /accesstoken answered 4xx (wrong key, unknown app)", Source: "Java/.NET GpApiAuthenticationTest",
		matches: func(o *observation) bool { return o.op == string(sandbox.OpAccessToken) && o.status/100 == 4 }},
}, entryModeSales(), []checkItem{
	{ID: "sale.debit", Group: "entry modes", Title: "Debit sale",
		By: "POST /transactions SALE approved with payment_method.card.funding DEBIT", Source: "GpApiDebitTest DebitSaleSwipe (Java, .NET); Node DebitCard.test",
		matches: func(o *observation) bool {
			return o.approvedPayment("SALE") && o.request.PaymentMethod.Card.Funding == "DEBIT"
		}},

	{ID: "authorize", Group: "payments", Title: "Authorization",
		By: "POST /transactions SALE with capture_mode LATER answered PREAUTHORIZED", Source: "Java/.NET CreditCard_AuthorizeManual; IncrementalAuth",
		matches: func(o *observation) bool { return o.approvedPayment("SALE") && o.answer.Status == "PREAUTHORIZED" }},
	{ID: "refund.standalone", Group: "payments", Title: "Standalone refund",
		By: "POST /transactions REFUND approved", Source: "CreditCardPresentTest CreditTrackData_RefundSwipe, RefundChip",
		matches: func(o *observation) bool { return o.approvedPayment("REFUND") }},
	{ID: "verify", Group: "payments", Title: "Card verification",
		By: "POST /verifications answered VERIFIED", Source: "Java/.NET CreditVerify_CreditTrackDataDetails, CreditVerify_CardNumberDetails",
		matches: func(o *observation) bool {
			return o.succeeded(sandbox.OpVerification) && o.answer.Status == "VERIFIED"
		}},

	{ID: "outcome.declined.55", Group: "outcomes", Title: "Declined, result 55 (wrong PIN)",
		By: "a payment answered DECLINED with payment_method.result 55", Source: "Java/.NET CreditTrackData_SaleSwipe_Chip_WrongPin",
		matches: func(o *observation) bool { return o.declined() == "55" }},
	{ID: "outcome.declined.54", Group: "outcomes", Title: "Declined, result 54 (expired card)",
		By: "a payment answered DECLINED with payment_method.result 54", Source: "Java/.NET CreditTrackData_SaleSwipeChip_ExpiredCreditTrackDataDetails",
		matches: func(o *observation) bool { return o.declined() == "54" }},
	{ID: "outcome.not_verified", Group: "outcomes", Title: "Verification not verified",
		By: "POST /verifications answered NOT_VERIFIED", Source: "Java/.NET CreditVerify_CardNumber_ExpiredCard",
		matches: func(o *observation) bool {
			return o.succeeded(sandbox.OpVerification) && o.answer.Status == "NOT_VERIFIED"
		}},
	{ID: "outcome.partial", Group: "outcomes", Title: "Partial amount",
		By: "a refund or capture for less than its original, as the journal shows it", Source: "CreditCardPresentTest CreditTrackData_SaleSwipe_Refund; Node followups (refund part of a sale)",
		matches: func(o *observation) bool { return o.partial }},

	{ID: "capture", Group: "follow-ups", Title: "Capture of an authorization",
		By: "POST /transactions/{id}/capture answered 200", Source: "Java/.NET CreditCard_AuthorizeManual_Capture; GpApiDebitTest",
		matches: func(o *observation) bool { return o.succeeded(sandbox.OpCapture) }},
	{ID: "tip.adjustment", Group: "follow-ups", Title: "Tip adjustment",
		By: "POST /transactions/{id}/adjustment with gratuity_amount answered 200", Source: "Java/.NET AdjustSaleTransaction_AdjustOnlyGratuity; Node Transaction.edit().withGratuity",
		matches: func(o *observation) bool { return o.succeeded(sandbox.OpAdjustment) && o.tip() }},
	{ID: "tip.capture", Group: "follow-ups", Title: "Tip at capture",
		By: "POST /transactions/{id}/capture with gratuity_amount (gratuity from the Node and PHP SDKs) answered 200", Source: "Node followups (capture with a tip); Java/.NET capture().withGratuity",
		matches: func(o *observation) bool { return o.succeeded(sandbox.OpCapture) && o.tip() }},
	{ID: "adjustment.amount", Group: "follow-ups", Title: "Amount adjustment",
		By: "POST /transactions/{id}/adjustment with amount answered 200", Source: "Java/.NET AdjustSaleTransaction, AdjustAuthTransaction",
		matches: func(o *observation) bool { return o.succeeded(sandbox.OpAdjustment) && o.request.Amount != "" }},
	{ID: "refund", Group: "follow-ups", Title: "Refund of a sale",
		By: "POST /transactions/{id}/refund answered 200", Source: "CreditCardPresentTest CreditTrackData_SaleSwipe_Refund",
		matches: func(o *observation) bool { return o.succeeded(sandbox.OpRefund) }},
	{ID: "reversal", Group: "follow-ups", Title: "Reversal",
		By: "POST /transactions/{id}/reversal answered 200", Source: "CreditCardPresentTest CreditTrackData_SaleSwipe_Reverse",
		matches: func(o *observation) bool { return o.succeeded(sandbox.OpReversal) }},
	{ID: "reauthorization", Group: "follow-ups", Title: "Reauthorization of a reversed transaction",
		By: "POST /transactions/{id}/reauthorization answered 200", Source: "Java/.NET CreditCardReauthorizeTransaction",
		matches: func(o *observation) bool { return o.succeeded(sandbox.OpReauthorization) }},
	{ID: "incremental", Group: "follow-ups", Title: "Incremental authorization",
		By: "POST /transactions/{id}/incremental answered 200", Source: "Java/.NET IncrementalAuth",
		matches: func(o *observation) bool { return o.succeeded(sandbox.OpIncremental) }},

	{ID: "batch.close", Group: "batches", Title: "Batch close",
		By:     "POST /batches/{id} or POST /batches answered 200, or an EODProcessing command to a terminal answered 200",
		Source: "GpApiBatchTest CloseBatch (Java, .NET, PHP); GpApiBatchCloseWithoutIdTest; Node devices end of day",
		matches: func(o *observation) bool {
			return o.succeeded(sandbox.OpBatchClose) || o.succeeded(sandbox.OpDevice) && o.request.Request.Data.Command == "EODProcessing"
		}},
	{ID: "batch.detail", Group: "batches", Title: "Batch summary read",
		By: "GET /batches/{id} answered 200", Source: "GpApiBatchTest (the close's summary), reporting",
		matches: func(o *observation) bool { return o.succeeded(sandbox.OpBatchDetail) }},

	{ID: "report.detail", Group: "reporting", Title: "Transaction detail",
		By: "GET /transactions/{id} answered 200", Source: "GpApiReportingTransactionsTest ReportTransactionDetail; Node ReportingService.transactionDetail",
		matches: func(o *observation) bool { return o.succeeded(sandbox.OpTransactionDetail) }},
	{ID: "report.list", Group: "reporting", Title: "Transaction search",
		By: "GET /transactions answered 200", Source: "GpApiReportingTransactionsTest ReportFindTransactions*",
		matches: func(o *observation) bool { return o.succeeded(sandbox.OpTransactionList) }},

	{ID: "card_token", Group: "card tokens", Title: "Card tokenized",
		By: "POST /payment-methods answered 200", Source: "GpApiTokenManagementTest",
		matches: func(o *observation) bool { return o.succeeded(sandbox.OpPaymentMethodCreate) }},

	{ID: "terminal.sale", Group: "terminal", Title: "Sale on a terminal (Meet in the Cloud)",
		By: "POST /devices with command Sale answered 200", Source: "Node, Java, .NET UPA MiC tests (device.sale)",
		matches: func(o *observation) bool {
			return o.succeeded(sandbox.OpDevice) && o.request.Request.Data.Command == "Sale"
		}},

	{ID: "error.not_found", Group: "error paths", Title: "Unknown transaction",
		By: "404 RESOURCE_NOT_FOUND 40008 or 40118", Source: "Java CreditCaptureWrongId, CreditRefundTransactionWrongId; Java/.NET AdjustSaleTransaction_TransactionNotFound",
		matches: func(o *observation) bool { return o.failedWith(404, "40008", "40118") }},
	{ID: "error.duplicate", Group: "error paths", Title: "Idempotency key used twice",
		By: "409 DUPLICATE_ACTION 40039", Source: ".NET CreditTrackData_RefundWithIdempotencyKey; Java/.NET reauthorize WithIdempotencyKey",
		matches: func(o *observation) bool { return o.failedWith(409, "40039") }},
	{ID: "error.missing_fields", Group: "error paths", Title: "Mandatory fields missing",
		By: "400 MANDATORY_DATA_MISSING 40005", Source: "Java/.NET AdjustSaleTransaction_WithoutMandatory",
		matches: func(o *observation) bool { return o.failedWith(400, "40005") }},
	{ID: "error.permission", Group: "error paths", Title: "Operation not permitted",
		By: "403 ACTION_NOT_AUTHORIZED 40212", Source: "Java CreditSale_WithoutPermissions; .NET CreditTrackDataSale_WithoutPermissions",
		matches: func(o *observation) bool { return o.failedWith(403, "40212") }},
	{ID: "error.invalid_action", Group: "error paths", Title: "Operation refused in the transaction's status",
		By: "400 INVALID_ACTION 40290", Source: "Java/.NET IncrementalAuth_Charge; closed-batch adjustment",
		matches: func(o *observation) bool { return o.failedWith(400, "40290") }},
	{ID: "error.over_limit", Group: "error paths", Title: "Amount over the limit",
		By: "400 INVALID_REQUEST_DATA 40087 (refund over 115%) or 50020 (capture over 115%)", Source: "Java CreditRefundTransaction_RefundHigherAmount, CreditAuthorization_CaptureHigherAmount_WithError",
		matches: func(o *observation) bool { return o.failedWith(400, "40087", "50020") }},
	{ID: "error.pin_refund", Group: "error paths", Title: "Chip refund with a PIN refused",
		By: "400 INVALID_REQUEST_DATA 40029", Source: "Java/.NET CreditTrackData_RefundChip_Rejected",
		matches: func(o *observation) bool { return o.failedWith(400, "40029") }},
}, backOfficeItems(), []checkItem{
	{ID: "notification.delivered", Group: "notifications", Title: "Notification delivered",
		By: "a notification whose listener answered 2xx (the notification log, not the journal)", Source: "GP's status_url notifications (orders, device requests)"},
	{ID: "notification.retried", Group: "notifications", Title: "Notification retried",
		By: "a notification with more than one delivery attempt", Source: "GP's status_url notifications"},
}, boardingItems(), settlementChecks())

// entryModeSales are the items of approved sales that differ only in the entry mode
// the card was taken by.
func entryModeSales() []checkItem {
	sales := []struct{ id, title, mode, source string }{
		{"sale.swipe", "Swiped sale", "SWIPE", "CreditCardPresentTest CreditTrackData_SaleSwipe (Java, .NET, PHP)"},
		{"sale.chip", "Chip sale (track and EMV tag)", "CHIP", ".NET CreditTrackData_SaleSwipe_Chip; GpApiDebitTest DebitSaleSwipe_Chip"},
		{"sale.contactless", "Contactless chip sale", "CONTACTLESS_CHIP", "Java/.NET CreditTrackData_SaleContactlessChip"},
		{"sale.contactless_swipe", "Contactless swipe sale", "CONTACTLESS_SWIPE", ".NET CreditTrackData_ContactlessSwipe_WithoutTagData"},
		{"sale.manual", "Keyed (manual) sale", "MANUAL", "CreditCardPresentTest CreditCard_SaleManual (Java, .NET, PHP)"},
	}
	items := make([]checkItem, 0, len(sales))
	for _, s := range sales {
		items = append(items, checkItem{ID: s.id, Group: "entry modes", Title: s.title,
			By: "POST /transactions SALE approved, entry mode " + s.mode, Source: s.source,
			matches: func(o *observation) bool { return o.approvedPayment("SALE") && o.entryMode() == s.mode }})
	}
	return items
}
