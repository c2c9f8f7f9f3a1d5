#!/usr/bin/env bash
# The API against a bare Javalin endpoint, measured with wrk in one run (docs/performance.md).
#   bench/api-wrk.sh [--db embedded|h2|JDBC_URL] [--seconds 10] [--warmup 20] [--warm first|each] [--connections 32] [--threads 2]
# Builds the jar (SKIP_BUILD=1 to reuse it), starts ApiBench (the bare endpoint and the server, reconciler off, on a
# fresh database in a temporary directory: --db embedded, the default, is the server's own default, an embedded
# PostgreSQL; --db h2 an H2 file as --db jdbc:h2:file:… runs it; or the JDBC URL of a PostgreSQL of your own), runs wrk on: the bare endpoint, get, create over 7 tenants, create in one
# tenant, and the creates' floor (create-writes-7: a create's durable writes alone, over 7 tenants, with nothing of the
# server around them; bootstrap/.../load/CreateWritesFloor.java); prints req/s, p99 and the ratio of each to the bare endpoint, and the CPU per request of the server's JVM and
# (embedded PostgreSQL only) of its database server. Each target gets --warmup seconds of its own load, not measured:
# with --warm first (the default) all four are warmed, one after the other, before any is measured, so every target,
# the floor too, is measured with the JIT done with its path; --warm each warms a target just before its own window
# (what the script did before 2026-12-02: on a two-vCPU VM the JIT was still compiling then, the floor measured at
# half its warmed rate and get at 0.4 of it; docs/performance.md). Needs wrk (apt-get install -y wrk).
# BENCH_JAR=path runs another build of the jar (implies SKIP_BUILD=1), for before/after runs of one script.
# PHASES_FILE=f appends each measured window as name|start|end (UTC) to f, to cut a JFR recording by target.
# The creates count against the bench tenants' bound (100,000 clusters each, ApiBench.MAX_CLUSTERS): the seven-tenant
# target uses load0…load6, the one-tenant target load7 to warm up and load8 to be measured; a --warmup or --seconds
# long enough to reach the bound shows in the row as "not 2xx" (the quota's refusals).
set -euo pipefail
cd "$(dirname "$0")/.."
DB="embedded"; SECONDS_EACH=10; WARMUP=20; CONNECTIONS=32; THREADS=2; WARM_ORDER=first
while [ $# -gt 0 ]; do
  case "$1" in
    --db) DB="$2"; shift 2 ;;
    --seconds) SECONDS_EACH="$2"; shift 2 ;;
    --warmup) WARMUP="$2"; shift 2 ;;
    --connections) CONNECTIONS="$2"; shift 2 ;;
    --threads) THREADS="$2"; shift 2 ;;
    --warm) WARM_ORDER="$2"; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
case "$WARM_ORDER" in first|each) ;; *) echo "--warm is first or each, not $WARM_ORDER" >&2; exit 2 ;; esac
source bench/lib.sh
start_bench ApiBench
BARE=$(ready_value bare)
API=$(ready_value api)
CLUSTER=$(ready_value cluster)
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg); db: $DB"
# the embedded PostgreSQL's server (ApiBench's newest temporary directory), whose processes' CPU is counted too
PG_MAIN=""; PG_FLOOR=""
if [ "$DB" = "embedded" ]; then
  PG_MAIN=$(pgrep -n -f -- "-D ${TMPDIR:-/tmp}/api-bench[0-9]*/postgres" || true)
  # the create-writes floor's own embedded PostgreSQL, beside the server's
  PG_FLOOR=$(pgrep -n -f -- "-D ${TMPDIR:-/tmp}/api-bench[0-9]*/floor-postgres" || true)
fi

warm() { # name url lua [env...]: WARMUP seconds of the target's load, not measured
  local name=$1 url=$2 lua=$3; shift 3
  if [ "$WARMUP" -gt 0 ]; then
    env SEED="$(od -An -N4 -tu4 /dev/urandom)" "$@" wrk -t"$THREADS" -c"$CONNECTIONS" -d"${WARMUP}s" -s "bench/$lua" "$url" > /dev/null 2>&1
  fi
}
run() { # name url lua [env...]: (--warm each: its warm-up, then) its measured window
  local name=$1 url=$2 lua=$3; shift 3
  if [ "$WARM_ORDER" = each ]; then warm "$name" "$url" "$lua" "$@"; fi
  local from cpu0 cpu1 pg0 pg1; from=$(date -u +%FT%T.%N); cpu0=$(cpu_ticks); pg0=$(pg_ticks)
  env SEED="$(od -An -N4 -tu4 /dev/urandom)" "$@" wrk -t"$THREADS" -c"$CONNECTIONS" -d"${SECONDS_EACH}s" --latency -s "bench/$lua" "$url" > "$OUT/$name.txt" 2>&1
  # the measured window, to cut a profile (JAVA_OPTS=-XX:StartFlightRecording=…) into the targets
  cpu1=$(cpu_ticks); pg1=$(pg_ticks)
  if [ -n "${PHASES_FILE:-}" ]; then echo "$name|$from|$(date -u +%FT%T.%N)" >> "$PHASES_FILE"; fi
  local rps p99 non2xx
  rps=$(awk '/^Requests\/sec:/ {print $2}' "$OUT/$name.txt")
  p99=$(awk '$1=="99%" {print $2}' "$OUT/$name.txt")
  non2xx=$(awk -F= '/^non2xx=/ {print $2}' "$OUT/$name.txt")
  local requests; requests=$(awk '/requests in/ {print $1}' "$OUT/$name.txt")
  # the server JVM's CPU per answered request (user+system, clock ticks of 1/CLK_TCK s), in microseconds
  local hz; hz=$(getconf CLK_TCK)
  echo "$name $rps $p99 ${non2xx:-?} $(awk -v t=$((cpu1 - cpu0)) -v n="$requests" -v hz="$hz" 'BEGIN {printf "%.0f", t / hz * 1e6 / n}')" \
    "$(if [ -n "$PG_MAIN" ]; then awk -v t=$((pg1 - pg0)) -v n="$requests" -v hz="$hz" 'BEGIN {printf "%.0f", t / hz * 1e6 / n}'; else echo -; fi)"
}
cpu_ticks() { awk '{print $14 + $15}' "/proc/$PID/stat"; }
# user+system ticks of the embedded PostgreSQL's server and its children (backends, WAL writer, checkpointer, ...);
# a process that ends inside the window (an autovacuum worker) takes its ticks with it
pg_ticks() {
  local total=0 p
  [ -n "$PG_MAIN" ] || { echo 0; return; }
  for p in $PG_MAIN $(pgrep -P "$PG_MAIN"); do total=$((total + $(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null || echo 0))); done
  echo $total
}
BARE_BODY='{"tenantId":"load0"}'
GET_BODY="{\"tenantId\":\"load0\",\"clusterId\":\"$CLUSTER\"}"
if [ "$WARM_ORDER" = first ]; then
  warm bare "http://127.0.0.1:$BARE/bare" post.lua BODY="$BARE_BODY"
  warm get "http://127.0.0.1:$API/api/compute/kubernetesClusters/get" post.lua BODY="$GET_BODY"
  warm create-7-tenants "http://127.0.0.1:$API/api/compute/kubernetesClusters/create" create.lua TENANTS=7
  warm create-1-tenant "http://127.0.0.1:$API/api/compute/kubernetesClusters/create" create.lua TENANTS=1 TENANT_BASE=7
  warm create-writes-7 "http://127.0.0.1:$BARE/create-writes" create.lua TENANTS=7
fi
{
  run bare "http://127.0.0.1:$BARE/bare" post.lua BODY="$BARE_BODY"
  run get "http://127.0.0.1:$API/api/compute/kubernetesClusters/get" post.lua BODY="$GET_BODY"
  run create-7-tenants "http://127.0.0.1:$API/api/compute/kubernetesClusters/create" create.lua TENANTS=7
  # one tenant of its own, not the seven's, and (--warm first) another for its warm-up, so that no tenant nears the
  # bench's bound of clusters (the header)
  run create-1-tenant "http://127.0.0.1:$API/api/compute/kubernetesClusters/create" create.lua TENANTS=1 TENANT_BASE=8
  # the floor of the creates: their durable writes alone, on a database of their own (ApiBench, CreateWritesFloor)
  PG_MAIN=$PG_FLOOR run create-writes-7 "http://127.0.0.1:$BARE/create-writes" create.lua TENANTS=7
} > "$OUT/results.txt"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
awk 'NR==1 {floor=$2; cpu=$5}
     {printf "| %-18s | %10.0f | %8s | %6.3f | %8s | %6.3f | %8s | %s |\n", $1, $2, $3, $2/floor, $5, cpu/$5, $6, ($4=="0" ? "all 2xx" : $4 " not 2xx")}' "$OUT/results.txt" |
  { echo "| call               |      req/s |      p99 |  ratio | CPU µs/req | CPU ratio | PG CPU µs/req | answers |"; echo "|---|---:|---:|---:|---:|---:|---:|---|"; cat; }
