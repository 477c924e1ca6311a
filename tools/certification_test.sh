#!/usr/bin/env bash
# Certifications through the real binary on the default Vulkan device (lavapipe in CI): `dashi
# conform` certifies; `dashi rollout --backend vulkan` then runs; and it refuses, naming the file
# and the problem, an edited certification (every case FAIL, the verdict left PASS), a
# hand-written three-field file, and the record of an older accelerator build.
set -uo pipefail
DASHI="$(cd "$(dirname "$0")" && pwd)/dashi"
[ -x "$DASHI" ] || DASHI="$TEST_SRCDIR/$TEST_WORKSPACE/tools/dashi"
T="${TEST_TMPDIR:-$(mktemp -d)}/certification"
rm -rf "$T"; mkdir -p "$T"
S="$T/store"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# Inputs for a rollout: a small run on the reference.
"$DASHI" run --quiet --n 32 --k-lo 4 --k-mid 8 --anchors 4 --train-steps 4 --eval-steps 4 \
  --sample-every 4 --observer none --out "$T/run" >/dev/null || fail "reference run failed"
rollout() {
  "$DASHI" rollout --backend vulkan --validation --cert-store "$S" --z0 "$T/run/z0.npy" \
    --a "$T/run/A.npy" --steps 20 --out "$T/zT.npy"
}

GOLDEN="$(cd "$(dirname "$0")/../golden" 2>/dev/null && pwd)"
[ -f "$GOLDEN/manifest.json" ] || GOLDEN="$TEST_SRCDIR/$TEST_WORKSPACE/golden"
if ! "$DASHI" conform --golden-dir "$GOLDEN" --cert-store "$S" --out "$T/report.json" >"$T/conform.log" 2>&1; then
  grep -vE " PASS " "$T/conform.log" | tail -30
  echo "FAIL: dashi conform did not certify the default device (no Vulkan driver?)"
  exit 1
fi
record=$(ls "$S"/*.json)
[ "$(echo "$record" | wc -l)" = 1 ] || fail "expected one record, found: $record"
[ "$(stat -c %a "$S/store.key")" = 600 ] || fail "store.key mode $(stat -c %a "$S/store.key")"
grep -q '"mac": "' "$record" || fail "the record carries no MAC"
cp "$record" "$T/genuine.json"

rollout >/dev/null 2>"$T/err" || fail "a certified device was refused: $(cat "$T/err")"

expect_refused() {  # $1: what, $2: text the message must hold
  local out rc
  out=$(rollout 2>&1 >/dev/null); rc=$?
  [ "$rc" = 1 ] || fail "$1: exit $rc, expected 1"
  grep -q "uncertified" <<<"$out" || fail "$1: not reported as uncertified: $out"
  grep -qF -- "$2" <<<"$out" || fail "$1: message lacks '$2': $out"
}

# 1. Every case FAIL, the overall verdict left PASS (case verdicts are indented by six spaces).
sed 's/^      "verdict": "PASS"/      "verdict": "FAIL"/' "$T/genuine.json" >"$record"
grep -q '^  "verdict": "PASS"' "$record" || fail "the edit touched the overall verdict"
expect_refused "edited record" "the MAC does not match"

# 2. A hand-written three-field file in its place.
uuid=$(sed -n 's/.*"uuid": "\([^"]*\)".*/\1/p' "$T/genuine.json" | head -1)
printf '{"device": {"uuid": "%s", "driver_version": 1}, "verdict": "PASS", "suite_id": "x"}\n' \
  "$uuid" >"$record"
expect_refused "hand-written record" "no MAC"

# 3. The genuine record of an older accelerator build (its id in the name differs).
rm -f "$record"
old_name=$(basename "$record" | sed 's/_[0-9a-f]\{32\}_\([0-9a-f]\{32\}\)\.json$/_00000000000000000000000000000000_\1.json/')
cp "$T/genuine.json" "$S/$old_name"
expect_refused "older build" "record(s) of this device for other drivers, builds or suites"

# 4. The genuine record back: certified again.
cp "$T/genuine.json" "$record"
rollout >/dev/null 2>"$T/err" || fail "the genuine record no longer certifies: $(cat "$T/err")"

if [ "$failures" -ne 0 ]; then echo "$failures failure(s)"; exit 1; fi
echo "certification: all checks passed"
