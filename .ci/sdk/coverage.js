// Reads the sandbox's coverage report after the SDK tests ran (.ci/sdk-check): prints
// each checklist item covered or not, and fails when an item the tests above
// certainly exercise is not covered, so that a journal or checklist change that
// loses one is caught. Usage: GPSANDBOX_URL=https://<host>/ucp node coverage.js
"use strict";

// What the Node SDK tests certainly do: sign in, a swiped sale, a tip by edit(), a
// refund and a reversal of a sale, the batch close (EODProcessing on a terminal).
const required = ["token", "sale.swipe", "tip.adjustment", "refund", "reversal", "batch.close"];

(async () => {
  const origin = new URL(process.env.GPSANDBOX_URL).origin;
  const res = await fetch(origin + "/_sandbox/coverage");
  const report = await res.json();
  if (res.status !== 200) {
    throw new Error(`GET /_sandbox/coverage: ${res.status} ${JSON.stringify(report)}`);
  }
  const { summary, items } = report;
  console.log(`coverage: ${summary.covered} of ${summary.items} checklist items covered by ${report.requests} requests`);
  for (const item of items) {
    const mark = item.covered ? "covered    " : "not covered";
    const seen = item.covered ? ` (${item.count}, e.g. #${item.examples.map((e) => e.seq).join(", #") || item.notifications.join(", ")})` : "";
    console.log(`  ${mark} ${item.id}: ${item.title}${seen}`);
  }
  const missing = required.filter((id) => !items.some((item) => item.id === id && item.covered));
  if (missing.length > 0) {
    console.error(`coverage: the SDK tests exercise ${missing.join(", ")}, but the report does not show it`);
    process.exit(1);
  }
})().catch((err) => {
  console.error(`coverage: ${err.message}`);
  process.exit(1);
});
