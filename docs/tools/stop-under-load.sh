#!/bin/bash
# SIGTERM under load: time from the signal to the exit, the exit code, ERROR lines, leases left.
# usage: docs/tools/stop-under-load.sh JAR CATALOG [DB_URL]   (the catalog must have alice-token on tenant acme, e.g.
#        bootstrap/src/test/resources/e2e-catalog.yaml)
JAR=$1; CATALOG=$2; DIR=$(mktemp -d); DB=${3:-jdbc:h2:file:$DIR/bc}
java -jar "$JAR" --port 0 --db "$DB" --catalog "$CATALOG" --sim-operation-seconds 1 \
  --reconcile-converging-seconds 1 --reconcile-settled-seconds 1 --replica-id stop-run > "$DIR/out.log" 2>&1 &
PID=$!
until grep -q "listening on" "$DIR/out.log"; do sleep 0.2; done
PORT=$(grep -o "listening on http://127.0.0.1:[0-9]*" "$DIR/out.log" | grep -o "[0-9]*$")
API=http://127.0.0.1:$PORT/api/compute/kubernetesClusters
for i in $(seq 0 9); do
  curl -s -o /dev/null -H "Authorization: Bearer alice-token" -H "Content-Type: application/json" -d "{\"tenantId\":\"acme\",\"poolId\":\"pool_01hzx8k3v4w5y6z7a8b9c0d1e2\",\"name\":\"s$i\",\"mode\":\"autopilot\",\"location\":\"us-central1\",\"idempotencyKey\":\"s$i\"}" $API/create
done
for t in 1 2 3 4; do (while kill -0 $PID 2>/dev/null; do curl -s -o /dev/null -H "Authorization: Bearer alice-token" -H "Content-Type: application/json" -d '{"tenantId":"acme"}' $API/list; done) & done
sleep 10
curl -s http://127.0.0.1:$PORT/metrics | grep '^bc_reconcile_passes_seconds_count'
START=$(date +%s%N); kill -TERM $PID; wait $PID; CODE=$?; END=$(date +%s%N)
echo "exit code $CODE after $(( (END-START)/1000000 )) ms; ERROR lines: $(grep -c ERROR $DIR/out.log)"
wait
case "$DB" in jdbc:h2:*) java -cp "$JAR" org.h2.tools.Shell -url "$DB;MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE" \
  -sql "SELECT COUNT(*) AS clusters, COUNT(lease_owner) AS leased FROM clusters";; esac
