#!/usr/bin/env bash
# Builds every libFuzzer target of //fuzz with clang-14 (libFuzzer + ASan + UBSan, `--config=fuzz`
# in an output base of its own) and runs each for SECONDS, JOBS at a time.
#
# Usage: fuzz/run_fuzzers.sh [SECONDS] [OUTDIR] [TARGET...]
#   fuzz/run_fuzzers.sh            # every target for 60 s
#   fuzz/run_fuzzers.sh 600        # every target for 10 minutes
#   fuzz/run_fuzzers.sh 600 out/fuzz npy_fuzz chain_json_fuzz
#   JOBS=6 fuzz/run_fuzzers.sh 600 # six at once (default: the number of cores)
#   BUILD_ONLY=1 fuzz/run_fuzzers.sh   # build, copy the binaries to OUTDIR/bin, stop
#   NO_BUILD=1 fuzz/run_fuzzers.sh 600 DIR   # run binaries already in DIR/bin (another machine)
# OUTDIR (default out/fuzz) gets bin/ (the fuzzers), <target>/corpus (the working corpus, seeded
# from fuzz/corpus/<target>/, kept between runs), <target>/fuzz.log and crash-*/leak-*/timeout-*
# artifacts, and summary.txt: per target its executions, exec/s, corpus size and findings.
# Exit status: 0 when no target found anything. Reproduce a finding:
#   OUTDIR/bin/<target> OUTDIR/<target>/crash-<hash>
# A finding, once fixed, goes into fuzz/corpus/<target>/ so `bazel test //fuzz/...` replays it.
set -uo pipefail

SECONDS_TO_RUN="${1:-60}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUTDIR="${2:-$ROOT/out/fuzz}"
shift 2 2>/dev/null || shift $#
ALL=(npy_fuzz proxy_json_fuzz golden_manifest_fuzz chain_json_fuzz cert_record_fuzz cli_args_fuzz)
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=("${ALL[@]}")
JOBS="${JOBS:-$(nproc)}"

if ! [[ "$SECONDS_TO_RUN" =~ ^[0-9]+$ ]]; then
  echo "usage: $0 [SECONDS] [OUTDIR] [TARGET...]" >&2
  exit 2
fi
mkdir -p "$OUTDIR/bin"
OUTDIR="$(cd "$OUTDIR" && pwd)"

if [ -z "${NO_BUILD:-}" ]; then
  labels=()
  for t in "${TARGETS[@]}"; do labels+=("//fuzz:$t"); done
  echo "run_fuzzers: building ${TARGETS[*]} with clang-14 (--config=fuzz)"
  cd "$ROOT"
  BAZEL=(bazel --output_base="${FUZZ_OUTPUT_BASE:-$HOME/.cache/dashi-fuzz-bazel}")
  "${BAZEL[@]}" build --config=fuzz --symlink_prefix=/ "${labels[@]}" || exit 1
  bin="$("${BAZEL[@]}" info --config=fuzz bazel-bin 2>/dev/null)"
  for t in "${TARGETS[@]}"; do install -m 0755 "$bin/fuzz/$t" "$OUTDIR/bin/$t"; done
fi
[ -z "${BUILD_ONLY:-}" ] || { echo "run_fuzzers: binaries in $OUTDIR/bin"; exit 0; }

# Options per target: input size caps that fit what each parser reads; the CLI prints help and
# usage errors, so its stdout and stderr are closed.
options_for() {
  case "$1" in
    npy_fuzz) echo "-max_len=12288" ;;
    cli_args_fuzz) echo "-max_len=512 -close_fd_mask=3" ;;
    *) echo "-max_len=65536" ;;
  esac
}

run_one() {
  local t=$1 dir="$OUTDIR/$1"
  mkdir -p "$dir/corpus"
  local seeds="$ROOT/fuzz/corpus/$t"
  [ -d "$seeds" ] || seeds="$OUTDIR/seeds/$t"  # NO_BUILD on another machine: seeds copied there
  # shellcheck disable=SC2046
  ASAN_OPTIONS="detect_leaks=1:abort_on_error=1" \
  UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
    "$OUTDIR/bin/$t" "$dir/corpus" "$seeds" $(options_for "$t") \
      -max_total_time="$SECONDS_TO_RUN" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$dir/" >"$dir/fuzz.log" 2>&1
  echo $? >"$dir/status"
}

echo "run_fuzzers: ${#TARGETS[@]} targets for ${SECONDS_TO_RUN}s each, $JOBS at a time"
running=0
for t in "${TARGETS[@]}"; do
  run_one "$t" &
  running=$((running + 1))
  if [ "$running" -ge "$JOBS" ]; then wait -n; running=$((running - 1)); fi
done
wait

found=0
{
  printf '%-22s %14s %10s %8s %s\n' target executions exec/s corpus result
  for t in "${TARGETS[@]}"; do
    dir="$OUTDIR/$t"
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/fuzz.log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$dir/fuzz.log" | tail -1)
    corpus=$(find "$dir/corpus" -type f | wc -l)
    status=$(cat "$dir/status" 2>/dev/null || echo "?")
    result="no findings"
    if [ "$status" != 0 ]; then
      result="FINDING (exit $status): $(ls "$dir" | grep -E '^(crash|leak|timeout|oom)-' | tr '\n' ' ')"
      found=1
    fi
    printf '%-22s %14s %10s %8s %s\n' "$t" "${execs:-?}" "${rate:-?}" "$corpus" "$result"
  done
} | tee "$OUTDIR/summary.txt"
exit "$found"
