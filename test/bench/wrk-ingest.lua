-- wrk's script for `npm run bench:ingest` (test/bench/load.ts): POSTs /v2/ingest bodies made from the
-- templates file, one per line, split where the event ids go (U+0001), with ids never sent before.
-- Arguments: templates file, id prefix, bearer token (optional). Prints one JSON line when done.
local templates = {}
local prefix
local n = 0

function setup(thread)
  -- Each thread numbers its own requests: the thread's index keeps their ids apart.
  thread:set("thread_index", tostring(setup_count or 0))
  setup_count = (setup_count or 0) + 1
end

function init(args)
  prefix = args[2] .. (thread_index or "0") .. "-"
  for line in io.lines(args[1]) do
    local parts = {}
    for part in (line .. "\1"):gmatch("([^\1]*)\1") do parts[#parts + 1] = part end
    templates[#templates + 1] = parts
  end
  wrk.method = "POST"
  wrk.path = "/v2/ingest"
  wrk.headers["Content-Type"] = "application/json"
  if args[3] and args[3] ~= "" then wrk.headers["Authorization"] = "Bearer " .. args[3] end
end

function request()
  local parts = templates[n % #templates + 1]
  -- 18 characters, so an id ("<tag>.<index>") is about as long as the SDKs' 21; numbered in order, as
  -- the SDKs' ids lead with their second (src/sdk/ids.ts): the keys go near the end of the dedup index
  local tag = prefix .. string.format("%0" .. math.max(1, 18 - #prefix) .. "x", n)
  n = n + 1
  local out = { parts[1] }
  for i = 2, #parts do out[#out + 1] = '"' .. tag .. "." .. (i - 1) .. '"' .. parts[i] end
  return wrk.format(nil, nil, nil, table.concat(out))
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('{"requests":%d,"duration_us":%d,"status_errors":%d,"socket_errors":%d,"p50_us":%d,"p99_us":%d}\n',
    summary.requests, summary.duration, e.status, e.connect + e.read + e.write + e.timeout,
    latency:percentile(50), latency:percentile(99)))
end
