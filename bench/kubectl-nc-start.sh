#!/bin/sh
# The sign-in plugin's signed-in path (a cached ID token with 15 minutes left) against one shell start
# (the floor), N runs each, in the same run (docs/performance.md, "The sign-in plugin's start").
#   sh bench/kubectl-nc-start.sh adapters-http/src/main/resources/signin/kubectl-nc [N]
# Needs no server: the address it names is never called on this path.
P=${1:?path of kubectl-nc}; N=${2:-50}
export XDG_CACHE_HOME=$(mktemp -d)
S=http://127.0.0.1:1; C=projects/p/locations/l/clusters/c
# a first call makes the cache directory; then a cached token with 15 minutes left
$P token --server $S --client $C >/dev/null 2>&1 </dev/null
f=$(ls "$XDG_CACHE_HOME"/nationalcompute/*.poll 2>/dev/null); [ -n "$f" ] && kill "$(cat "$f")" 2>/dev/null
key=$(printf '%s|%s' "$S" "$C" | tr -c 'A-Za-z0-9._-' '_')
exp=$(( $(date +%s) + 900 ))
printf '%s\n%s\n%s\n%s\n' "$exp" "eyJ.fake.sig" "ncr_x" "$(date -u -d @$exp +%Y-%m-%dT%H:%M:%SZ)" > "$XDG_CACHE_HOME/nationalcompute/$key.token"
t0=$(date +%s%N); i=0; while [ $i -lt $N ]; do sh -c 'exit 0'; i=$((i+1)); done; t1=$(date +%s%N)
i=0; while [ $i -lt $N ]; do $P token --server $S --client $C >/dev/null || exit 1; i=$((i+1)); done; t2=$(date +%s%N)
floor=$(( (t1-t0)/N/1000 )); plugin=$(( (t2-t1)/N/1000 ))
echo "floor (sh -c 'exit 0'): ${floor} us; plugin signed-in path: ${plugin} us; ratio: $(awk "BEGIN{printf \"%.2f\", $plugin/$floor}")"
rm -rf "$XDG_CACHE_HOME"
