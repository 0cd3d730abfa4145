-- wrk script: POST /plants with a unique id per request.
-- ID_BASE (environment) offsets the ids of a run; each wrk thread takes its own range.
dofile("bench/common.lua")
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
