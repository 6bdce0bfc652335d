// Meet in the Cloud: the SDK's DeviceService drives the sandbox's simulated UPA terminal
// through POST /devices, configured as a partner's point of sale does. The Node SDK
// reads only the device request's id, status and action.result_code; what the terminal
// did is read back from GP (GET /transactions/{id}) and from the sandbox's admin API.
"use strict";

const assert = require("node:assert/strict");
const { randomUUID } = require("node:crypto");
const { before, test } = require("node:test");
const {
  AccessTokenInfo,
  Channel,
  ConnectionConfig,
  DeviceType,
  GpApiConfig,
  ReportingService,
} = require("globalpayments-api");
// 3.10.10 does not export these from the package root.
const { DeviceService } = require("globalpayments-api/lib/src/Services/DeviceService");
const { ConnectionModes } = require("globalpayments-api/lib/src/Terminals/Enums");
const { partnerApp } = require("./sandbox");

let device;
let gateway;

before(() => {
  gateway = new GpApiConfig();
  gateway.appId = partnerApp.appId;
  gateway.appKey = partnerApp.appKey;
  gateway.channel = Channel.CardPresent;
  gateway.country = "US";
  gateway.deviceCurrency = "USD";
  gateway.serviceUrl = process.env.GPSANDBOX_URL;
  gateway.accessTokenInfo = new AccessTokenInfo();
  gateway.accessTokenInfo.transactionProcessingAccountName = "transaction_processing";

  const config = new ConnectionConfig();
  config.deviceType = DeviceType.UPA_DEVICE;
  config.connectionMode = ConnectionModes.MEET_IN_THE_CLOUD;
  config.gatewayConfig = gateway;
  config.requestIdProvider = { getRequestId: () => 10000 + Math.floor(Math.random() * 90000) };
  // The same name as the other tests' configuration: the SDK's reporting calls then go
  // through the device's gateway configuration and its token.
  device = DeviceService.create(config);
});

const origin = () => new URL(process.env.GPSANDBOX_URL).origin;

// admin reads the sandbox's admin API (open on the loopback address sdk-check uses).
async function admin(path, init) {
  const res = await fetch(origin() + "/_sandbox" + path, init);
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  return body;
}

// deviceRequest is the device request as GP keeps it, with the terminal's reply.
const deviceRequest = (id) => admin(`/device-requests/${id}`);

// assertComplete checks what the SDK reads from the answer to a terminal command.
function assertComplete(response) {
  assert.match(response.transactionId, /^DRQ_\w{30}$/);
  assert.equal(response.deviceResponseText, "COMPLETE");
  assert.equal(response.responseText, "SUCCESS");
  assert.equal(response.deviceResponseCode, "SUCCESS");
}

// transactionOf is the transaction a terminal command made or changed, read back with
// the SDK's ReportingService.
async function transactionOf(response) {
  const d = await deviceRequest(response.transactionId);
  assert.equal(d.response.cmdResult.result, "Success", JSON.stringify(d.response));
  const id = d.response.data.host.referenceNumber;
  assert.match(id, /^TRN_/);
  return [d, await ReportingService.transactionDetail(id).execute()];
}

const sales = [];

test("a credit sale with a tip: CAPTURED for base plus tip", async () => {
  const sale = await device.sale(10).withGratuity(2).withEcrId(13).execute();
  assertComplete(sale);
  const [d, summary] = await transactionOf(sale);
  assert.equal(d.response.response, "Sale");
  assert.equal(d.response.data.host.tipAmount, "2.00");
  assert.equal(d.response.data.host.totalAmount, "12.00");
  assert.equal(d.response.data.payment.cardAcquisition, "Insert");
  assert.equal(summary.transactionStatus, "CAPTURED");
  assert.equal(summary.transactionType, "SALE");
  assert.equal(summary.channel, "CP");
  assert.equal(summary.amount, "10");
  assert.equal(summary.entryMode, "CHIP");
  sales.push(summary);
});

test("an authorization, then its capture by the device request id", async () => {
  const auth = await device.authorize(20).withEcrId(13).execute();
  assertComplete(auth);
  const [, before] = await transactionOf(auth);
  assert.equal(before.transactionStatus, "PREAUTHORIZED");

  const capture = await device.capture(20).withTransactionId(auth.transactionId).execute();
  assertComplete(capture);
  const [d, after] = await transactionOf(capture);
  assert.equal(d.response.response, "AuthCompletion");
  assert.equal(after.transactionId, before.transactionId);
  assert.equal(after.transactionStatus, "CAPTURED");
  sales.push(after);
});

test("a refund linked to a sale (refundById): a REFUND of the original", async () => {
  const sale = await device.sale(15).execute();
  const [, original] = await transactionOf(sale);
  const refund = await device.refundById(5).withTransactionId(sale.transactionId).execute();
  assertComplete(refund);
  const [, summary] = await transactionOf(refund);
  assert.equal(summary.transactionType, "REFUND");
  assert.equal(summary.transactionStatus, "CAPTURED");
  assert.equal(summary.amount, "5");
  assert.equal(summary.originalTransactionId, original.transactionId);
  sales.push(original, summary);
});

test("a void of a sale: REVERSED", async () => {
  const sale = await device.sale(7.5).execute();
  const voided = await device.void().withTransactionId(sale.transactionId).execute();
  assertComplete(voided);
  const [d, summary] = await transactionOf(voided);
  assert.equal(d.response.response, "Void");
  assert.equal(summary.transactionStatus, "REVERSED");
});

test("a verify: VERIFIED, no amount", async () => {
  const verify = await device.verify().execute();
  assertComplete(verify);
  const [, summary] = await transactionOf(verify);
  assert.equal(summary.transactionStatus, "VERIFIED");
});

test("a line item shows on the terminal", async () => {
  const item = await device.lineItem("Coffee", "3.50");
  assertComplete(item);
  const d = await deviceRequest(item.transactionId);
  assert.equal(d.response.response, "LineItemDisplay");
  assert.equal(d.response.cmdResult.result, "Success");
});

// The answer the SDK's own tests expect: GP answers before the customer taps, and the
// terminal finishes the command later (here a card presented through the admin API).
test("a terminal in INITIATED mode: the sale completes when a card is presented", async () => {
  // The terminal bound to the account the device requests go through.
  const ping = await deviceRequest((await device.lineItem("Welcome")).transactionId);
  const terminal = (await admin("/devices")).devices.find(
    (d) => d.merchant_id === ping.merchant_id && d.account_id === ping.account_id,
  );
  const setMode = (mode) =>
    admin(`/devices/${terminal.id}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ mode }),
    });
  await setMode("INITIATED");
  try {
    const sale = await device.sale(4).execute();
    assert.equal(sale.deviceResponseText, "INITIATED");
    assert.equal(sale.responseText, "SUCCESS");
    assert.equal((await deviceRequest(sale.transactionId)).status, "INITIATED");
    await admin(`/device-requests/${sale.transactionId}/present`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ card: "visa_contactless" }),
    });
    const [d, summary] = await transactionOf(sale);
    assert.equal(d.status, "COMPLETE");
    assert.equal(summary.transactionStatus, "CAPTURED");
    assert.equal(summary.entryMode, "CONTACTLESS_CHIP");
    sales.push(summary);
  } finally {
    await setMode("COMPLETE");
  }
});

// The official Node SDK's own UpaMic.test.ts (test/Integration/Gateways/Terminals/UPA),
// "credit sale" through "credit void": twelve commands back to back to a terminal
// answering INITIATED, each answered INITIATED before the terminal runs it. The
// terminal queues them; a card presented at the head completes them in order, those
// that need no customer (the line item, the completions, the linked refund, the void)
// as soon as they reach the head.
test("UpaMic.test.ts's commands back to back to an INITIATED terminal: queued, then completed in order", async () => {
  const ping = await deviceRequest((await device.lineItem("Welcome")).transactionId);
  const terminal = (await admin("/devices")).devices.find(
    (d) => d.merchant_id === ping.merchant_id && d.account_id === ping.account_id,
  );
  const post = (path, body) =>
    admin(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  await post(`/devices/${terminal.id}`, { mode: "INITIATED" });
  try {
    const sent = [];
    const initiated = async (name, promise) => {
      const response = await promise;
      assert.equal(response.deviceResponseText, "INITIATED", name);
      assert.equal(response.responseText ?? response.deviceResponseCode, "SUCCESS", name);
      sent.push([name, response.transactionId]);
      return response;
    };
    await initiated("credit sale", device.sale(15).withEcrId(13).execute());
    await initiated("credit sale with terminal ref number", device.sale(15).withTerminalRefNumber(randomUUID()).execute());
    await initiated("line item", device.lineItem("Line Item #1", "10.00"));
    await initiated("credit auth", device.authorize(10).withEcrId(13).withTerminalRefNumber("1234").execute());
    const auth = await initiated("credit auth and capture: auth", device.authorize(15).withEcrId(13).withTerminalRefNumber("1234").execute());
    await initiated("credit auth and capture: capture", device.capture(15).withTransactionId(auth.transactionId).execute());
    await initiated("credit capture randomId", device.capture(15).withTransactionId(randomUUID()).execute());
    const refunded = await initiated("credit refund: sale", device.sale(10).execute());
    await initiated("credit refund: refund", device.refundById(10).withTransactionId(refunded.transactionId).execute());
    await initiated("credit verify", device.verify().execute());
    const voided = await initiated("credit void: sale", device.sale(10).execute());
    await initiated("credit void: void", device.void().withTransactionId(voided.transactionId).execute());

    const screen = async () => (await admin("/terminals")).terminals.find((t) => t.id === terminal.id);
    let presented = 0;
    for (let t = await screen(); t.waiting; t = await screen()) {
      await post(`/devices/${terminal.id}/present`, {});
      presented++;
    }
    assert.equal(presented, 7, "a card for each of the seven commands that read one");
    const states = await Promise.all(sent.map(([, id]) => deviceRequest(id)));
    const completed = states.map((d) => Date.parse(d.action.time_created));
    states.forEach((d, i) => {
      const want = sent[i][0] === "credit capture randomId" ? "DECLINED" : "COMPLETE";
      assert.equal(d.status, want, `${sent[i][0]}: ${JSON.stringify(d.response)}`);
      if (i > 0) assert.ok(completed[i] >= completed[i - 1], `${sent[i][0]} completed before the one sent earlier`);
    });
    const refused = states[6].response;
    assert.equal(refused.cmdResult.result, "Success"); // the host refused it: completed, DECLINED
    assert.equal(refused.cmdResult.errorCode, "ERR020");
    const txn = (i) => ReportingService.transactionDetail(states[i].response.data.host.referenceNumber).execute();
    assert.equal((await txn(5)).transactionStatus, "CAPTURED");
    assert.equal((await txn(5)).transactionId, states[4].response.data.host.referenceNumber);
    assert.equal((await txn(8)).transactionType, "REFUND");
    assert.equal((await txn(11)).transactionStatus, "REVERSED");
  } finally {
    await post(`/devices/${terminal.id}`, { mode: "COMPLETE" });
  }
});

// 3.10.10's DeviceService has no end of day: a point of sale sends EODProcessing to
// POST /devices itself, with the token the SDK signed in with.
test("end of day (plain REST): the batch of the sales closes", async () => {
  assert.ok(sales.length >= 3, "the sales above ran");
  const res = await fetch(`${process.env.GPSANDBOX_URL}/devices`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${gateway.accessTokenInfo.accessToken}`,
      "X-GP-Version": "2021-03-22",
      "Content-Type": "application/json",
    },
    body: JSON.stringify({
      channel: "CP",
      account_name: "transaction_processing",
      reference: "eod-1",
      request: { message: "MSG", data: { command: "EODProcessing", requestId: "20001", EcrId: "13" } },
    }),
  });
  const eod = await res.json();
  assert.equal(res.status, 200, JSON.stringify(eod));
  assert.equal(eod.status, "COMPLETE");
  assert.equal(eod.action.result_code, "SUCCESS");
  assert.equal(eod.response.response, "EODProcessing");
  const record = eod.response.data.batchRecord;
  assert.equal(record.batchStatus, "CLOSED");
  assert.match(record.batchId, /^\d+$/);

  for (const t of sales) {
    assert.equal(t.batchSequenceNumber, `BAT_${record.batchId}`, t.transactionId);
  }
  const batch = await admin(`/batches/BAT_${record.batchId}`);
  assert.equal(batch.status, "CLOSED");
  for (const t of sales) {
    assert.ok(batch.transactions.includes(t.transactionId), `${t.transactionId} in ${batch.id}`);
  }
});
