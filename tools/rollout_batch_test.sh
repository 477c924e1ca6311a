#!/usr/bin/env bash
# `dashi rollout --z0` with a [B, D] array (issue 13 #4), through the real binary, on the
# reference and on Vulkan (lavapipe in CI, with the validation layer): every row's final state
# and chain equal those of a single `dashi rollout` of that row, bit for bit, on both backends;
# --save-every writes [T, B, D]; bad shapes, --expect-chain with a batch or of a batched chain are
# refused by name; a record of another z0 (z0_hash) is a divergence before any step.
set -uo pipefail
export LC_ALL=C
DASHI="$(cd "$(dirname "$0")" && pwd)/dashi"
[ -x "$DASHI" ] || DASHI="$TEST_SRCDIR/$TEST_WORKSPACE/tools/dashi"
T="${TEST_TMPDIR:-$(mktemp -d)}/rollout_batch"
rm -rf "$T"; mkdir -p "$T"
export DASHI_CERT_STORE="$T/store"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# A learned A and a [6, D] block of states from a small run (its z_rollout.npy: eval steps 0..5).
"$DASHI" run --quiet --n 32 --k-lo 4 --k-mid 8 --anchors 4 --train-steps 20 --eval-steps 5 \
  --sample-every 2 --observer none --out "$T/run" >/dev/null || { echo "FAIL: run"; exit 1; }
Z="$T/run/z_rollout.npy"; A="$T/run/A.npy"

# Bytes of an .npy after its header (NPY 1.0: 10 bytes + the header length at offset 8).
data_offset() { echo $((10 + $(od -An -tu2 -j8 -N2 "$1" | tr -d ' '))); }
# Row b of a [B, D] float64 .npy as a [D] .npy.
row_npy() {  # src b dim dst
  local off hdr pad
  off=$(data_offset "$1")
  hdr="{'descr': '<f8', 'fortran_order': False, 'shape': ($3,), }"
  pad=$(( (64 - (10 + ${#hdr} + 1) % 64) % 64 ))
  { printf '\x93NUMPY\x01\x00'; printf "\\x$(printf %02x $(( (${#hdr} + pad + 1) % 256 )))\\x$(printf %02x $(( (${#hdr} + pad + 1) / 256 )))";
    printf '%s%*s\n' "$hdr" "$pad" ""; dd if="$1" bs=8 skip=$(( (off / 8) + $2 * $3 )) count="$3" status=none 2>/dev/null; } > "$4"
}
# Data offset must be a multiple of 8 for the dd above (NPY pads headers to 64).
[ $(( $(data_offset "$Z") % 8 )) = 0 ] || { echo "FAIL: unexpected npy header"; exit 1; }
dim=$(sed -n 's/.*shape.: (\([0-9]*\), \([0-9]*\)).*/\2/p' <(head -c 128 "$Z" | tr -d '\0'))
[ -n "$dim" ] || { echo "FAIL: no D in $Z's header"; exit 1; }

for backend in ref vulkan; do
  mkdir -p "$T/$backend"
  flags=(--backend "$backend")
  [ "$backend" = vulkan ] && flags+=(--allow-uncertified --validation)
  "$DASHI" rollout --z0 "$Z" --a "$A" --steps 37 --hash-every 5 --save-every 4 \
    --out "$T/$backend/batch.npy" "${flags[@]}" > "$T/$backend.log" 2>&1 || {
    fail "$backend: batched rollout failed: $(tail -3 "$T/$backend.log")"; continue; }
  grep -q '"batch": 6' "$T/$backend/batch.chain.json" || fail "$backend: chain file has no batch 6"
  grep -q "'shape': (6, $dim)" <(head -c 128 "$T/$backend/batch.npy") ||
    fail "$backend: zT.npy is not [6, $dim]"
  grep -q "'shape': (11, 6, $dim)" <(head -c 128 "$T/$backend/batch.trajectory.npy") ||
    fail "$backend: trajectory is not [11, 6, $dim] (steps 0, 4, ..., 36 and 37)"
  boff=$(data_offset "$T/$backend/batch.npy")
  for b in 0 3 5; do
    row_npy "$Z" "$b" "$dim" "$T/$backend/z0_$b.npy"
    "$DASHI" rollout --z0 "$T/$backend/z0_$b.npy" --a "$A" --steps 37 --hash-every 5 \
      --out "$T/$backend/single_$b.npy" "${flags[@]}" > /dev/null 2>&1 ||
      { fail "$backend: single rollout of row $b failed"; continue; }
    single=$(sed -n 's/.*"final_link": "\([0-9a-f]*\)".*/\1/p' "$T/$backend/single_$b.chain.json" | head -1)
    batched=$(tr -d ' \n' < "$T/$backend/batch.chain.json" | grep -o '"final_links":\[[^]]*\]' |
              tr -d '"[]' | cut -d: -f2 | cut -d, -f$((b + 1)))
    [ -n "$single" ] && [ "$single" = "$batched" ] ||
      fail "$backend: row $b final link '$batched' vs single rollout '$single'"
    soff=$(data_offset "$T/$backend/single_$b.npy")
    cmp -s <(tail -c +$((soff + 1)) "$T/$backend/single_$b.npy") \
           <(dd if="$T/$backend/batch.npy" bs=8 skip=$(( boff / 8 + b * dim )) count="$dim" status=none) ||
      fail "$backend: row $b final state differs from its single rollout"
  done
done
# The two backends agree bit for bit.
cmp -s "$T/ref/batch.npy" "$T/vulkan/batch.npy" || fail "ref and vulkan batched final states differ"

# Refusals: a rank-3 z0, a D that does not match A, --expect-chain with a batch.
"$DASHI" rollout --z0 "$T/ref/batch.trajectory.npy" --a "$A" --out "$T/bad.npy" > /dev/null 2> "$T/err1"
[ $? = 1 ] && grep -q "expected rank 1 or 2" "$T/err1" || fail "rank-3 z0: $(cat "$T/err1")"
"$DASHI" rollout --z0 "$Z" --a "$A" --expect-chain "$T/ref/single_0.chain.json" --out "$T/bad.npy" \
  > /dev/null 2> "$T/err2"
[ $? = 1 ] && grep -q "expect-chain replays one recorded trajectory" "$T/err2" ||
  fail "--expect-chain with a batch: $(cat "$T/err2")"
# A batched chain as the record of a single replay: named as a batched chain of 6 trajectories.
"$DASHI" rollout --z0 "$T/ref/z0_0.npy" --a "$A" --steps 37 --hash-every 5 \
  --expect-chain "$T/ref/batch.chain.json" --out "$T/bad.npy" > /dev/null 2> "$T/err3"
[ $? = 1 ] && grep -q "batch.chain.json: a batched chain of 6 trajectories" "$T/err3" ||
  fail "--expect-chain of a batched chain: $(cat "$T/err3")"
# A record of another z0 (its z0_hash): a divergence (exit 3) before any step, nothing written.
"$DASHI" rollout --z0 "$T/ref/z0_3.npy" --a "$A" --steps 37 --hash-every 5 \
  --expect-chain "$T/ref/single_0.chain.json" --out "$T/bad.npy" > "$T/out4" 2>&1
rc=$?
[ "$rc" = 3 ] && grep -q "replay DIVERGES from .*single_0.chain.json: z0_hash [0-9a-f]\{32\} where the record has" "$T/out4" ||
  fail "--expect-chain of another z0: exit $rc, $(cat "$T/out4")"
"$DASHI" rollout --z0 "$T/ref/z0_0.npy" --a "$A" --steps 37 --hash-every 5 \
  --expect-chain "$T/ref/single_0.chain.json" --out "$T/good.npy" > "$T/out5" 2>&1 &&
  grep -q "replay REPRODUCES" "$T/out5" || fail "--expect-chain of its own inputs: $(cat "$T/out5")"
[ ! -e "$T/bad.npy" ] || fail "a refused rollout left an output"

if [ "$failures" -gt 0 ]; then echo "$failures failure(s)"; exit 1; fi
echo "PASS"
