// The back office with the SDK's ReportingService and DisputeSummary: deposits,
// settlement disputes and disputes, on the cases the default fixtures hold under the
// ids GP's own Node tests ask for (ReportingDeposits.test, ReportingDisputes.test,
// ReportingSettlementTransactions.test).
"use strict";

const assert = require("node:assert/strict");
const { before, test } = require("node:test");
const {
  DepositSortProperty,
  DisputeDocument,
  DisputeStatus,
  DisputeSummary,
  ReportingService,
  SearchCriteria,
  DataServiceCriteria,
  SortDirection,
  TransactionSortProperty,
} = require("globalpayments-api");
const { configure, rejectsWithGpError } = require("./sandbox");

before(() => configure());

test("report dispute detail, and a wrong id", async () => {
  const dispute = await ReportingService.disputeDetail("DIS_SAND_abcd1234").execute();
  assert.ok(dispute instanceof DisputeSummary);
  assert.equal(dispute.caseId, "DIS_SAND_abcd1234");
  assert.equal(dispute.caseStage, "RETRIEVAL");
  assert.equal(dispute.caseStatus, DisputeStatus.WithMerchant);
  await rejectsWithGpError(
    ReportingService.disputeDetail("DIS_SAND_aaaa1111").execute(),
    "INVALID_REQUEST_DATA",
    "40073",
    "101,Unable to locate dispute record for that ID. Please recheck the ID provided.",
  );
});

test("report find document associated with dispute, and a random document id", async () => {
  const doc = await ReportingService.documentDisputeDetail("DIS_SAND_abcd1235")
    .where(SearchCriteria.DisputeDocumentId, "DOC_MyEvidence_234234AVCDE-1")
    .execute();
  assert.equal(doc.id, "DOC_MyEvidence_234234AVCDE-1");
  assert.ok(doc.b64Content);
  await rejectsWithGpError(
    ReportingService.documentDisputeDetail("DIS_SAND_abcd1235")
      .where(SearchCriteria.DisputeDocumentId, "DOC_random")
      .execute(),
    "MANDATORY_DATA_MISSING",
    "40071",
    "128,No document found, please recheck the values provided",
  );
});

test("report settlement dispute detail, and a wrong id", async () => {
  const dispute = await ReportingService.settlementDisputeDetail("DIS_810").execute();
  assert.equal(dispute.caseId, "DIS_810");
  assert.equal(dispute.depositReference, "DEP_2342423443");
  await rejectsWithGpError(
    ReportingService.settlementDisputeDetail("DIS_010").execute(),
    "RESOURCE_NOT_FOUND",
    "40118",
    "Disputes DIS_010 not found at this /ucp/settlement/disputes/DIS_010",
  );
});

test("report settlement disputes with status funded", async () => {
  const page = await ReportingService.findSettlementDisputesPaged(1, 10)
    .where(SearchCriteria.DisputeStatus, DisputeStatus.SettleDisputeFunded)
    .execute();
  assert.ok(page.result.length > 0);
  for (const dispute of page.result) {
    assert.equal(dispute.caseStatus, DisputeStatus.SettleDisputeFunded);
  }
});

test("report deposit detail, a wrong id and a page of deposits", async () => {
  const deposit = await ReportingService.depositDetail("DEP_2342423443").execute();
  assert.equal(deposit.depositId, "DEP_2342423443");
  assert.equal(deposit.chargebackTotalCount, 1);
  assert.equal(deposit.chargebackTotalAmount, "10");
  await rejectsWithGpError(
    ReportingService.depositDetail("DEP_0000000001").execute(),
    "RESOURCE_NOT_FOUND",
    "40118",
    "Deposits DEP_0000000001 not found at this /ucp/settlement/deposits/DEP_0000000001",
  );
  const page = await ReportingService.findDepositsPaged(1, 2)
    .orderBy(DepositSortProperty.DepositId, SortDirection.Asc)
    .execute();
  assert.equal(page.result.length, 2);
  assert.ok(page.totalRecordCount >= 3, `totalRecordCount ${page.totalRecordCount}`);
  assert.ok(page.result[0].depositId < page.result[1].depositId, "by deposit id");
});

test("report settlement transactions - filter by Deposit Reference", async () => {
  const page = await ReportingService.findSettlementTransactionsPaged(1, 10)
    .orderBy(TransactionSortProperty.TYPE, SortDirection.Asc)
    .where(DataServiceCriteria.DepositReference, "DEP_2342423429")
    .execute();
  assert.ok(page.result.length > 0);
  for (const t of page.result) {
    assert.equal(t.depositReference, "DEP_2342423429");
    assert.equal(t.depositStatus, "FUNDED");
    assert.ok(t.aquirerReferenceNumber, "an ARN");
  }
});

test("accept and challenge a dispute", async () => {
  const dispute = new DisputeSummary();
  dispute.caseId = "DIS_SAND_abcd1234";
  const accepted = await dispute.accept().execute();
  assert.equal(accepted.responseCode, "SUCCESS");
  assert.equal(accepted.responseMessage, DisputeStatus.Closed);

  const receipt = new DisputeDocument();
  receipt.type = "SALES_RECEIPT";
  receipt.b64_content = "R0lGODlhigPCAXAAACwAAAAAigPCAYf///8AQnv";
  const terms = new DisputeDocument();
  terms.type = "TERMS_AND_CONDITIONS";
  terms.b64_content = "R0lGODlhigPCAXAAACwAAAAAigPCAYf///8AQnv";
  const chargeback = new DisputeSummary();
  chargeback.caseId = "DIS_SAND_abcd1241";
  const challenged = await chargeback.challenge([receipt, terms]).execute();
  assert.equal(challenged.responseCode, "SUCCESS");
  assert.equal(challenged.responseMessage, DisputeStatus.UnderReview);
});
