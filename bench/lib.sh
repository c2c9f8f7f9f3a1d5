# Shared by bench/api-wrk.sh and bench/admission-wrk.sh (sourced, not run).
# start_bench CLASS: builds the jars unless SKIP_BUILD=1 or BENCH_JAR=path (a server jar built before), starts the bench
# CLASS (com.bettercompute.bootstrap.load.*, from bootstrap/load/target/better-compute-load.jar, on the server jar)
# with --db "$DB" on a fresh temporary directory, and waits for its "ready …" line. Sets OUT (the temporary
# directory, removed at exit), PID (the bench's JVM) and READY (the ready line). The bench serves until the
# script exits (its standard input, a FIFO held open here, closes).
start_bench() {
  local class=$1
  local jar=${BENCH_JAR:-bootstrap/target/better-compute.jar}
  local runners=bootstrap/load/target/better-compute-load.jar
  if { [ -z "${BENCH_JAR:-}" ] && { [ "${SKIP_BUILD:-0}" != "1" ] || [ ! -f "$jar" ]; }; } || [ ! -f "$runners" ]; then
    mvn -B -q package -DskipTests -pl bootstrap/load -am
  fi
  OUT=$(mktemp -d)
  local fifo="$OUT/stdin"; mkfifo "$fifo"
  java ${JAVA_OPTS:-} -cp "$jar:$runners" "com.bettercompute.bootstrap.load.$class" --db "$DB" < "$fifo" > "$OUT/bench.log" 2>&1 &
  PID=$!
  exec 3> "$fifo"
  trap 'exec 3>&-; wait $PID 2>/dev/null || true; rm -rf "$OUT"' EXIT
  for _ in $(seq 1 120); do
    grep -q '^ready ' "$OUT/bench.log" && break
    kill -0 $PID 2>/dev/null || { cat "$OUT/bench.log"; exit 1; }
    sleep 1
  done
  READY=$(grep '^ready ' "$OUT/bench.log") || { cat "$OUT/bench.log"; exit 1; }
}
# ready_value KEY: the value of key=value in the ready line
ready_value() { sed -E "s/.* $1=([^ ]+).*/\\1/" <<<"$READY"; }
