// Reading transactions back with the SDK's ReportingService: one by id, and pages of
// them with the filters and ordering its builders send (GET /transactions).
"use strict";

const assert = require("node:assert/strict");
const { before, test } = require("node:test");
const {
  Channel,
  ReportingService,
  SearchCriteria,
  SortDirection,
  TransactionSortProperty,
  TransactionStatus,
} = require("globalpayments-api");
const { configure, rejectsWithGpError } = require("./sandbox");
const { assertApproved, manualCard, track } = require("./cards");

before(() => configure());

function lastMonth() {
  const start = new Date();
  start.setDate(start.getDate() - 29);
  start.setHours(0, 0, 0, 0);
  const end = new Date();
  end.setHours(0, 0, 0, 0);
  return [start, end];
}

test("find a transaction by its id", async () => {
  const sale = await track().charge(12.34).withCurrency("USD").execute();
  const page = await ReportingService.findTransactionsPaged(1, 10, sale.transactionId).execute();
  assert.equal(page.result.length, 1);
  const found = page.result[0];
  assert.equal(found.transactionId, sale.transactionId);
  assert.equal(found.transactionStatus, "CAPTURED");
  assert.equal(found.amount, "12.34");
  assert.equal(found.entryMode, "SWIPE");
});

test("the latest card-present authorization of the last 29 days", async () => {
  // GP's own reauthorization test finds its transaction this way.
  const auth = await manualCard().authorize(7.5).withCurrency("USD").execute();
  assertApproved(auth, "PREAUTHORIZED", "7.5");
  const [start, end] = lastMonth();
  const page = await ReportingService.findTransactionsPaged(1, 1)
    .orderBy(TransactionSortProperty.TIME_CREATED, SortDirection.Desc)
    .where(SearchCriteria.TransactionStatus, TransactionStatus.PREAUTHORIZED)
    .andWith(SearchCriteria.Channel, Channel.CardPresent)
    .andWith(SearchCriteria.StartDate, start)
    .andWith(SearchCriteria.EndDate, end)
    .execute();
  assert.equal(page.result.length, 1);
  assert.equal(page.result[0].transactionId, auth.transactionId);
  assert.equal(page.result[0].transactionStatus, "PREAUTHORIZED");
  assert.equal(page.result[0].channel, "CP");
});

test("pages: the page size holds, every result matches the filter", async () => {
  for (let i = 0; i < 3; i++) {
    await track().charge(1 + i).withCurrency("USD").execute();
  }
  const page = await ReportingService.findTransactionsPaged(1, 2)
    .orderBy(TransactionSortProperty.TIME_CREATED, SortDirection.Desc)
    .where(SearchCriteria.TransactionStatus, TransactionStatus.CAPTURED)
    .execute();
  assert.equal(page.result.length, 2);
  assert.equal(page.pageSize, 2);
  assert.equal(page.page, 1);
  assert.ok(page.totalRecordCount >= 3, `totalRecordCount ${page.totalRecordCount}`);
  for (const t of page.result) {
    assert.equal(t.transactionStatus, "CAPTURED");
  }
  const [newer, older] = page.result;
  assert.ok(newer.transactionDate >= older.transactionDate, "newest first");
});

test("by cardholder name", async () => {
  const sale = await manualCard().charge(3.21).withCurrency("USD").execute();
  const page = await ReportingService.findTransactionsPaged(1, 10)
    .where(SearchCriteria.Name, "James Mason")
    .andWith(SearchCriteria.Amount, 3.21)
    .execute();
  assert.ok(page.result.some((t) => t.transactionId === sale.transactionId), "the named sale is listed");
  for (const t of page.result) {
    assert.equal(t.cardHolderName, "James Mason");
  }
});

test("a brand GP does not know, an account the app does not hold: refused", async () => {
  await rejectsWithGpError(
    ReportingService.findTransactionsPaged(1, 10).where(SearchCriteria.CardBrand, "MIT").execute(),
    "INVALID_REQUEST_DATA",
    "40097",
    "Invalid Value provided in the input field - brand",
  );
  await rejectsWithGpError(
    ReportingService.findTransactionsPaged(1, 10).where(SearchCriteria.AccountName, "VWTest").execute(),
    "ACTION_NOT_AUTHORIZED",
    "40003",
    "Token does not match account_id or account_name in the request",
  );
});
