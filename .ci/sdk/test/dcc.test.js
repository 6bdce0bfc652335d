// Dynamic currency conversion with the SDK's getDccRate, as the SDK's own
// DccCardNotPresent.test.ts does it: a rate looked up for 15.11 EUR, then a sale
// naming it, whose answer carries the payer amount; GP's test card without a rate.
"use strict";

const assert = require("node:assert/strict");
const { before, test } = require("node:test");
const { Channel, CreditCardData } = require("globalpayments-api");
const { configure, partnerApp, rejectsWithGpError } = require("./sandbox");

before(() => configure(partnerApp, "default", Channel.CardNotPresent));

const amount = 15.11;
const currency = "EUR";

function card(number) {
  const c = new CreditCardData();
  c.number = number;
  c.expMonth = "12";
  c.expYear = String(new Date().getUTCFullYear() + 1);
  c.cardHolderName = "James Mason";
  return c;
}

// The SDK test's own expectation: amount × rate, rounded to the cent.
function payerAmount(rate) {
  return String(Math.round(amount * Number(rate) * 100) / 100);
}

test("credit get dcc info, then a sale naming the rate", async () => {
  const dcc = await card("4006097467207025").getDccRate().withAmount(amount).withCurrency(currency).execute();
  assert.equal(dcc.responseCode, "SUCCESS");
  assert.equal(dcc.responseMessage, "AVAILABLE");
  assert.match(dcc.transactionId, /^DCC_/);
  assert.equal(dcc.dccRateData.cardHolderRate, "1.1");
  assert.equal(dcc.dccRateData.cardHolderCurrency, "USD");
  assert.equal(dcc.dccRateData.cardHolderAmount, payerAmount(dcc.dccRateData.cardHolderRate));

  const sale = await card("4006097467207025").charge(amount).withCurrency(currency).withDccRateData(dcc.dccRateData).execute();
  assert.equal(sale.responseCode, "SUCCESS");
  assert.equal(sale.responseMessage, "CAPTURED");
  assert.equal(sale.dccRateData.cardHolderAmount, payerAmount(dcc.dccRateData.cardHolderRate));
  assert.equal(sale.dccRateData.dccId, dcc.transactionId);
});

test("credit get dcc info - rate not available", async () => {
  const dcc = await card("4263970000005262").getDccRate().withAmount(amount).withCurrency(currency).execute();
  assert.equal(dcc.responseCode, "SUCCESS");
  assert.equal(dcc.responseMessage, "NOT_AVAILABLE");
  assert.ok(!dcc.dccRateData.cardHolderAmount);

  const sale = await card("4263970000005262").charge(amount).withCurrency(currency).withDccRateData(dcc.dccRateData).execute();
  assert.equal(sale.responseMessage, "CAPTURED");
  assert.equal(sale.dccRateData.cardHolderAmount, String(amount));
  assert.equal(sale.dccRateData.cardHolderCurrency, currency);
});

test("credit get DCC info - invalid card number and without amount", async () => {
  await rejectsWithGpError(
    card("4000000000005262").getDccRate().withAmount(amount).withCurrency(currency).execute(),
    "INVALID_REQUEST_DATA", "40090",
    "card.number value is invalid. Please check the format and data provided is correct.",
  );
  await rejectsWithGpError(
    card("4006097467207025").getDccRate().withCurrency(currency).execute(),
    "MANDATORY_DATA_MISSING", "40005", "Request expects the following fields : amount",
  );
});
