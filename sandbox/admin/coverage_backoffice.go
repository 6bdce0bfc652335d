package admin

import "github.com/gp-sandbox/gp-sandbox/sandbox"

// backOfficeItems are the checklist's items of the back office: actions, DCC and the
// stored-card lists, as the SDKs' reporting and DCC tests exercise them.
func backOfficeItems() []checkItem {
	return []checkItem{
		{ID: "report.actions", Group: "back office", Title: "Action search",
			By: "GET /actions answered 200", Source: "Java/.NET GpApiReportingActionsTest ReportFindActionsPaged*; PHP ReportingActionsTest testFindActions_*",
			matches: func(o *observation) bool { return o.succeeded(sandbox.OpActionList) }},
		{ID: "report.action_detail", Group: "back office", Title: "Action detail",
			By: "GET /actions/{id} answered 200", Source: "Java/.NET GpApiReportingActionsTest ReportActionDetail; PHP testReportActionDetail",
			matches: func(o *observation) bool { return o.succeeded(sandbox.OpActionDetail) }},
		{ID: "dcc.rate", Group: "back office", Title: "DCC rate looked up",
			By: "POST /currency-conversions answered 200", Source: "Java/.NET GpApiDccCardNotPresentTest; PHP DccCardNotPresentTest, DccCardPresentTest; Node DccCardNotPresent.test",
			matches: func(o *observation) bool { return o.succeeded(sandbox.OpCurrencyConversion) }},
		{ID: "report.stored_cards", Group: "back office", Title: "Stored card search",
			By: "GET /payment-methods or POST /payment-methods/search answered 200", Source: "Java/.NET GpApiReportingStoredPaymentMethodsTest; PHP ReportingStoredPaymentMethodsTest",
			matches: func(o *observation) bool {
				return o.succeeded(sandbox.OpPaymentMethodList, sandbox.OpPaymentMethodSearch)
			}},
	}
}
