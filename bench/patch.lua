-- wrk script: PATCH /plants/{id} (application/merge-patch+json) on a random id of the preloaded
-- range, 1 to MAX_ID, without If-Match (unconditional): every request changes the name; one in
-- four sets the tag as well, and one in four removes it ("tag": null).
dofile("bench/common.lua")
local maxId = tonumber(os.getenv("MAX_ID"))

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
