-- wrk script: PATCH /plants/{id} (application/merge-patch+json) on a random id of the preloaded
-- range, 1 to MAX_ID, without If-Match (unconditional): every request changes the name; one in
-- four sets the tag as well, and one in four removes it ("tag": null).
-- SEED (environment) seeds each thread's generator differently, and each run anew.
local token = os.getenv("BENCH_TOKEN")
local maxId = tonumber(os.getenv("MAX_ID"))
local seed = tonumber(os.getenv("SEED") or "1")
local threads = 0

function setup(thread)
  threads = threads + 1
  thread:set("thread_seed", seed + threads * 7919)
end

function init(args)
  math.randomseed(thread_seed)
  headers = {
    ["Authorization"] = "Bearer " .. token,
    ["Content-Type"] = "application/merge-patch+json",
  }
  counter = 0
end

function request()
  counter = counter + 1
  local id = math.random(1, maxId)
  local kind = math.random(1, 4)
  local tag = kind == 3 and ', "tag": "bench"' or (kind == 4 and ', "tag": null' or "")
  local body = string.format('{"name": "Bench plant %d"%s}', counter, tag)
  return wrk.format("PATCH", "/plants/" .. id, headers, body)
end

function done(summary, latency, requests)
  io.write(string.format(
    'WRK_RESULT {"requests": %d, "duration_us": %d, "p50_us": %d, "p99_us": %d, "max_us": %d, ' ..
    '"errors_connect": %d, "errors_read": %d, "errors_write": %d, "errors_timeout": %d, "non2xx": %d}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), latency.max,
    summary.errors.connect, summary.errors.read, summary.errors.write, summary.errors.timeout, summary.errors.status))
end
