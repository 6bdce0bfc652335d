// Card-present payments with the SDK: charge with each entry mode, authorize, edit,
// a standalone refund, verify, and the declines of the test cards, each checked as
// GP's sandbox answers them.
"use strict";

const assert = require("node:assert/strict");
const { before, test } = require("node:test");
const { EntryMethod, ReportingService } = require("globalpayments-api");
const { configure, rejectsWithGpError, restrictedApp } = require("./sandbox");
const {
  assertApproved,
  assertDeclined,
  assertResult,
  creditTrack,
  debitTrack,
  expiredTrack,
  manualCard,
  tagData,
  track,
  visaTrack,
} = require("./cards");

before(() => {
  configure();
  configure(restrictedApp, "restricted");
});

// readBack is what the reporting API says of a transaction: GET /transactions/{id}.
function readBack(id) {
  return ReportingService.transactionDetail(id).execute();
}

test("swipe: a captured sale in the open batch", async () => {
  const sale = await track().charge(15.11).withCurrency("USD").execute();
  assertApproved(sale, "CAPTURED", "15.11");
  assert.equal(sale.cardType, "VISA");
  assert.equal(sale.cardLast4, "XXXXXXXXXXXX0016");

  const summary = await readBack(sale.transactionId);
  assert.equal(summary.transactionId, sale.transactionId);
  assert.equal(summary.transactionStatus, "CAPTURED");
  assert.equal(summary.transactionType, "SALE");
  assert.equal(summary.channel, "CP");
  assert.equal(summary.amount, "15.11");
  assert.equal(summary.currency, "USD");
  assert.equal(summary.entryMode, "SWIPE");
  assert.equal(summary.cardType, "VISA");
  assert.equal(summary.authCode, sale.authorizationCode);
  assert.match(summary.batchSequenceNumber, /^BAT_\d+$/);
});

test("chip: track and EMV tag data", async () => {
  const sale = await track().charge(15.11).withCurrency("USD").withTagData(tagData).execute();
  assertApproved(sale, "CAPTURED", "15.11");
  assert.equal((await readBack(sale.transactionId)).entryMode, "CHIP");
});

test("contactless chip", async () => {
  const sale = await track(EntryMethod.Proximity).charge(10).withCurrency("USD").withTagData(tagData).execute();
  assertApproved(sale, "CAPTURED", "10");
  assert.equal((await readBack(sale.transactionId)).entryMode, "CONTACTLESS_CHIP");
});

test("manual entry: number, expiry and CVV keyed in", async () => {
  const sale = await manualCard().charge(15.11).withCurrency("USD").execute();
  assertApproved(sale, "CAPTURED", "15.11");
  assert.equal(sale.cardType, "MASTERCARD");
  assert.equal(sale.cardLast4, "XXXXXXXXXXXX4415");
  assert.equal(sale.cvnResponseMessage, "MATCHED");
  assert.equal((await readBack(sale.transactionId)).entryMode, "MANUAL");
});

test("debit swipe with a PIN block is approved", async () => {
  const sale = await debitTrack(visaTrack).charge(18).withCurrency("USD").execute();
  assertApproved(sale, "CAPTURED", "18");
});

test("authorize: PREAUTHORIZED, in no batch yet", async () => {
  const auth = await manualCard().authorize(15.11).withCurrency("USD").execute();
  assertApproved(auth, "PREAUTHORIZED", "15.11");
  assert.equal(auth.authorizedAmount, "15.11");
  assert.equal((await readBack(auth.transactionId)).batchSequenceNumber, "");
});

test("edit() after a charge: the tip of a contactless sale", async () => {
  const sale = await track(EntryMethod.Proximity).charge(10).withCurrency("USD").withTagData(tagData).execute();
  assertApproved(sale, "CAPTURED", "10");
  const edited = await sale.edit().withAmount(10.01).withTagData(tagData).withGratuity(5.01).execute();
  assertResult(edited, "SUCCESS", "CAPTURED", "10.01");
  assert.equal(edited.transactionId, sale.transactionId);
});

test("standalone refund to a swiped card", async () => {
  const refund = await track().refund(5).withCurrency("USD").execute();
  assertApproved(refund, "CAPTURED", "5");
  assert.equal((await readBack(refund.transactionId)).transactionType, "REFUND");
});

test("verify a swiped card", async () => {
  const check = await track().verify().withCurrency("USD").execute();
  assertResult(check, "SUCCESS", "VERIFIED");
});

test("verify GP's CVV-mismatch card: NOT_VERIFIED", async () => {
  const card = manualCard();
  card.number = "30450000000985";
  const check = await card.verify().withCurrency("USD").execute();
  assertResult(check, "NOT_VERIFIED", "NOT_VERIFIED");
});

// GP's debit tests send the tracks, PIN block and EMV data of its credit tests; the
// SDK says which by payment_method.card.funding, and only the credit sale declines.
test("declined: a credit chip read with GP's declining PIN block, result 55", async () => {
  const sale = await creditTrack(visaTrack).charge(10).withCurrency("USD").withTagData(tagData).execute();
  assertDeclined(sale, "55");
});

test("the same chip read as debit is approved", async () => {
  const sale = await debitTrack(visaTrack).charge(10).withCurrency("USD").withTagData(tagData).execute();
  assertApproved(sale, "CAPTURED", "10");
});

test("declined: GP's expired track as credit, result 54", async () => {
  const sale = await creditTrack(expiredTrack, EntryMethod.Proximity)
    .charge(10)
    .withCurrency("USD")
    .withTagData(tagData)
    .execute();
  assertDeclined(sale, "54");
});

test("GP's expired track as debit is approved", async () => {
  const sale = await debitTrack(expiredTrack, EntryMethod.Proximity)
    .charge(10)
    .withCurrency("USD")
    .withTagData(tagData)
    .execute();
  assertApproved(sale, "CAPTURED", "10");
});

test("declined: a zero-amount chip sale", async () => {
  const sale = await track().charge(0).withCurrency("USD").withTagData(tagData).execute();
  assertResult(sale, "DECLINED", "DECLINED");
  assert.notEqual(sale.cardIssuerResponse.result, "00");
});

test("a chip refund with a PIN block is refused", async () => {
  await rejectsWithGpError(
    debitTrack(visaTrack).refund(10).withCurrency("USD").withTagData(tagData).execute(),
    "INVALID_REQUEST_DATA",
    "40029",
    "34,Transaction rejected because the provided data was invalid. Online PINBlock Authentication not supported on offline transaction.",
  );
});

test("reading an unknown transaction", async () => {
  await rejectsWithGpError(
    readBack("TRN_doesnotexist"),
    "RESOURCE_NOT_FOUND",
    "40118",
    "Transactions TRN_doesnotexist not found at this /ucp/transactions/TRN_doesnotexist",
  );
});

test("an app allowed only to read: no sale, but the partner's sale can be read", async () => {
  await rejectsWithGpError(
    track().charge(10).withCurrency("USD").execute("restricted"),
    "ACTION_NOT_AUTHORIZED",
    "40212",
    "Permission not enabled to execute action",
  );
  const sale = await track().charge(10).withCurrency("USD").execute();
  const summary = await ReportingService.transactionDetail(sale.transactionId).execute("restricted");
  assert.equal(summary.transactionId, sale.transactionId);
  assert.equal(summary.transactionStatus, "CAPTURED");
});
