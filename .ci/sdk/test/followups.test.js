// What follows a card-present sale or authorization, with the SDK's Transaction
// methods: capture, refund, reverse, reauthorize and incremental authorization, each
// checked as GP's sandbox answers them, refusals included.
"use strict";

const assert = require("node:assert/strict");
const { before, test } = require("node:test");
const {
  GenerationUtils,
  LodgingData,
  LodgingItemType,
  LodgingItems,
  PaymentMethodProgram,
  ReportingService,
  Transaction,
} = require("globalpayments-api");
const { configure, rejectsWithGpError } = require("./sandbox");
const { assertApproved, assertResult, debitTrack, manualCard, track, visaTrack } = require("./cards");

before(() => configure());

function sale(amount = 15.11) {
  return manualCard().charge(amount).withCurrency("USD").execute();
}

function authorization(amount = 15.11) {
  return manualCard().authorize(amount).withCurrency("USD").execute();
}

// notFound is GP's answer to any follow-up on an id it does not know.
function notFound(id) {
  return ["RESOURCE_NOT_FOUND", "40008", `Transaction ${id} not found at this location.`];
}

test("authorize, then capture with a tip: CAPTURED, in the open batch", async () => {
  const auth = await authorization(10);
  assertApproved(auth, "PREAUTHORIZED", "10");
  const capture = await auth.capture(10).withGratuity(2).execute();
  assertResult(capture, "SUCCESS", "CAPTURED");
  assert.equal(capture.transactionId, auth.transactionId);
  const summary = await ReportingService.transactionDetail(auth.transactionId).execute();
  assert.equal(summary.transactionStatus, "CAPTURED");
  assert.match(summary.batchSequenceNumber, /^BAT_\d+$/);
});

test("debit: authorize with a PIN, then capture", async () => {
  const auth = await debitTrack(visaTrack).authorize(10).withCurrency("USD").execute();
  assertApproved(auth, "PREAUTHORIZED", "10");
  assertResult(await auth.capture(10).withCurrency("USD").execute(), "SUCCESS", "CAPTURED");
});

test("capture more than 115% of the authorization is refused", async () => {
  const auth = await authorization(10);
  await rejectsWithGpError(
    auth.capture(11.51).execute(),
    "INVALID_REQUEST_DATA",
    "50020",
    "Can't settle for more than 115% of that which you authorised ",
  );
});

test("refund part of a sale: a new REFUND transaction", async () => {
  const original = await sale(20);
  const refund = await original.refund(5).withCurrency("USD").execute();
  assertResult(refund, "SUCCESS", "CAPTURED", "5");
  assert.notEqual(refund.transactionId, original.transactionId);
  const summary = await ReportingService.transactionDetail(refund.transactionId).execute();
  assert.equal(summary.transactionType, "REFUND");
  assert.equal(summary.originalTransactionId, original.transactionId);
});

test("refunds beyond 115% of the sale are refused", async () => {
  const original = await sale(10);
  await rejectsWithGpError(
    original.refund(11.51).withCurrency("USD").execute(),
    "INVALID_REQUEST_DATA",
    "40087",
    "You may only refund up to 115% of the original amount ",
  );
});

// A partial reversal of a card-present sale keeps it CAPTURED for the rest (the .NET
// SDK's CreditCard_PartialReversal); card not present it is refused (see
// cardnotpresent.test.js).
test("reverse a sale: part of it keeps it CAPTURED for the rest, then REVERSED", async () => {
  const original = await track().charge(18).withCurrency("USD").execute();
  assertResult(await original.reverse(5).execute(), "SUCCESS", "CAPTURED", "13");
  assertResult(await original.reverse().execute(), "SUCCESS", "REVERSED");
});

test("reauthorize a reversed sale: CAPTURED again", async () => {
  const original = await sale();
  const reversal = await original.reverse().execute();
  assertResult(reversal, "SUCCESS", "REVERSED");
  assertResult(await reversal.reauthorized().execute(), "SUCCESS", "CAPTURED");
});

test("reauthorize a reversed authorization: PREAUTHORIZED again", async () => {
  const auth = await authorization();
  const reversal = await auth.reverse().execute();
  assertResult(reversal, "SUCCESS", "REVERSED");
  assertResult(await reversal.reauthorized().execute(), "SUCCESS", "PREAUTHORIZED");
});

test("reauthorize a reversed sale for another amount: a new transaction", async () => {
  const original = await sale();
  const reversal = await original.reverse().execute();
  const reauth = await reversal.reauthorized(15).execute();
  assertResult(reauth, "SUCCESS", "CAPTURED", "15");
  assert.notEqual(reauth.transactionId, reversal.transactionId);
});

test("reauthorize with an idempotency key: a second use is refused", async () => {
  const key = GenerationUtils.getGuuid();
  const auth = await authorization();
  const reversal = await auth.reverse().execute();
  const reauth = await reversal.reauthorized().withIdempotencyKey(key).execute();
  assertResult(reauth, "SUCCESS", "PREAUTHORIZED");
  await assert.rejects(auth.reauthorized().withIdempotencyKey(key).execute(), (err) => {
    assert.equal(err.responseCode, "40039");
    assert.match(err.message, /^Status Code: DUPLICATE_ACTION - Idempotency Key seen before: id=TRN_/);
    return true;
  });
});

test("reauthorize a refund, or a sale still captured, is refused", async () => {
  const refund = await manualCard().refund(15.11).withCurrency("USD").execute();
  assertResult(refund, "SUCCESS", "CAPTURED");
  await assert.rejects(refund.reauthorized().execute(), (err) => {
    assert.equal(err.responseCode, "40213");
    assert.match(err.message, /^Status Code: INVALID_REQUEST_DATA - /);
    return true;
  });
  const captured = await sale();
  await assert.rejects(captured.reauthorized().execute(), (err) => {
    assert.equal(err.responseCode, "40044");
    assert.match(
      err.message,
      /^Status Code: INVALID_REQUEST_DATA - 36, Invalid original transaction for reauthorization-/,
    );
    return true;
  });
});

test("incremental authorization raises the authorized amount", async () => {
  const auth = await authorization(50);
  const raised = await auth.additionalAuth(10).execute();
  assertResult(raised, "SUCCESS", "PREAUTHORIZED");
  assert.equal(Number(raised.authorizedAmount), 60);
  const unchanged = await auth.additionalAuth(0).execute();
  assert.equal(Number(unchanged.authorizedAmount), 60);
});

test("incremental authorization with lodging data", async () => {
  const auth = await authorization(50);
  const lodging = new LodgingData();
  lodging.bookingReference = "s9RpaDwXq1sPRkbP";
  lodging.durationDays = 10;
  lodging.checkedInDate = new Date().toISOString();
  lodging.checkedOutDate = new Date(Date.now() + 7 * 24 * 3600 * 1000).toISOString();
  lodging.dailyRateAmount = "13.49";
  const item = new LodgingItems();
  item.types = [LodgingItemType.NO_SHOW];
  item.reference = "item_1";
  item.totalAmount = "13.49";
  item.paymentMethodProgramCodes = [PaymentMethodProgram.ASSURED_RESERVATION];
  lodging.items.push(item);
  const raised = await auth.additionalAuth(10).withCurrency("USD").withLodgingData(lodging).execute();
  assertResult(raised, "SUCCESS", "PREAUTHORIZED");
  assert.equal(Number(raised.authorizedAmount), 60);
});

test("incremental authorization of a captured sale is refused", async () => {
  const captured = await sale(50);
  await rejectsWithGpError(
    captured.additionalAuth(0).execute(),
    "INVALID_ACTION",
    "40290",
    "Cannot PROCESS Incremental Authorization over a transaction that does not have a status of PREAUTHORIZED.",
  );
  await rejectsWithGpError(
    captured.additionalAuth().execute(),
    "MANDATORY_DATA_MISSING",
    "40005",
    "Request expects the following fields [amount]",
  );
});

test("every follow-up on an unknown transaction: 404", async () => {
  const id = "TRN_doesnotexist";
  const unknown = Transaction.fromId(id);
  for (const builder of [
    unknown.capture(1),
    unknown.refund(1).withCurrency("USD"),
    unknown.reverse(),
    unknown.reauthorized(),
    unknown.additionalAuth(),
  ]) {
    await rejectsWithGpError(builder.execute(), ...notFound(id));
  }
});
