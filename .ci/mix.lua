-- wrk script of .ci/tail, .ci/retained and .ci/soak: the sandbox's workloads, sent as
-- an SDK would send them, with the answers counted by status and error code.
--
-- Environment:
--   MIX               adjust-key (the default: adjustments, each with a fresh
--                     X-GP-Idempotency key), adjust (adjustments without a key) or
--                     mixed (below)
--   MIX_TOKEN         the bearer token to start with
--   MIX_TOKEN_BODY    an /accesstoken body: after a 401 (a reset took the token) the
--                     next request asks a new token with it, as SDKs do
--   MIX_REQUESTS      stop after this many answers (one wrk thread): the script then
--                     creates MIX_DONE_FILE, on which the caller stops wrk; 0 runs for -d
--   MIX_DELAY_MS      milliseconds each connection waits before a request (a rate:
--                     connections * 1000 / MIX_DELAY_MS requests a second at most)
--   MIX_STATUS_URL    placed orders carry it as notifications.status_url
--   MIX_SCENARIO      the scenario of the scenario share (flaky-then-ok)
--   MIX_SCENARIO_SHARE  the share of requests sent with it (0.05)
--   MIX_RESETS        1: the sandbox is reset during the run, so a 404 may be a
--                     refund of a sale the reset wiped, and is not an error
--
-- The mixed workload draws each request: 10% access tokens, 10% placed orders (with a
-- key), 10% FOR_REVIEW orders, 10% card-present sales (with a key), 5% authorizations,
-- 5% reads of a transaction, 5% one-cent refunds of the thread's latest sale, the
-- scenario share (adjustments under X-Sandbox-Scenario, in 16 sessions), and
-- adjustments, half with a key, for the rest.
--
-- done() prints one line starting with "MIX " (latencies in microseconds, as wrk
-- records them): requests, rate, p50/p99/p99.9/max, then the errors: unscripted (an
-- error answer no scenario rule shaped, or a socket error or timeout), scripted (those
-- carrying X-Sandbox-Rule), reauth (401s followed by a new token), wiped (404s after a
-- reset, with MIX_RESETS=1); then one "MIX answer" line per status and error code.

local mix = os.getenv("MIX") or "adjust-key"
local token = os.getenv("MIX_TOKEN") or ""
local tokenBody = os.getenv("MIX_TOKEN_BODY") or ""
local limit = tonumber(os.getenv("MIX_REQUESTS") or "0")
local doneFile = os.getenv("MIX_DONE_FILE")
local delayMs = tonumber(os.getenv("MIX_DELAY_MS") or "0")
local statusURL = os.getenv("MIX_STATUS_URL") or ""
local scenario = os.getenv("MIX_SCENARIO") or "flaky-then-ok"
local scenarioShare = tonumber(os.getenv("MIX_SCENARIO_SHARE") or "0.05")
local resets = os.getenv("MIX_RESETS") == "1"

local txn = "TRN_CapturedSale000000000000000001"
local adjustPath = "/transactions/" .. txn .. "/adjustment"
local ordersPath = "/merchants/MER_00000000000000000000000000000001/orders"
local adjustBody = '{"gratuity_amount":"150"}'
-- GP's approved Visa test track, swiped; "load" marks the answers to it.
local saleBody = '{"account_name":"transaction_processing","channel":"CP","type":"SALE","capture_mode":"AUTO",' ..
  '"amount":"1000","currency":"USD","country":"US","reference":"load","payment_method":{"entry_mode":"SWIPE",' ..
  '"card":{"track":"%B4012002000060016^VI TEST CREDIT^251210118039000000000396?;4012002000060016=25121011803939600000?","funding":"CREDIT"}}}'
local authorizeBody = string.gsub(saleBody, '"AUTO"', '"LATER"')
local orderBody = '{"products":[{"id":"PRO_TRA_CP-US-CARD-A920_SP","device":{"quantity":1}}]'
if statusURL ~= "" then
  orderBody = orderBody .. ',"notifications":{"status_url":"' .. statusURL .. '"}'
end
orderBody = orderBody .. "}"
local reviewBody = '{"status":"FOR_REVIEW","products":[{"id":"PRO_TRA_CP-US-CARD-A920_SP","device":{"quantity":2}}]}'

-- Per thread: its number, the keys' prefix, the count of requests, the latest sale.
local threads = {}
function setup(thread)
  table.insert(threads, thread)
  thread:set("tid", #threads)
end

local prefix, n, answered = nil, 0, 0
local lastSale, tokenDue = nil, false
answers, unscripted, scripted, reauth, wiped = {}, 0, 0, 0, 0

function init(args)
  prefix = string.format("mix-%d-%d-", os.time(), tid or 0)
  math.randomseed(os.time() + (tid or 0))
end

if delayMs > 0 then
  function delay() return delayMs end
end

local function send(method, path, body, keyed, extra)
  n = n + 1
  local headers = {
    ["Content-Type"] = "application/json",
    ["Authorization"] = "Bearer " .. token,
    ["X-GP-Version"] = "2021-03-22",
  }
  if keyed then headers["X-GP-Idempotency"] = prefix .. n end
  for k, v in pairs(extra or {}) do headers[k] = v end
  return wrk.format(method, path, headers, body)
end

local function askToken()
  return wrk.format("POST", "/accesstoken", { ["Content-Type"] = "application/json" }, tokenBody)
end

function request()
  if tokenDue and tokenBody ~= "" then
    tokenDue = false
    return askToken()
  end
  if mix == "adjust" then return send("POST", adjustPath, adjustBody, false) end
  if mix == "adjust-key" then return send("POST", adjustPath, adjustBody, true) end
  local p = math.random()
  if p < 0.10 then return askToken() end
  if p < 0.20 then return send("POST", ordersPath, orderBody, true) end
  if p < 0.30 then return send("POST", ordersPath, reviewBody, false) end
  if p < 0.40 then return send("POST", "/transactions", saleBody, true) end
  if p < 0.45 then return send("POST", "/transactions", authorizeBody, false) end
  if p < 0.50 then return send("GET", "/transactions/" .. txn, nil, false) end
  if p < 0.55 then
    if lastSale then return send("POST", "/transactions/" .. lastSale .. "/refund", '{"amount":"1"}', false) end
    return send("POST", "/transactions", saleBody, true)
  end
  if p < 0.55 + scenarioShare then
    return send("POST", adjustPath, '{"gratuity_amount":"100"}', false,
      { ["X-Sandbox-Scenario"] = scenario, ["X-Sandbox-Session"] = "mix-" .. (n % 16) })
  end
  return send("POST", adjustPath, adjustBody, p < 0.75)
end

function response(status, headers, body)
  answered = answered + 1
  if status == 200 then
    local t = string.match(body, '^{"token":"([^"]+)"')
    if t then token = t end
    -- A sale of the mix (not an authorization, which stays PREAUTHORIZED, nor a refund
    -- of a sale, which keeps its reference): what refunds refund.
    if string.find(body, '"type":"SALE","status":"CAPTURED"', 1, true) and string.find(body, '"reference":"load"', 1, true) then
      lastSale = string.match(body, '^{"id":"([^"]+)"')
    end
  end
  local code = status == 200 and "" or (string.match(body, '"error_code":"([^"]*)"') or "")
  local kind = status .. " " .. code
  if headers["X-Sandbox-Rule"] then
    kind = kind .. " (scripted)"
    scripted = scripted + 1
  elseif status == 401 and tokenBody ~= "" then
    kind = kind .. " (new token asked)"
    tokenDue, lastSale = true, nil
    reauth = reauth + 1
  elseif status == 404 and resets then
    kind = kind .. " (wiped by a reset)"
    lastSale = nil
    wiped = wiped + 1
  elseif status >= 400 then
    unscripted = unscripted + 1
  end
  answers[kind] = (answers[kind] or 0) + 1
  if limit > 0 and answered >= limit then
    if doneFile then io.open(doneFile, "w"):close() end
    wrk.thread:stop()
  end
end

function done(summary, latency, requests)
  local e = summary.errors
  local totals = { unscripted = e.connect + e.read + e.write + e.timeout, scripted = 0, reauth = 0, wiped = 0 }
  local all = {}
  for _, t in ipairs(threads) do
    for _, name in ipairs({ "unscripted", "scripted", "reauth", "wiped" }) do
      totals[name] = totals[name] + t:get(name)
    end
    for kind, count in pairs(t:get("answers")) do all[kind] = (all[kind] or 0) + count end
  end
  io.write(string.format(
    "MIX requests=%d seconds=%.3f rps=%.1f p50_us=%d p99_us=%d p999_us=%d max_us=%d unscripted=%d scripted=%d reauth=%d wiped=%d\n",
    summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6),
    latency:percentile(50), latency:percentile(99), latency:percentile(99.9), latency.max,
    totals.unscripted, totals.scripted, totals.reauth, totals.wiped))
  local kinds = {}
  for kind in pairs(all) do table.insert(kinds, kind) end
  table.sort(kinds)
  for _, kind in ipairs(kinds) do io.write(string.format("MIX answer %-48s %d\n", kind, all[kind])) end
end
