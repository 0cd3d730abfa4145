-- wrk script: GET /plants?limit=LIMIT&after=N, N random from 0 to MAX_AFTER (chosen so that
-- every page is full and has a next one); with TAG, &tag=TAG as well.
dofile("bench/common.lua")
local maxAfter = tonumber(os.getenv("MAX_AFTER"))
local limit = os.getenv("LIMIT") or "20"
local tag = os.getenv("TAG")

function init(args)
  math.randomseed(thread_seed)
  headers = { ["Authorization"] = "Bearer " .. token }
  prefix = "/plants?limit=" .. limit .. "&after="
  suffix = tag and ("&tag=" .. tag) or ""
end

function request()
  return wrk.format("GET", prefix .. math.random(0, maxAfter) .. suffix, headers)
end
