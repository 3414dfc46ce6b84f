-- wrk's side of the cross-check: each request GET /api/order-summary/{id}, the id drawn at random from the seeded
-- orders as vtlab's k6 script (load/orders.js) draws it. MAX_ID comes from the environment.
local max_id = tonumber(os.getenv("MAX_ID") or "1")

function setup(thread)
  thread:set("seed", math.random(1, 2 ^ 30))
end

function init(args)
  math.randomseed(seed)
end

function request()
  return wrk.format("GET", "/api/order-summary/" .. math.random(1, max_id))
end
