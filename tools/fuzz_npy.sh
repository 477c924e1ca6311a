#!/usr/bin/env bash
# Fuzzes the .npy reader/writer (core_ref/npy) with libFuzzer + ASan + UBSan.
#
# Usage: tools/fuzz_npy.sh [SECONDS] [OUTDIR]
#   tools/fuzz_npy.sh          # 60 seconds
#   tools/fuzz_npy.sh 600      # 10 minutes
# SECONDS (default 60) is passed to -max_total_time. OUTDIR (default out/fuzz_npy) receives the
# binary, the working corpus (seeded from core_ref/npy/fuzz_corpus/, kept between runs), the
# dictionary, crash artifacts (crash-*, leak-*, timeout-*) and fuzz.log.
# Needs clang-14 and libclang-rt-14-dev (tools/setup.sh installs them). Run from anywhere.
# Exit status: 0 when the run finished without a finding, libFuzzer's non-zero status otherwise.
# Reproduce a finding: OUTDIR/npy_fuzz OUTDIR/crash-<hash>
set -euo pipefail

SECONDS_TO_RUN="${1:-60}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUTDIR="${2:-$ROOT/out/fuzz_npy}"
CXX="${CXX_FUZZ:-clang++-14}"

if ! [[ "$SECONDS_TO_RUN" =~ ^[0-9]+$ ]]; then
  echo "usage: $0 [SECONDS] [OUTDIR]" >&2
  exit 2
fi
mkdir -p "$OUTDIR/corpus"
OUTDIR="$(cd "$OUTDIR" && pwd)"

echo "fuzz_npy: building $OUTDIR/npy_fuzz with $CXX"
cd "$ROOT"
"$CXX" -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -ffp-contract=off -I. \
  core_ref/npy/npy.cc core_ref/status/status.cc core_ref/npy/npy_fuzz.cc \
  core_ref/fileio/atomic_file.cc core_ref/fileio/errno_status.cc \
  -o "$OUTDIR/npy_fuzz"

# Seeds: the checked-in valid files (read-only second corpus dir); new inputs go to corpus/.
SEEDS="$ROOT/core_ref/npy/fuzz_corpus"

# Tokens of the header grammar, to get past the magic and the dict syntax quickly.
cat > "$OUTDIR/npy.dict" <<'DICT'
magic="\x93NUMPY"
v1="\x01\x00"
v2="\x02\x00"
v3="\x03\x00"
descr="'descr'"
fortran="'fortran_order'"
shape="'shape'"
true="True"
false="False"
f8="'<f8'"
f4="'<f4'"
i1="'|i1'"
u1="'|u1'"
i4="'<i4'"
i8="'<i8'"
u8="'<u8'"
bigdim="9223372036854775807"
negdim="-1"
empty_tuple="()"
one_tuple="(1,)"
DICT

echo "fuzz_npy: running for ${SECONDS_TO_RUN}s (log: $OUTDIR/fuzz.log)"
set +e
ASAN_OPTIONS="detect_leaks=1:abort_on_error=1" \
UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
  "$OUTDIR/npy_fuzz" "$OUTDIR/corpus" "$SEEDS" \
  -dict="$OUTDIR/npy.dict" \
  -max_total_time="$SECONDS_TO_RUN" \
  -max_len=12288 \
  -timeout=10 \
  -rss_limit_mb=2048 \
  -print_final_stats=1 \
  -artifact_prefix="$OUTDIR/" >"$OUTDIR/fuzz.log" 2>&1
status=$?
set -e

grep -E '^#[0-9]+[[:space:]]+(INITED|DONE)' "$OUTDIR/fuzz.log" || true
grep -E '^stat::' "$OUTDIR/fuzz.log" || true
if [ "$status" -ne 0 ]; then
  echo "fuzz_npy: FINDING (exit $status); see $OUTDIR/fuzz.log and $OUTDIR/crash-* / leak-*" >&2
  tail -n 40 "$OUTDIR/fuzz.log" >&2
  exit "$status"
fi
echo "fuzz_npy: no findings in ${SECONDS_TO_RUN}s"
