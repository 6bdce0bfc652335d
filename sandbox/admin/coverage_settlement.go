package admin

import "github.com/gp-sandbox/gp-sandbox/sandbox"

// settlementChecks are the back office's items: reconciling what was settled and
// deposited, and answering a dispute (the SDKs' reporting and dispute tests).
func settlementChecks() []checkItem {
	item := func(id, title, by, source string, op sandbox.Operation) checkItem {
		return checkItem{ID: id, Group: "settlement and disputes", Title: title, By: by, Source: source,
			matches: func(o *observation) bool { return o.succeeded(op) }}
	}
	return []checkItem{
		item("settlement.transactions", "Settled transactions", "GET /settlement/transactions answered 200",
			"Java/PHP ReportingSettlementTransactionsTest; Node ReportingSettlementTransactions.test", sandbox.OpSettlementTransactionList),
		item("deposit.list", "Deposit search", "GET /settlement/deposits answered 200",
			"GpApiReportingDepositsTest ReportFindDepositsPaged*; Node ReportingDeposits.test", sandbox.OpDepositList),
		item("deposit.detail", "Deposit detail", "GET /settlement/deposits/{id} answered 200",
			"GpApiReportingDepositsTest ReportDepositDetail; Node ReportingDeposits.test", sandbox.OpDepositDetail),
		item("dispute.list", "Dispute search", "GET /disputes answered 200",
			"GpApiReportingDisputesTest ReportFindDisputesPaged*; Node ReportingDisputes.test", sandbox.OpDisputeList),
		item("dispute.detail", "Dispute detail", "GET /disputes/{id} answered 200",
			"GpApiReportingDisputesTest ReportDisputeDetail; Node ReportingDisputes.test", sandbox.OpDisputeDetail),
		item("dispute.accept", "Dispute accepted", "POST /disputes/{id}/acceptance answered 200",
			"Java/.NET GpApiDisputeTest DisputeAccept", sandbox.OpDisputeAcceptance),
		item("dispute.challenge", "Dispute challenged with a document", "POST /disputes/{id}/challenge answered 200",
			"Java/.NET GpApiDisputeTest DisputeChallenge*", sandbox.OpDisputeChallenge),
		item("dispute.document", "Dispute document read", "GET /disputes/{id}/documents/{doc_id} answered 200",
			"GpApiReportingDisputesTest FindDocumentAssociatedWithDispute", sandbox.OpDisputeDocument),
		{ID: "settlement.disputes", Group: "settlement and disputes", Title: "Settlement disputes",
			By:     "GET /settlement/disputes or /settlement/disputes/{id} answered 200",
			Source: "GpApiReportingDisputesTest ReportSettlementDisputeDetail, ReportFindSettlementDisputesPaged*",
			matches: func(o *observation) bool {
				return o.succeeded(sandbox.OpSettlementDisputeList, sandbox.OpSettlementDisputeDetail)
			}},
	}
}
