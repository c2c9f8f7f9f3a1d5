-- One AdmissionReview (the file REVIEW) POSTed over and over (bench/admission-wrk.sh).
-- With RATE (requests a second, over all THREADS threads) each thread sends on a fixed schedule of RATE/THREADS a
-- second, whatever the answers' latency: a connection that comes free waits for the thread's next slot. The
-- schedule never skips a slot, so a stall is followed by the requests it held back, as a busy API server would
-- send them. Without RATE every connection sends again as soon as its answer is in (full speed).
local ffi = require("ffi")
ffi.cdef [[
  typedef struct { long tv_sec; long tv_nsec; } bench_timespec;
  int clock_gettime(int clock_id, bench_timespec *tp);
]]
local CLOCK_MONOTONIC = 1
local now = ffi.new("bench_timespec")
local function millis()
  ffi.C.clock_gettime(CLOCK_MONOTONIC, now)
  return tonumber(now.tv_sec) * 1000 + tonumber(now.tv_nsec) / 1e6
end

wrk.method = "POST"
local f = assert(io.open(os.getenv("REVIEW"), "r"))
wrk.body = f:read("*a")
f:close()
wrk.headers["Content-Type"] = "application/json"
local rate = tonumber(os.getenv("RATE") or "0")
local interval = rate > 0 and 1000 * tonumber(os.getenv("THREADS") or "1") / rate or 0
local nextSlot = nil

function delay()
  if interval == 0 then return 0 end
  local t = millis()
  nextSlot = nextSlot or t
  local slot = nextSlot
  nextSlot = nextSlot + interval
  return math.max(0, math.floor(slot - t + 0.5))
end

done = function(summary, latency, requests)
  io.write(string.format("non2xx=%d\n", summary.errors.status))
end
