// GP's card-present test values and the checks a point of sale makes on an answer,
// shared by the card-present test files.
"use strict";

const assert = require("node:assert/strict");
const { CreditCardData, CreditTrackData, DebitTrackData, EntryMethod } = require("globalpayments-api");

// GP's sandbox test values, as GP's own SDK tests send them: its Visa test track
// (approved although its 12/2025 expiry has passed), EMV tag data, a manual
// Mastercard, the PIN block GP's chip declines carry, and GP's expired debit track.
const visaTrack =
  "%B4012002000060016^VI TEST CREDIT^251210118039000000000396?;4012002000060016=25121011803939600000?";
const pinBlock = "32539F50C245A6A93D123412324000AA";
const expiredTrack = ";4024720012345671=18125025432198712345?";
const tagData =
  "9F4005F000F0A0019F02060000000025009F03060000000000009F2608D90A06501B48564E82027C00" +
  "5F3401019F360200029F0702FF009F0802008C9F0902008C9F34030403029F2701809F0D05F0400088" +
  "009F0E0508000000009F0F05F0400098005F280208409F390105FFC605DC4000A800FFC7050010000000";

// track is GP's Visa test track, read as entryMethod says (Swipe, or Proximity).
function track(entryMethod = EntryMethod.Swipe) {
  const card = new CreditTrackData();
  card.setTrackData(visaTrack);
  card.entryMethod = entryMethod;
  return card;
}

// manualCard is GP's Mastercard keyed in at the terminal, valid until next year.
function manualCard() {
  const card = new CreditCardData();
  card.number = "5425230000004415";
  card.expMonth = "12";
  card.expYear = String(new Date().getUTCFullYear() + 1);
  card.cvn = "852";
  card.cardHolderName = "James Mason";
  card.cardPresent = true;
  return card;
}

// assertResult checks what a point of sale reads from any answer: the action's result
// code, the transaction status, a transaction id, and the amount when given.
function assertResult(response, resultCode, status, amount) {
  assert.equal(response.responseCode, resultCode);
  assert.equal(response.responseMessage, status);
  assert.match(response.transactionId, /^TRN_[A-Za-z0-9_]+$/);
  if (amount !== undefined) {
    assert.equal(response.balanceAmount, amount);
  }
}

// assertApproved adds the issuer's approval: result 00 and an authcode.
function assertApproved(response, status, amount) {
  assertResult(response, "SUCCESS", status, amount);
  assert.equal(response.cardIssuerResponse.result, "00");
  assert.ok(response.authorizationCode, "an approval carries an authcode");
}

// assertDeclined: a decline is an answer, not an error; the issuer's code, no authcode.
function assertDeclined(response, result) {
  assertResult(response, "DECLINED", "DECLINED");
  assert.equal(response.cardIssuerResponse.result, result);
  assert.equal(response.authorizationCode, "");
}

// creditTrack is a credit card read from value with GP's test PIN block: GP's credit
// tests send the PIN block its debit tests send, and the chip read declines as credit.
function creditTrack(value, entryMethod = EntryMethod.Swipe) {
  const card = new CreditTrackData();
  card.setTrackData(value);
  card.pinBlock = pinBlock;
  card.entryMethod = entryMethod;
  return card;
}

// debitTrack is a debit card read from value, with GP's test PIN block.
function debitTrack(value, entryMethod = EntryMethod.Swipe) {
  const card = new DebitTrackData();
  card.setTrackData(value);
  card.pinBlock = pinBlock;
  card.entryMethod = entryMethod;
  return card;
}

module.exports = {
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
};
