// Points the official Global Payments Node SDK, unchanged, at the sandbox that
// .ci/sdk-check started: GPSANDBOX_URL is its service URL, https://<host>/ucp with no
// port, because the SDK reaches only port 443 of the host it is given.
"use strict";

const assert = require("node:assert/strict");

const { Channel, GpApiConfig, ServicesContainer } = require("globalpayments-api");

// The apps of the embedded default fixtures (fixtures/apps.yaml).
const partnerApp = {
  appId: "SandboxPartnerAppId0000000000001",
  appKey: "SandboxAppKey001",
};
// May read transactions, not take or change them.
const restrictedApp = {
  appId: "SandboxRestrictedAppId0000000002",
  appKey: "SandboxAppKey002",
};
// One account of each kind, as GP gives a sandbox app.
const gpLayoutApp = {
  appId: "SandboxGPLayoutAppId000000000003",
  appKey: "SandboxAppKey003",
};

function serviceUrl() {
  const url = process.env.GPSANDBOX_URL;
  if (!url) {
    throw new Error("GPSANDBOX_URL is not set: run the tests with .ci/sdk-check");
  }
  return url;
}

// configure registers a GP API configuration for app under name, card-present unless
// told otherwise, as a partner's code does, and returns it (the SDK fills in its
// accessTokenInfo on sign-in).
function configure(app = partnerApp, name = "default", channel = Channel.CardPresent) {
  const config = new GpApiConfig();
  config.appId = app.appId;
  config.appKey = app.appKey;
  config.channel = channel;
  config.serviceUrl = serviceUrl();
  ServicesContainer.configureService(config, name);
  return config;
}

// rejectsWithGpError awaits promise and checks that the SDK threw the GatewayError it
// builds from a GP error body: error_code in its message, detailed_error_code as
// responseCode, detailed_error_description as responseMessage. The SDK reads that body
// only when the response is gzip-compressed, as GP's are; from a plain error body it
// would throw "Unexpected HTTP status code" with none of these.
async function rejectsWithGpError(promise, errorCode, detailedCode, description) {
  await assert.rejects(promise, (err) => {
    assert.equal(err.name, "GatewayError", err.stack);
    assert.equal(err.message, `Status Code: ${errorCode} - ${description}`);
    assert.equal(err.responseCode, detailedCode);
    assert.equal(err.responseMessage, description);
    return true;
  });
}

module.exports = { configure, gpLayoutApp, partnerApp, rejectsWithGpError, restrictedApp };
