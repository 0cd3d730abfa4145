-- What the bench's wrk scripts share; each loads it first with dofile, from the repository's
-- root, where npm run bench runs wrk.
token = os.getenv("BENCH_TOKEN")
local seed = tonumber(os.getenv("SEED") or "1")
local threads = 0

-- SEED (environment) seeds each thread's generator differently, and each run anew: a script's
-- init calls math.randomseed(thread_seed).
function setup(thread)
  threads = threads + 1
  thread:set("thread_seed", seed + threads * 7919)
end

-- The figures bench/run.js reads, on one line.
function done(summary, latency, requests)
  io.write(string.format(
    'WRK_RESULT {"requests": %d, "duration_us": %d, "p50_us": %d, "p99_us": %d, "max_us": %d, ' ..
    '"errors_connect": %d, "errors_read": %d, "errors_write": %d, "errors_timeout": %d, "non2xx": %d}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), latency.max,
    summary.errors.connect, summary.errors.read, summary.errors.write, summary.errors.timeout, summary.errors.status))
end
