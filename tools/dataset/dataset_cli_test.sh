#!/usr/bin/env bash
# `dashi dataset` through the real binary (README "Datasets"): generate a small dataset, kill -9
# a second run midway and resume it, verify (with regeneration), shard 2-way and merge, and
# compare every byte with the one-process run; the kept decodes equal `dashi decode` of the
# item's z; bad input exits 1 naming the file; an output inside an input dataset and a re-shard are
# refused; a symlinked item is regenerated in place; a second run on a busy --out is refused.
set -uo pipefail
DASHI="$TEST_SRCDIR/$TEST_WORKSPACE/tools/dashi"
[ -x "$DASHI" ] || DASHI="$(cd "$(dirname "$0")/.." && pwd)/dashi"
T="${TEST_TMPDIR:-$(mktemp -d)}/dataset_cli"
rm -rf "$T"; mkdir -p "$T"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

cat >"$T/spec.json" <<'JSON'
{"format": "dashi-dataset-spec/1", "n": [32], "seeds": {"first": 1, "count": 4},
 "les": [{"nu0": 1e-3}, {"nu0": 5e-4, "cs": 0.1}], "steps": 40, "save_every": 10,
 "keep": {"vorticity": true, "series": true, "proxy": {"k_lo": 4, "k_mid": 8, "anchors": 4},
          "decodes": true}}
JSON
# Enough steps that a run can be killed while it works.
sed 's/"steps": 40/"steps": 4000/' "$T/spec.json" >"$T/long.json"

# 1. One process, two jobs.
"$DASHI" dataset generate --spec "$T/spec.json" --out "$T/one" --jobs 2 --quiet >/dev/null \
  || fail "generate failed"
[ -f "$T/one/dataset.json" ] || fail "no dataset.json"
[ "$(ls "$T/one/items" | wc -l)" = 8 ] || fail "expected 8 items: $(ls "$T/one/items")"
"$DASHI" dataset verify "$T/one" --regenerate 3 --seed 7 >"$T/verify.txt" 2>&1 \
  || fail "verify failed: $(cat "$T/verify.txt")"
grep -q "8 items checked, 3 regenerated identical, 0 problems" "$T/verify.txt" \
  || fail "verify output: $(cat "$T/verify.txt")"

# keep.decodes: row F of omega_decoded.npy is `dashi decode --frame F` of the item's z (same bytes).
I1="$T/one/items/n32_p1_s3"
"$DASHI" decode --z "$I1/z.npy" --proxy "$I1/proxy.json" --frame 2 --no-png --out-dir "$T/dec2" \
  >/dev/null || fail "dashi decode of a dataset item failed"
cmp -s <(tail -c +129 "$T/dec2/omega.npy") \
  <(tail -c +$((128 + 2 * 32 * 32 * 8 + 1)) "$I1/omega_decoded.npy" | head -c $((32 * 32 * 8))) \
  || fail "omega_decoded.npy frame 2 != dashi decode --frame 2"
cmp -s <(tail -c +129 "$T/dec2/omega.npy") \
  <(tail -c +$((128 + 1 * 32 * 32 * 8 + 1)) "$I1/omega_decoded.npy" | head -c $((32 * 32 * 8))) \
  && fail "omega_decoded.npy frames 1 and 2 are the same"

# 2. kill -9 midway: nothing that looks complete is left, the resumed run completes.
"$DASHI" dataset generate --spec "$T/long.json" --out "$T/killed" --quiet >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 600); do
  [ "$(ls "$T/killed/items" 2>/dev/null | wc -l)" -ge 2 ] && break
  sleep 0.1
done
kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
[ ! -f "$T/killed/dataset.json" ] || fail "a killed run left dataset.json"
"$DASHI" dataset verify "$T/killed" >/dev/null 2>&1 && fail "a killed run verifies"
"$DASHI" dataset generate --spec "$T/long.json" --out "$T/killed" --quiet >"$T/resume.txt" 2>&1 \
  || fail "resume failed: $(cat "$T/resume.txt")"
grep -q "already complete" "$T/resume.txt" || fail "resume output: $(cat "$T/resume.txt")"
"$DASHI" dataset verify "$T/killed" >/dev/null 2>&1 || fail "resumed dataset does not verify"
ls -A "$T/killed/items" | grep -q dashi-partial && fail "staging directory left after resume"

# 3. A simulated kill of the short run (leftover staging directory, item and manifest gone).
HOSTPART=$(hostname | tr -c "A-Za-z0-9_\n-" "-" | cut -c1-32)
cp -r "$T/one" "$T/sim"
rm -rf "$T/sim/items/n32_p1_s2" "$T/sim/dataset.json"
mkdir "$T/sim/items/.n32_p1_s2.dashi-partial.$HOSTPART.999999.0123456789abcdef"
echo junk >"$T/sim/items/.n32_p1_s2.dashi-partial.$HOSTPART.999999.0123456789abcdef/omega.npy"
"$DASHI" dataset generate --spec "$T/spec.json" --out "$T/sim" --quiet >"$T/sim.txt" 2>&1 \
  || fail "resume of the simulated kill failed: $(cat "$T/sim.txt")"
grep -q "1 generated, 7 already complete" "$T/sim.txt" || fail "sim resume: $(cat "$T/sim.txt")"
# The staging directory it removed is named on stderr, even with --quiet (it was removed silently).
grep -qF "dataset: removed $T/sim/items/.n32_p1_s2.dashi-partial.$HOSTPART.999999.0123456789abcdef, the unfinished item of a killed earlier run" "$T/sim.txt" ||
  fail "sim resume did not name the staging directory it removed: $(cat "$T/sim.txt")"
diff -r "$T/one" "$T/sim" >/dev/null || fail "resumed dataset differs from the one-process run"

# 4. Two shards (each LES on 3 threads), merged: byte-identical to the one-process run.
for i in 0 1; do
  "$DASHI" dataset generate --spec "$T/spec.json" --out "$T/shard$i" --shard "$i/2" --threads 3 --quiet \
    >/dev/null || fail "shard $i failed"
done
"$DASHI" dataset merge "$T/merged" "$T/shard1" "$T/shard0" >/dev/null || fail "merge failed"
diff -r "$T/one" "$T/merged" >/dev/null || fail "merged shards differ from the one-process run"
for f in dataset.json spec.json items/n32_p0_s1/omega.npy items/n32_p1_s4/z.npy \
         items/n32_p1_s4/omega_decoded.npy; do
  cmp -s "$T/one/$f" "$T/merged/$f" || fail "cmp $f"
done

# 5. Bad input: exit 1 and a message naming the file.
echo '{"format": "dashi-dataset-spec/1", "n": [33]}' >"$T/bad.json"
err=$("$DASHI" dataset generate --spec "$T/bad.json" --out "$T/bad" 2>&1 >/dev/null); rc=$?
[ "$rc" = 1 ] || fail "bad spec: exit $rc"
grep -q "bad.json" <<<"$err" || fail "bad spec message: $err"
printf 'garbage' >>"$T/merged/items/n32_p0_s3/energy.npy"
err=$("$DASHI" dataset verify "$T/merged" 2>&1 >/dev/null); rc=$?
[ "$rc" = 1 ] || fail "corrupt dataset: exit $rc"
grep -q "n32_p0_s3/energy.npy" <<<"$err" || fail "corrupt dataset message: $err"
err=$("$DASHI" dataset generate --spec "$T/spec.json" --out "$T/big" --max-disk 10K 2>&1 >/dev/null); rc=$?
[ "$rc" = 1 ] || fail "max-disk: exit $rc"
grep -q "estimated at" <<<"$err" || fail "max-disk message: $err"
"$DASHI" dataset generate --spec "$T/spec.json" --out "$T/x" --shard 2/2 >/dev/null 2>&1
[ "$?" = 2 ] || fail "--shard 2/2 accepted, or not as a flag error (exit 2)"

# 6. An output inside an input dataset (exit 2, a command-line error), and a complete dataset
#    re-sharded (exit 1), are refused before any work, both named, and change nothing.
sums() { (cd "$1" && find . -type f | sort | xargs md5sum); }
before0=$(sums "$T/shard0"); before1=$(sums "$T/one")
err=$("$DASHI" dataset merge "$T/shard0/items/inner" "$T/shard0" "$T/shard1" 2>&1 >/dev/null); rc=$?
[ "$rc" = 2 ] || fail "merge into a shard's items: exit $rc"
grep -qF "INVALID_ARGUMENT: merge OUT $T/shard0/items/inner is inside shard directory $T/shard0" <<<"$err" ||
  fail "merge into a shard's items: message '$err'"
[ ! -e "$T/shard0/items/inner" ] || fail "merge into a shard's items created it"
err=$("$DASHI" dataset generate --spec "$T/spec.json" --out "$T/shard0/items/inner" --quiet 2>&1 >/dev/null); rc=$?
[ "$rc" = 2 ] || fail "generate into a dataset's items: exit $rc"
grep -qF "is inside the dataset $T/shard0" <<<"$err" || fail "generate into a dataset's items: '$err'"
err=$("$DASHI" dataset generate --spec "$T/spec.json" --out "$T/one" --shard 1/3 --quiet 2>&1 >/dev/null); rc=$?
[ "$rc" = 1 ] || fail "re-shard: exit $rc"
grep -qF "$T/one holds shard 0/1 of this spec ($T/one/dataset.json), not --shard 1/3" <<<"$err" ||
  fail "re-shard: message '$err'"
[ "$(sums "$T/shard0")" = "$before0" ] && [ "$(sums "$T/one")" = "$before1" ] ||
  fail "a refused merge/generate changed an input dataset"

# 7. An item directory that is a symbolic link is regenerated in place on resume: the link is
#    removed, its target (outside the dataset) left byte for byte as it was.
cp -r "$T/one" "$T/linked"
mv "$T/linked/items/n32_p0_s2" "$T/moved_item"
ln -s "$T/moved_item" "$T/linked/items/n32_p0_s2"
moved_before=$(sums "$T/moved_item")
"$DASHI" dataset generate --spec "$T/spec.json" --out "$T/linked" >"$T/linked.txt" 2>&1 \
  || fail "resume over a symlinked item failed: $(cat "$T/linked.txt")"
grep -qF "$T/linked/items/n32_p0_s2 was a symbolic link (to $T/moved_item)" "$T/linked.txt" ||
  fail "symlinked item: no notice: $(cat "$T/linked.txt")"
[ -d "$T/linked/items/n32_p0_s2" ] && [ ! -L "$T/linked/items/n32_p0_s2" ] ||
  fail "symlinked item: not a directory of its own after the resume"
[ "$(sums "$T/moved_item")" = "$moved_before" ] || fail "symlinked item: the link's target changed"
diff -r "$T/one" "$T/linked" >/dev/null || fail "symlinked item: resumed dataset differs"

# 8. Two runs writing one --out at once: the second is refused (exit 1, naming the directory) and
#    the first completes.
"$DASHI" dataset generate --spec "$T/long.json" --out "$T/busy" --quiet >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 600); do [ -f "$T/busy/spec.json" ] && break; sleep 0.05; done
err=$("$DASHI" dataset generate --spec "$T/long.json" --out "$T/busy" --shard 1/2 --quiet 2>&1 >/dev/null); rc=$?
[ "$rc" = 1 ] || fail "a second run on a busy --out: exit $rc ($err)"
grep -qF "$T/busy: another \`dashi dataset generate\` is writing this directory now" <<<"$err" ||
  fail "a second run on a busy --out: message '$err'"
kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
"$DASHI" dataset generate --spec "$T/long.json" --out "$T/busy" --quiet >/dev/null 2>&1 &
pid=$!
sleep 0.2; kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
# The kernel dropped the killed run's lock: a new run may take the directory.
err=$("$DASHI" dataset generate --spec "$T/spec.json" --out "$T/busy" --quiet 2>&1 >/dev/null)
grep -q "another .dashi dataset generate. is writing" <<<"$err" &&
  fail "a killed run's lock outlived it: '$err'"

if [ "$failures" = 0 ]; then echo "dataset_cli_test: all passed"; fi
exit "$failures"
