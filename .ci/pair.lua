-- wrk script of .ci/pair: the same POST over and over, with a fresh
-- X-GP-Idempotency key on every request, so the sandbox does its whole key
-- bookkeeping each time (the bare server ignores the header).
--
-- Environment: PAIR_BODY (the request body), PAIR_HEADERS (one "Name: value" per
-- line). done() prints one line starting with "PAIR " for .ci/pair to read;
-- latencies are in microseconds, as wrk records them.
wrk.method = "POST"
wrk.body = os.getenv("PAIR_BODY") or '{"gratuity_amount":"250"}'
for line in string.gmatch(os.getenv("PAIR_HEADERS") or "", "[^\n]+") do
  local k, v = string.match(line, "^%s*([^:]+):%s*(.-)%s*$")
  if k then wrk.headers[k] = v end
end

-- Keys must never repeat: not across wrk threads (each gets its own number) nor
-- across runs against the same database (the start time is in the prefix).
local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("tid", threads)
end

local prefix
local n = 0
function request()
  if not prefix then prefix = string.format("pair-%d-%d-", os.time(), tid or 0) end
  n = n + 1
  wrk.headers["X-GP-Idempotency"] = prefix .. n
  return wrk.format()
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "PAIR requests=%d seconds=%.3f rps=%.1f p50_us=%d p99_us=%d p999_us=%d max_us=%d errors=%d\n",
    summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6),
    latency:percentile(50), latency:percentile(99), latency:percentile(99.9), latency.max,
    e.connect + e.read + e.write + e.timeout + e.status))
end
