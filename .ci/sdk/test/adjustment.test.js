// Transaction.edit(): the tip adjustment of a card-present sale, on the sales the
// embedded default fixtures seed (fixtures/transactions.yaml). The tests of this file
// run in order and share the sandbox's state.
"use strict";

const assert = require("node:assert/strict");
const { before, test } = require("node:test");
const { GenerationUtils, Transaction } = require("globalpayments-api");
const { configure, rejectsWithGpError, restrictedApp } = require("./sandbox");
const { tagData } = require("./cards");

const sale1 = "TRN_CapturedSale000000000000000001";
const sale2 = "TRN_CapturedSale000000000000000002";

before(() => {
  configure();
  configure(restrictedApp, "restricted");
});

// assertAdjusted checks what a point of sale reads back from an adjustment: the same
// transaction, still in its status, approved.
function assertAdjusted(response, id, status, amount) {
  assert.equal(response.transactionId, id);
  assert.equal(response.responseCode, "SUCCESS");
  assert.equal(response.responseMessage, status);
  assert.equal(response.balanceAmount, amount);
  assert.equal(response.cardIssuerResponse.result, "00");
}

test("gratuity on a captured sale keeps its amount and status", async () => {
  const response = await Transaction.fromId(sale1).edit().withGratuity(5.01).execute();
  assertAdjusted(response, sale1, "CAPTURED", "10");
  assert.equal(response.authorizationCode, "A36C21");
  assert.equal(response.cardBrandTransactionId, "383224601004913");
  assert.equal(response.referenceNumber, "sandbox-sale-0001");
  assert.equal(response.timestamp, "2021-03-24T02:02:27.158Z");
});

test("amount replaces the sale amount", async () => {
  const response = await Transaction.fromId(sale1).edit().withAmount(12.5).execute();
  assertAdjusted(response, sale1, "CAPTURED", "12.5");
});

test("EMV tag alone leaves the adjusted amount", async () => {
  const response = await Transaction.fromId(sale1).edit().withTagData(tagData).execute();
  assertAdjusted(response, sale1, "CAPTURED", "12.5");
});

test("amount, tag and gratuity together; an amount above the original is accepted", async () => {
  const response = await Transaction.fromId(sale2)
    .edit()
    .withAmount(10.01)
    .withTagData(tagData)
    .withGratuity(5.01)
    .execute();
  assertAdjusted(response, sale2, "CAPTURED", "10.01");
  assert.equal(response.authorizationCode, "B48D17");
});

test("amount zero is accepted", async () => {
  const response = await Transaction.fromId(sale2).edit().withAmount(0).execute();
  assertAdjusted(response, sale2, "CAPTURED", "0");
});

test("an authorized, not yet captured sale stays PREAUTHORIZED", async () => {
  const id = "TRN_PreauthorizedSale00000000000001";
  const response = await Transaction.fromId(id).edit().withGratuity(2).execute();
  assertAdjusted(response, id, "PREAUTHORIZED", "25");
  assert.equal(response.authorizedAmount, "25");
});

test("edit() with nothing to change", async () => {
  await rejectsWithGpError(
    Transaction.fromId(sale1).edit().execute(),
    "MANDATORY_DATA_MISSING",
    "40005",
    "Request expects the following fields [amount or tag or gratuityAmount]",
  );
});

for (const [what, id] of [
  ["an unknown transaction", "TRN_doesnotexist"],
  ["another merchant's transaction", "TRN_OtherMerchantSale00000000000001"],
]) {
  test(`${what}: 404, the same as for an unknown id`, async () => {
    await rejectsWithGpError(
      Transaction.fromId(id).edit().withGratuity(1).execute(),
      "RESOURCE_NOT_FOUND",
      "40008",
      `Transaction ${id} not found at this location.`,
    );
  });
}

test("edit() with nothing on an unknown transaction: 404 before the body is checked", async () => {
  await rejectsWithGpError(
    Transaction.fromId("TRN_doesnotexist").edit().execute(),
    "RESOURCE_NOT_FOUND",
    "40008",
    "Transaction TRN_doesnotexist not found at this location.",
  );
});

test("a sale in a closed batch can no longer be adjusted", async () => {
  await rejectsWithGpError(
    Transaction.fromId("TRN_BatchedSale0000000000000000001").edit().withGratuity(1).execute(),
    "INVALID_ACTION",
    "40290",
    "Cannot PROCESS Adjustment over a transaction that is in a closed batch.",
  );
});

test("a declined sale cannot be adjusted", async () => {
  await rejectsWithGpError(
    Transaction.fromId("TRN_DeclinedSale000000000000000001").edit().withGratuity(1).execute(),
    "INVALID_ACTION",
    "40290",
    "Cannot PROCESS Adjustment over a transaction that does not have a status of CAPTURED or PREAUTHORIZED.",
  );
});

test("an app whose live configuration does not allow adjustment", async () => {
  await rejectsWithGpError(
    Transaction.fromId(sale1).edit().withGratuity(1).execute("restricted"),
    "ACTION_NOT_AUTHORIZED",
    "40212",
    "Permission not enabled to execute action",
  );
});

test("an idempotency key executes once", async () => {
  const key = GenerationUtils.getGuuid();
  const first = await Transaction.fromId(sale2).edit().withGratuity(3).withIdempotencyKey(key).execute();
  assertAdjusted(first, sale2, "CAPTURED", "0");
  await rejectsWithGpError(
    Transaction.fromId(sale2).edit().withGratuity(3).withIdempotencyKey(key).execute(),
    "DUPLICATE_ACTION",
    "40039",
    `Idempotency Key seen before: id=${sale2}`,
  );
});
