-- One fixed POST body (BODY) with the bench token: the bare endpoint and kubernetesClusters/get.
wrk.method = "POST"
wrk.body = os.getenv("BODY")
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer api-bench-token"

done = function(summary, latency, requests)
  io.write(string.format("non2xx=%d\n", summary.errors.status))
end
