-- wrk script: GET /plants?sort=name&name[prefix]=Plant K&limit=LIMIT, K random from 100 to 999: the
-- first page, in name order, of the plants whose name starts so (1,111 of a million preloaded).
dofile("bench/common.lua")
local limit = os.getenv("LIMIT") or "20"

function init(args)
  math.randomseed(thread_seed)
  headers = { ["Authorization"] = "Bearer " .. token }
end

function request()
  return wrk.format(
    "GET", "/plants?sort=name&name%5Bprefix%5D=Plant%20" .. math.random(100, 999) .. "&limit=" .. limit, headers)
end
