// Sign-in: the SDK asks for an access token on its first call and keeps what the
// token's scope says (merchant, accounts) in the configuration's accessTokenInfo.
"use strict";

const assert = require("node:assert/strict");
const { test } = require("node:test");
const { Transaction } = require("globalpayments-api");
const { configure, gpLayoutApp, partnerApp, rejectsWithGpError } = require("./sandbox");

// Any call signs in first; an edit of an unknown transaction changes nothing.
function firstCall(configName) {
  return Transaction.fromId("TRN_doesnotexist").edit().withGratuity(1).execute(configName);
}

// signIn configures app under name and makes its first call, which signs in and is
// then refused as unknown; it returns what the SDK kept of the token.
async function signIn(app, name) {
  const config = configure(app, name);
  await rejectsWithGpError(
    firstCall(name),
    "RESOURCE_NOT_FOUND",
    "40008",
    "Transaction TRN_doesnotexist not found at this location.",
  );
  return config.accessTokenInfo;
}

test("sign-in stores the token and the accounts of its scope", async () => {
  const info = await signIn(partnerApp, "signin");
  assert.match(info.accessToken, /^[A-Za-z0-9]{28}$/);
  assert.equal(info.merchantId, "MER_00000000000000000000000000000001");
  assert.equal(info.transactionProcessingAccountID, "TRA_00000000000000000000000000000001");
  assert.equal(info.transactionProcessingAccountName, "transaction_processing");
  assert.equal(info.merchantManagementAccountID, "MMA_00000000000000000000000000000001");
});

test("an app with GP's account layout: the SDK finds every account", async () => {
  const info = await signIn(gpLayoutApp, "layout");
  assert.equal(info.transactionProcessingAccountID, "TRA_00000000000000000000000000000003");
  assert.equal(info.tokenizationAccountID, "TKA_00000000000000000000000000000003");
  assert.equal(info.dataAccountID, "DAA_00000000000000000000000000000003");
  assert.equal(info.disputeManagementAccountID, "DIA_00000000000000000000000000000003");
  assert.equal(info.riskAssessmentAccountID, "RAA_00000000000000000000000000000003");
  assert.equal(info.merchantManagementAccountID, "MMA_00000000000000000000000000000003");
});

test("a wrong app key is refused at sign-in", async () => {
  const config = configure({ appId: partnerApp.appId, appKey: "NotTheAppKey0001" }, "wrongkey");
  await rejectsWithGpError(
    firstCall("wrongkey"),
    "ACTION_NOT_AUTHORIZED",
    "40004",
    "Credentials not recognized to create access token.",
  );
  assert.equal(config.accessTokenInfo, undefined);
});

test("an unknown app is refused at sign-in", async () => {
  configure({ appId: "UnknownAppId00000000000000000001", appKey: "SandboxAppKey001" }, "unknownapp");
  await rejectsWithGpError(
    firstCall("unknownapp"),
    "ACTION_NOT_AUTHORIZED",
    "40004",
    "App credentials not recognized",
  );
});
