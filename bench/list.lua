-- wrk script: GET /plants?limit=LIMIT&after=N, N random from 0 to MAX_AFTER (chosen so that
-- every page is full and has a next one); with TAG, &tag=TAG as well.
-- SEED (environment) seeds each thread's generator differently, and each run anew.
local token = os.getenv("BENCH_TOKEN")
local maxAfter = tonumber(os.getenv("MAX_AFTER"))
local limit = os.getenv("LIMIT") or "20"
local tag = os.getenv("TAG")
local seed = tonumber(os.getenv("SEED") or "1")
local threads = 0

function setup(thread)
  threads = threads + 1
  thread:set("thread_seed", seed + threads * 7919)
end

function init(args)
  math.randomseed(thread_seed)
  headers = { ["Authorization"] = "Bearer " .. token }
  prefix = "/plants?limit=" .. limit .. "&after="
  suffix = tag and ("&tag=" .. tag) or ""
end

function request()
  return wrk.format("GET", prefix .. math.random(0, maxAfter) .. suffix, headers)
end

function done(summary, latency, requests)
  io.write(string.format(
    'WRK_RESULT {"requests": %d, "duration_us": %d, "p50_us": %d, "p99_us": %d, "max_us": %d, ' ..
    '"errors_connect": %d, "errors_read": %d, "errors_write": %d, "errors_timeout": %d, "non2xx": %d}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), latency.max,
    summary.errors.connect, summary.errors.read, summary.errors.write, summary.errors.timeout, summary.errors.status))
end
