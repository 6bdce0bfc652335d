// GP's card-not-present test cards, charged with the SDK on the CNP channel: the
// approved ones, the issuer declines with GP's result codes, and the card that fails
// downstream.
"use strict";

const assert = require("node:assert/strict");
const { before, test } = require("node:test");
const { Channel, CreditCardData } = require("globalpayments-api");
const { configure, partnerApp, rejectsWithGpError } = require("./sandbox");
const { assertApproved, assertDeclined } = require("./cards");

before(() => configure(partnerApp, "default", Channel.CardNotPresent));

function card(number, cvn = "123") {
  const c = new CreditCardData();
  c.number = number;
  c.expMonth = "12";
  c.expYear = String(new Date().getUTCFullYear() + 1);
  c.cvn = cvn;
  c.cardHolderName = "James Mason";
  return c;
}

for (const [number, brand, cvn] of [
  ["4263970000005262", "VISA", "123"],
  ["5425230000004415", "MASTERCARD", "123"],
  ["374101000000608", "AMEX", "1234"],
]) {
  test(`approved: ${brand} ${number}`, async () => {
    const sale = await card(number, cvn).charge(19.99).withCurrency("USD").execute();
    assertApproved(sale, "CAPTURED", "19.99");
    assert.equal(sale.cardType, brand);
    assert.match(sale.cardLast4, new RegExp(`^X+${number.slice(-4)}$`));
  });
}

for (const [number, result] of [
  ["4000120000001154", "101"],
  ["4000130000001724", "102"],
  ["4000160000004147", "103"],
  ["4242420000000091", "111"],
]) {
  test(`declined: ${number}, result ${result}`, async () => {
    assertDeclined(await card(number).charge(10).withCurrency("USD").execute(), result);
  });
}

test("processing error: 4009830000001985 fails downstream", async () => {
  await rejectsWithGpError(
    card("4009830000001985").charge(10).withCurrency("USD").execute(),
    "SYSTEM_ERROR_DOWNSTREAM",
    "50013",
    "200,eCom error—Developers are notified",
  );
});

// The Node SDK's own CreditPartialReverseTransaction: GP's card-not-present channel
// supports no partial reversal.
test("a partial reversal is refused", async () => {
  const sale = await card("4263970000005262").charge(20).withCurrency("USD").execute();
  await rejectsWithGpError(
    sale.reverse(10).execute(),
    "INVALID_REQUEST_DATA",
    "40214",
    "partial reversal not supported",
  );
});
