-- kubernetesClusters/create with a new name and idempotency key per request; TENANTS tenants round-robin, from
-- load<TENANT_BASE> on (TENANT_BASE 0 unless set).
-- SEED (a number, new for each wrk run) seeds the threads' prefixes: wrk's Lua starts from the same random state
-- in every run, so without it a run repeats the names and keys of the run before (its warm-up), and those
-- requests are replays, not creates.
math.randomseed(tonumber(os.getenv("SEED") or "0"))
local tenants = tonumber(os.getenv("TENANTS") or "1")
local base = tonumber(os.getenv("TENANT_BASE") or "0")
local pool = "pool_01hzx8k3v4w5y6z7a8b9c0d1e2"
local counter = 0
local threads = 0

function setup(thread)
  threads = threads + 1
  thread:set("prefix", "w" .. threads .. "r" .. math.random(100000, 999999))
end

wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer api-bench-token"

function request()
  counter = counter + 1
  local name = "c-" .. (prefix or "t") .. "-" .. counter
  local tenant = "load" .. (base + counter % tenants)
  local body = '{"tenantId":"' .. tenant .. '","poolId":"' .. pool .. '","name":"' .. name ..
    '","mode":"standard","location":"us-central1-a","idempotencyKey":"' .. name ..
    '","nodePools":[{"name":"gpu","machineType":"a3-highgpu-8g","nodeCount":2,' ..
    '"accelerators":{"type":"nvidia-h100-80gb","count":8}}]}'
  return wrk.format(nil, nil, nil, body)
end

done = function(summary, latency, requests)
  io.write(string.format("non2xx=%d\n", summary.errors.status))
end
