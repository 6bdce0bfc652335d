const { test, before, after } = require("node:test");
const assert = require("node:assert");
const crypto = require("node:crypto");

// [recipe]
const path = require("node:path");
const { GenericContainer, Wait } = require("testcontainers");

let sandbox, baseUrl;

before(async () => {
  sandbox = await new GenericContainer("gp-sandbox")
    .withExposedPorts(8080)
    .withNetworkMode(process.env.TC_NETWORK || "bridge") // [check]
    .withEnvironment({
      GPSANDBOX_ADMIN_TOKEN: "test-admin-token", // the port is published: guard the admin API
      GPSANDBOX_FIXTURES: "/fixtures",
      GPSANDBOX_SCENARIOS_DIR: "/scenarios",
    })
    .withBindMounts([
      { source: path.resolve("fixtures"), target: "/fixtures", mode: "ro" },
      { source: path.resolve("scenarios"), target: "/scenarios", mode: "ro" },
    ])
    .withWaitStrategy(Wait.forHttp("/_sandbox/health", 8080).forStatusCode(200))
    .start();
  baseUrl = `http://${sandbox.getHost()}:${sandbox.getMappedPort(8080)}/ucp`;
});

after(async () => {
  await sandbox?.stop();
});
// [/recipe]

async function call(path, body, headers = {}) {
  const res = await fetch(baseUrl + path, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-GP-Version": "2021-03-22", ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

async function token() {
  const nonce = new Date().toISOString();
  const secret = crypto.createHash("sha512").update(nonce + "SandboxAppKey001").digest("hex");
  const { body } = await call("/accesstoken", {
    app_id: "SandboxPartnerAppId0000000000001", nonce, secret, grant_type: "client_credentials",
  });
  return body.token;
}

const sale = {
  channel: "CP", type: "SALE", capture_mode: "AUTO", amount: "1000", currency: "USD",
  payment_method: {
    entry_mode: "SWIPE",
    card: { track: "%B4012002000060016^VI TEST CREDIT^251210118039000000000396?;4012002000060016=25121011803939600000?" },
  },
};

test("a swiped sale is captured", async () => {
  const auth = { Authorization: `Bearer ${await token()}` };
  const { status, body } = await call("/transactions", sale, auth);
  assert.strictEqual(status, 200);
  assert.strictEqual(body.status, "CAPTURED");
});

test("a scenario from the mounted folder declines it", async () => {
  const auth = { Authorization: `Bearer ${await token()}`, "X-Sandbox-Scenario": "testcontainers-decline" };
  const { status, body } = await call("/transactions", sale, auth);
  assert.strictEqual(status, 200);
  assert.strictEqual(body.status, "DECLINED");
  assert.strictEqual(body.payment_method.result, "51");
});
