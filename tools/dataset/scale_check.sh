#!/usr/bin/env bash
# The issue-16 acceptance run, minus the cluster: the dataset of SPEC (default
# tools/dataset/acceptance_spec.json: 64 items, N = 64 and 128 x 2 LES parameter sets — the 4
# parameter sets — x 16 seeds, 200 steps, a frame every 10, vorticity, E/Z series, proxy z and
# its decodes) is generated with a kill -9 halfway and resumed, verified (4 items regenerated),
# generated again as 4 shards (LES on THREADS threads) and merged, and the merged directory is
# compared byte for byte (diff -r) with the resumed one. Prints the timings; exit 0 only if
# everything matches. The same spec on Slurm: tools/slurm/local_cluster_test.sh DASHI WORK SPEC.
#   tools/dataset/scale_check.sh DASHI WORKDIR [JOBS] [THREADS] [SPEC]
set -uo pipefail
usage="usage: scale_check.sh DASHI WORKDIR [JOBS] [THREADS] [SPEC]"
DASHI="${1:?$usage}"
W="${2:?$usage}"
JOBS="${3:-2}"
THREADS="${4:-2}"
SPEC="${5:-$(cd "$(dirname "$0")" && pwd)/acceptance_spec.json}"
rm -rf "$W"; mkdir -p "$W"
cp "$SPEC" "$W/spec.json" || exit 1
total=$(python3 -c 'import json, sys; s = json.load(open(sys.argv[1])); d = s["seeds"]
print(len(s["n"]) * len(s["les"]) * (d["count"] if isinstance(d, dict) else len(d)))' "$W/spec.json")
half=$((total / 2))
now() { date +%s.%N; }
t0=$(now)
"$DASHI" dataset generate --spec "$W/spec.json" --out "$W/one" --jobs "$JOBS" --quiet &
pid=$!
while [ "$(ls "$W/one/items" 2>/dev/null | grep -vc dashi-partial)" -lt "$half" ]; do
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.05
done
kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
done_at_kill=$(ls "$W/one/items" | grep -vc dashi-partial)
partial_at_kill=$(ls -A "$W/one/items" | grep -c dashi-partial)
echo "killed with $done_at_kill complete items and $partial_at_kill staging directories;" \
     "dataset.json present: $([ -f "$W/one/dataset.json" ] && echo yes || echo no)"
"$DASHI" dataset verify "$W/one" >/dev/null 2>&1 && { echo "FAIL: killed dataset verifies"; exit 1; }
"$DASHI" dataset generate --spec "$W/spec.json" --out "$W/one" --jobs "$JOBS" || exit 1
t1=$(now)
"$DASHI" dataset verify "$W/one" --regenerate 4 --seed 16 || exit 1
t2=$(now)
for i in 0 1 2 3; do
  "$DASHI" dataset generate --spec "$W/spec.json" --out "$W/shard$i" --shard "$i/4" \
    --threads "$THREADS" --quiet &
done
wait
"$DASHI" dataset merge "$W/merged" "$W/shard3" "$W/shard1" "$W/shard0" "$W/shard2" || exit 1
t3=$(now)
diff -r "$W/one" "$W/merged" && echo "merged 4 shards == killed+resumed one-process run (diff -r)" \
  || { echo "FAIL: merged differs"; exit 1; }
echo "dataset size: $(du -sb "$W/one" | cut -f1) bytes, $(ls "$W/one/items" | wc -l) items"
awk -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" 'BEGIN {
  printf "generate (with kill+resume, jobs %s): %.1f s; verify --regenerate 4: %.1f s; 4 shards in parallel + merge: %.1f s\n", "'"$JOBS"'", b - a, c - b, d - c }'
