-- wrk script: GET /plants/{id} with a random id of the preloaded range, 1 to MAX_ID.
dofile("bench/common.lua")
local maxId = tonumber(os.getenv("MAX_ID"))

function init(args)
  math.randomseed(thread_seed)
  headers = { ["Authorization"] = "Bearer " .. token }
end

function request()
  return wrk.format("GET", "/plants/" .. math.random(1, maxId), headers)
end
