-- One AdmissionReview (the file REVIEW) POSTed over and over; with DELAY_MS each connection pauses that long
-- between requests, so C connections offer about C * 1000 / DELAY_MS requests a second (bench/admission-wrk.sh).
wrk.method = "POST"
local f = assert(io.open(os.getenv("REVIEW"), "r"))
wrk.body = f:read("*a")
f:close()
wrk.headers["Content-Type"] = "application/json"
local pause = tonumber(os.getenv("DELAY_MS") or "0")

function delay()
  return pause
end

done = function(summary, latency, requests)
  io.write(string.format("non2xx=%d\n", summary.errors.status))
end
