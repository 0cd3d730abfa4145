-- wrk script: POST /plants with a unique id per request.
-- ID_BASE (environment) offsets the ids of a run; each wrk thread takes its own range.
local token = os.getenv("BENCH_TOKEN")
local base = tonumber(os.getenv("ID_BASE") or "0")
local threads = {}
local counter = 0

function setup(thread)
  -- Becomes the global `thread_base` of that thread's own Lua state.
  thread:set("thread_base", base + #threads * 1000000000)
  table.insert(threads, thread)
end

function init(args)
  counter = 0
end

function request()
  counter = counter + 1
  local body = string.format('{"id": %d, "name": "Bench plant", "tag": "bench"}', thread_base + counter)
  return wrk.format("POST", "/plants", {
    ["Authorization"] = "Bearer " .. token,
    ["Content-Type"] = "application/json",
  }, body)
end

function done(summary, latency, requests)
  io.write(string.format(
    'WRK_RESULT {"requests": %d, "duration_us": %d, "p50_us": %d, "p99_us": %d, "max_us": %d, ' ..
    '"errors_connect": %d, "errors_read": %d, "errors_write": %d, "errors_timeout": %d, "non2xx": %d}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), latency.max,
    summary.errors.connect, summary.errors.read, summary.errors.write, summary.errors.timeout, summary.errors.status))
end
