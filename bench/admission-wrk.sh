#!/usr/bin/env bash
# The admission webhooks against a bare Javalin HTTPS endpoint, measured with wrk in one run (docs/performance.md).
#   bench/admission-wrk.sh [--db embedded|h2|JDBC_URL] [--seconds 20] [--warmup 10] [--connections 16] [--threads 2]
#                          [--rate 500] [--repeat 1]
# Builds the jar (SKIP_BUILD=1 to reuse it), starts AdmissionBench (the bare endpoint and the server, reconciler off,
# demo catalog, one enrolled cluster, on a fresh database in a temporary directory), then runs wrk over HTTPS on:
#   bare, validate (a GPU Job: reads the market, allowed), mutate (the same Job: a JSONPatch) at full speed, then
#   bare-500 and validate-500: the same two offered --rate requests a second on a fixed schedule (bench/admission.lua),
#   the rate issue 16 asks the p99 at, each --repeat times (bare, validate, bare, validate, ...).
# Prints req/s, p99 and the ratio of each to the bare endpoint of the same load. Needs wrk (apt-get install -y wrk).
set -euo pipefail
cd "$(dirname "$0")/.."
DB="embedded"; SECONDS_EACH=20; WARMUP=10; CONNECTIONS=16; THREADS=2; RATE=500; REPEAT=1
while [ $# -gt 0 ]; do
  case "$1" in
    --db) DB="$2"; shift 2 ;;
    --seconds) SECONDS_EACH="$2"; shift 2 ;;
    --warmup) WARMUP="$2"; shift 2 ;;
    --connections) CONNECTIONS="$2"; shift 2 ;;
    --threads) THREADS="$2"; shift 2 ;;
    --rate) RATE="$2"; shift 2 ;;
    --repeat) REPEAT="$2"; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
source bench/lib.sh
start_bench AdmissionBench
BARE=$(ready_value bare)
ADMISSION=$(ready_value admission)
VALIDATE=$(ready_value validate)
MUTATE=$(ready_value mutate)
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg); db: $DB"
# a Job of 2 pods of 8 GPUs with its own limit price: every rule runs, with the market read
cat > "$OUT/job.json" <<'JSON'
{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"8d4f7c1e-2b3a-4c5d-9e8f-0a1b2c3d4e5f",
 "kind":{"group":"batch","version":"v1","kind":"Job"},"resource":{"group":"batch","version":"v1","resource":"jobs"},
 "requestKind":{"group":"batch","version":"v1","kind":"Job"},"requestResource":{"group":"batch","version":"v1","resource":"jobs"},
 "name":"train","namespace":"default","operation":"CREATE",
 "userInfo":{"username":"system:serviceaccount:default:ci","groups":["system:serviceaccounts","system:authenticated"]},
 "object":{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"train","namespace":"default",
  "labels":{"nationalcompute.com/limit-price":"2.40","app":"train"}},
  "spec":{"parallelism":2,"completions":2,"backoffLimit":3,"template":{"metadata":{"labels":{"app":"train"}},
   "spec":{"restartPolicy":"Never","terminationGracePeriodSeconds":60,"containers":[{"name":"main","image":"ghcr.io/acme/trainer:1.4",
    "command":["python","train.py"],"resources":{"limits":{"nvidia.com/gpu":"8","cpu":"96","memory":"1000Gi"}}}]}}}},
 "oldObject":null,"dryRun":false,"options":{"apiVersion":"meta.k8s.io/v1","kind":"CreateOptions"}}}
JSON

run() { # name url rate (0: full speed)
  local name=$1 url=$2 rate=$3
  if [ "$WARMUP" -gt 0 ]; then
    REVIEW="$OUT/job.json" RATE=$rate THREADS=$THREADS wrk -t"$THREADS" -c"$CONNECTIONS" -d"${WARMUP}s" -s bench/admission.lua "$url" > /dev/null 2>&1
  fi
  REVIEW="$OUT/job.json" RATE=$rate THREADS=$THREADS wrk -t"$THREADS" -c"$CONNECTIONS" -d"${SECONDS_EACH}s" --latency -s bench/admission.lua "$url" > "$OUT/$name.txt" 2>&1
  local rps p50 p99 non2xx
  rps=$(awk '/^Requests\/sec:/ {print $2}' "$OUT/$name.txt")
  p50=$(awk '$1=="50%" {print $2}' "$OUT/$name.txt")
  p99=$(awk '$1=="99%" {print $2}' "$OUT/$name.txt")
  non2xx=$(awk -F= '/^non2xx=/ {print $2}' "$OUT/$name.txt")
  echo "$name $rps $p50 $p99 ${non2xx:-?}"
}
{
  run bare "https://127.0.0.1:$BARE/bare" 0
  run validate "https://127.0.0.1:$ADMISSION$VALIDATE" 0
  run mutate "https://127.0.0.1:$ADMISSION$MUTATE" 0
  for i in $(seq 1 "$REPEAT"); do
    run "bare-$RATE#$i" "https://127.0.0.1:$BARE/bare" "$RATE"
    run "validate-$RATE#$i" "https://127.0.0.1:$ADMISSION$VALIDATE" "$RATE"
  done
} > "$OUT/results.txt"
# one answer, to show what was measured is an allowing review
curl -sk -X POST -H 'Content-Type: application/json' --data-binary @"$OUT/job.json" "https://127.0.0.1:$ADMISSION$VALIDATE"; echo
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
awk '$1=="bare" {floor=$2} $1 ~ /^bare-/ {paced=$2}
     {f = ($1 ~ /#/) ? paced : floor;
      printf "| %-13s | %9.0f | %8s | %8s | %6.3f | %s |\n", $1, $2, $3, $4, $2/f, ($5=="0" ? "all 2xx" : $5 " not 2xx")}' "$OUT/results.txt" |
  { echo "| target        |     req/s |      p50 |      p99 | ratio to bare | answers |"; echo "|---|---:|---:|---:|---:|---|"; cat; }
