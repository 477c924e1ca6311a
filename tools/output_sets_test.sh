#!/usr/bin/env bash
# Output sets through the real `dashi` binary (docs/ARCHITECTURE.md, "Outputs"): a command's
# outputs appear complete or not at all; SIGTERM and SIGINT remove the staging directory; kill -9
# leaves one that is recognisably stale and removed by the next run; a directory holding someone
# else's files — or another command's output set — is refused and left untouched; a failed command
# leaves nothing behind; a rollout's file set keeps its completion record (the chain) last; outputs
# that would replace a symlink, a device, their own replay record or one of their inputs, or that
# would land inside a dataset, are refused; two writers of one file set leave one writer's whole
# set; simulate's memory does not grow with the number of frames.
set -uo pipefail
DASHI="$(cd "$(dirname "$0")" && pwd)/dashi"
[ -x "$DASHI" ] || DASHI="$TEST_SRCDIR/$TEST_WORKSPACE/tools/dashi"
T="${TEST_TMPDIR:-$(mktemp -d)}/output_sets"
rm -rf "$T"; mkdir -p "$T"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
entries() { ls -A "$1" | tr '\n' ' '; }

SMALL=(--quiet --n 32 --k-lo 4 --k-mid 8 --anchors 4 --train-steps 4 --eval-steps 4 --sample-every 4)
# Long enough to be interrupted (tens of seconds), small in memory.
LONG=(--quiet --n 32 --k-lo 4 --k-mid 8 --anchors 4 --train-steps 200000 --eval-steps 4 --sample-every 4)

# 1. A finished run: the directory with its marker, nothing else beside it.
"$DASHI" run "${SMALL[@]}" --out "$T/ok/run" >/dev/null || fail "small run failed"
[ -f "$T/ok/run/.dashi-output-set" ] || fail "no .dashi-output-set in a finished run"
[ -f "$T/ok/run/chain.json" ] || fail "no chain.json in a finished run"
[ "$(entries "$T/ok")" = "run " ] || fail "left beside the run: $(entries "$T/ok")"
grep -q '"path": "A.npy"' "$T/ok/run/.dashi-output-set" || fail "marker does not list A.npy"

# 2. Re-running into it replaces the set whole — but not over a file its marker does not record
#    (a user's notes beside the outputs): refused, exit 1, the file kept.
echo mine >"$T/ok/run/analysis.md"
err=$("$DASHI" run "${SMALL[@]}" --out "$T/ok/run" 2>&1 >/dev/null); rc=$?
[ "$rc" = 1 ] || fail "re-run over an unrecorded file: exit $rc, expected 1"
grep -q "holds analysis.md, which the earlier \`dashi run\` did not write" <<<"$err" ||
  fail "re-run over an unrecorded file: message '$err'"
[ "$(cat "$T/ok/run/analysis.md")" = mine ] || fail "re-run over an unrecorded file changed it"
rm "$T/ok/run/analysis.md"
"$DASHI" run "${SMALL[@]}" --out "$T/ok/run" >/dev/null || fail "re-run into an output set failed"
[ -f "$T/ok/run/.dashi-output-set" ] || fail "re-run: no marker"

# 3. Someone else's directory: refused before any work, exit 1, their file untouched.
mkdir -p "$T/foreign/mine"; echo precious >"$T/foreign/mine/notes.txt"
err=$("$DASHI" run "${SMALL[@]}" --out "$T/foreign/mine" 2>&1 >/dev/null); rc=$?
[ "$rc" = 1 ] || fail "foreign directory: exit $rc, expected 1"
grep -q "FAILED_PRECONDITION.*not a dashi output set" <<<"$err" || fail "foreign directory: message '$err'"
[ "$(cat "$T/foreign/mine/notes.txt")" = precious ] || fail "foreign file changed"
[ "$(entries "$T/foreign/mine")" = "notes.txt " ] || fail "foreign dir now holds $(entries "$T/foreign/mine")"
[ "$(entries "$T/foreign")" = "mine " ] || fail "left beside foreign dir: $(entries "$T/foreign")"

# 4. A command that fails after starting (invalid parameters caught late) leaves nothing.
"$DASHI" run --quiet --n 32 --k-lo 12 --k-mid 24 --out "$T/failed/run" >/dev/null 2>&1
[ ! -e "$T/failed/run" ] || fail "a failed run left $T/failed/run"
[ -z "$(ls -A "$T/failed" 2>/dev/null)" ] || fail "a failed run left $(entries "$T/failed")"

# Starts a long run in the background and waits until its staging directory exists.
start_long() {
  local out=$1
  # A background job of a script starts with SIGINT ignored (and dashi leaves an ignored signal
  # alone): give it the default disposition, as a job in an interactive shell has.
  env --default-signal=INT "$DASHI" run "${LONG[@]}" --out "$out" >/dev/null 2>&1 &
  pid=$!
  for _ in $(seq 1 200); do
    ls -A "$(dirname "$out")" 2>/dev/null | grep -q "dashi-partial" && return 0
    sleep 0.05
  done
  fail "no staging directory appeared for $out"
}

# 5. SIGTERM and SIGINT: the staging directory goes, nothing appears, the exit says the signal.
for sig in TERM INT; do
  mkdir -p "$T/sig$sig"
  start_long "$T/sig$sig/run"
  kill -s "$sig" "$pid"; wait "$pid"; rc=$?
  [ "$rc" -gt 128 ] || fail "SIG$sig: exit $rc, expected death by the signal"
  [ -z "$(ls -A "$T/sig$sig")" ] || fail "SIG$sig left $(entries "$T/sig$sig")"
done

# 6. kill -9 cannot be caught: the staging directory stays, named as stale; the next run removes it
#    and says so.
mkdir -p "$T/kill9"
start_long "$T/kill9/run"
kill -9 "$pid"; wait "$pid" 2>/dev/null
left=$(ls -A "$T/kill9")
grep -q '^\.run\.dashi-partial\.' <<<"$left" || fail "kill -9 left '$left'"
[ ! -e "$T/kill9/run" ] || fail "kill -9 left something that looks finished"
err=$("$DASHI" run "${SMALL[@]}" --out "$T/kill9/run" 2>&1 >/dev/null) || fail "run after kill -9 failed"
grep -q "removed $left, the unfinished output of a killed earlier run" <<<"$err" || fail "no notice of the stale removal: '$err'"
[ "$(entries "$T/kill9")" = "run " ] || fail "after cleanup: $(entries "$T/kill9")"

# 7. A rollout's file set: zT.npy with zT.chain.json, no staging left; an earlier chain is
#    replaced; a rollout that fails leaves the earlier pair as it was.
R="$T/ok/run"
"$DASHI" rollout --z0 "$R/z0.npy" --a "$R/A.npy" --steps 10 --out "$T/ok/zT.npy" >/dev/null ||
  fail "rollout failed"
[ -f "$T/ok/zT.npy" ] && [ -f "$T/ok/zT.chain.json" ] || fail "rollout set incomplete: $(entries "$T/ok")"
before=$(cat "$T/ok/zT.chain.json")
"$DASHI" rollout --z0 "$R/z0.npy" --a "$R/proxy.json" --steps 10 --out "$T/ok/zT.npy" >/dev/null 2>&1 &&
  fail "rollout with a JSON file as A succeeded"
[ "$(cat "$T/ok/zT.chain.json")" = "$before" ] || fail "a failed rollout changed the chain"
[ "$(entries "$T/ok")" = "run zT.chain.json zT.npy " ] || fail "after rollouts: $(entries "$T/ok")"

# 7b. Outputs that would destroy something are refused before any work (exit 1, message named;
#     exit 2 for an --out that is not NAME.npy or that holds an input, a flag error):
#     another command's output set (decode onto run's directory, which holds its inputs), a final
#     name that is a symlink or a FIFO (renaming would replace the link / the node), --expect-chain
#     naming the run's own chain, a --save-every trajectory beyond half the machine's memory, and
#     audit's report onto a directory (exit 2, checked before the replays).
mkdir -p "$T/in"; cp "$R/z0.npy" "$R/proxy.json" "$T/in/"
err=$("$DASHI" decode --z "$T/in/z0.npy" --proxy "$T/in/proxy.json" --out-dir "$R" 2>&1 >/dev/null); rc=$?
[ "$rc" = 1 ] || fail "decode onto run's directory: exit $rc, expected 1"
grep -q "FAILED_PRECONDITION.*holds the outputs of .dashi run." <<<"$err" || fail "decode onto run: message '$err'"
err=$("$DASHI" decode --z "$R/z0.npy" --proxy "$R/proxy.json" --out-dir "$R" 2>&1 >/dev/null); rc=$?
[ "$rc" = 2 ] || fail "decode onto the directory of its inputs: exit $rc, expected 2"
grep -q -- "INVALID_ARGUMENT: --out-dir $R contains --z $R/z0.npy" <<<"$err" ||
  fail "decode onto the directory of its inputs: message '$err'"
[ -f "$R/A.npy" ] && [ -f "$R/proxy.json" ] || fail "decode onto run's directory removed its files"
ln -s "$T/ok/zT.npy" "$T/ok/link.npy"; mkfifo "$T/ok/fifo.npy"
for name in link.npy fifo.npy; do
  err=$("$DASHI" rollout --z0 "$R/z0.npy" --a "$R/A.npy" --steps 10 --out "$T/ok/$name" 2>&1 >/dev/null); rc=$?
  [ "$rc" = 1 ] || fail "rollout --out $name: exit $rc, expected 1"
  grep -q "INVALID_ARGUMENT: .*$name: exists and is not a regular file" <<<"$err" || fail "rollout --out $name: message '$err'"
done
[ -L "$T/ok/link.npy" ] && [ -p "$T/ok/fifo.npy" ] || fail "the symlink or FIFO was replaced"
rm -f "$T/ok/link.npy" "$T/ok/fifo.npy"
echo precious >"$T/ok/notes.txt"
err=$("$DASHI" rollout --z0 "$R/z0.npy" --a "$R/A.npy" --steps 10 --out "$T/ok/notes.txt" 2>&1 >/dev/null); rc=$?
[ "$rc" = 2 ] || fail "rollout --out notes.txt: exit $rc, expected 2"
grep -q -- "--out: .*notes.txt is not NAME.npy" <<<"$err" || fail "rollout --out notes.txt: message '$err'"
[ "$(cat "$T/ok/notes.txt")" = precious ] || fail "rollout --out notes.txt replaced the file"
rm -f "$T/ok/notes.txt"
err=$("$DASHI" golden generate --out "$T/foreign/mine" 2>&1 >/dev/null); rc=$?
[ "$rc" = 1 ] || fail "golden generate into a foreign directory: exit $rc, expected 1"
grep -q "FAILED_PRECONDITION: .*mine: not empty and not a golden set" <<<"$err" ||
  fail "golden generate into a foreign directory: message '$err'"
[ "$(entries "$T/foreign/mine")" = "notes.txt " ] || fail "golden generate wrote into $(entries "$T/foreign/mine")"
before=$(cat "$T/ok/zT.chain.json")
err=$("$DASHI" rollout --z0 "$R/z0.npy" --a "$R/A.npy" --steps 10 --out "$T/ok/zT.npy" \
  --expect-chain "$T/ok/zT.chain.json" 2>&1 >/dev/null); rc=$?
[ "$rc" = 2 ] || fail "--expect-chain = own chain: exit $rc, expected 2"
grep -q "INVALID_ARGUMENT: --out's chain file .*zT.chain.json is --expect-chain .*zT.chain.json" <<<"$err" ||
  fail "--expect-chain = own chain: message '$err'"
[ "$(cat "$T/ok/zT.chain.json")" = "$before" ] || fail "--expect-chain = own chain: the record changed"
err=$("$DASHI" rollout --z0 "$R/z0.npy" --a "$R/A.npy" --steps 4000000000000 --save-every 1 \
  --out "$T/ok/big.npy" 2>&1 >/dev/null); rc=$?
[ "$rc" = 1 ] || fail "a trajectory beyond memory: exit $rc, expected 1"
grep -qE "RESOURCE_EXHAUSTED: --save-every 1 with --steps 4000000000000 keeps about [0-9.]+ (TiB|PiB) of states" <<<"$err" ||
  fail "a trajectory beyond memory: message '$err'"
mkdir -p "$T/ok/report_dir.json"
err=$("$DASHI" audit --z0 "$R/z0.npy" --a "$R/A.npy" --steps 10 --out "$T/ok/report_dir.json" 2>&1); rc=$?
[ "$rc" = 2 ] || fail "audit --out a directory: exit $rc, expected 2"
grep -q "report_dir.json exists and is not an earlier report .*: it is not a regular file" <<<"$err" ||
  fail "audit --out a directory: message '$err'"
grep -q "hash chains" <<<"$err" && fail "audit --out a directory: the replays ran before the check"
rmdir "$T/ok/report_dir.json"
err=$("$DASHI" conform --golden-dir "$T/no_golden" --no-store --out "$T/ok/report.json" 2>&1); rc=$?
[ "$rc" = 1 ] || fail "conform --golden-dir missing: exit $rc, expected 1"
grep -q "NOT_FOUND: --golden-dir .*no_golden: no such directory" <<<"$err" ||
  fail "conform --golden-dir missing: message '$err'"
grep -q "FAIL" <<<"$err" && fail "conform --golden-dir missing: the suite ran"
[ "$(entries "$T/ok")" = "run zT.chain.json zT.npy " ] || fail "after the refusals: $(entries "$T/ok")"

# 7c. An output never replaces an input or lands inside a dataset: refused before any work (exit
#     2, the flag, the path and the input or dataset named), the input and the dataset unchanged.
G="$T/guard"; mkdir -p "$G"
cp "$R/A.npy" "$R/z0.npy" "$G/"; cp "$R/A.npy" "$G/A.orig"; cp "$R/z0.npy" "$G/z0.orig"
ln "$G/A.npy" "$G/A_hard.npy"
for case in "A.npy:--a" "z0.npy:--z0" "A_hard.npy:the same file as --a"; do
  name=${case%%:*}; want=${case#*:}
  err=$("$DASHI" rollout --z0 "$G/z0.npy" --a "$G/A.npy" --steps 10 --out "$G/$name" 2>&1 >/dev/null); rc=$?
  [ "$rc" = 2 ] || fail "rollout --out $name (an input): exit $rc, expected 2"
  grep -q -- "INVALID_ARGUMENT: --out $G/$name is $want" <<<"$err" || fail "rollout --out $name: message '$err'"
done
cmp -s "$G/A.npy" "$G/A.orig" && cmp -s "$G/z0.npy" "$G/z0.orig" || fail "rollout replaced an input"
cp "$G/A.npy" "$G/zT.chain.json"  # a companion named like an input
err=$("$DASHI" rollout --z0 "$G/z0.npy" --a "$G/zT.chain.json" --steps 10 --out "$G/zT.npy" 2>&1 >/dev/null); rc=$?
[ "$rc" = 2 ] || fail "rollout chain file = --a: exit $rc, expected 2"
grep -q -- "--out's chain file $G/zT.chain.json is --a" <<<"$err" || fail "rollout chain file = --a: message '$err'"
cat >"$G/spec.json" <<'JSON'
{"format": "dashi-dataset-spec/1", "n": [32], "seeds": {"first": 1, "count": 1},
 "les": [{"nu0": 1e-3}], "steps": 10, "save_every": 5,
 "keep": {"vorticity": true, "series": true, "proxy": {"k_lo": 4, "k_mid": 8, "anchors": 4},
          "decodes": true}}
JSON
"$DASHI" dataset generate --spec "$G/spec.json" --out "$G/DS" --quiet >/dev/null || fail "dataset generate failed"
I="$G/DS/items/n32_p0_s1"
[ -f "$I/omega.npy" ] && [ -f "$I/z.npy" ] || fail "dataset item lacks omega.npy or z.npy: $(entries "$I")"
before=$(cd "$G/DS" && find . -type f -exec md5sum {} + | sort)
refused() {  # refused LABEL COMMAND...: exit 2 and "is inside the dataset $G/DS"
  local label=$1; shift
  err=$("$DASHI" "$@" 2>&1 >/dev/null); rc=$?
  [ "$rc" = 2 ] || fail "$label into the dataset: exit $rc, expected 2"
  grep -q "INVALID_ARGUMENT: .* is inside the dataset $G/DS " <<<"$err" || fail "$label into the dataset: message '$err'"
}
refused "simulate --out omega.npy" simulate --quiet --n 32 --steps 5 --out "$I/omega.npy"
refused "rollout --out z.npy" rollout --z0 "$G/z0.npy" --a "$G/A.npy" --steps 10 --out "$I/z.npy"
refused "decode --out-dir" decode --z "$G/z0.npy" --proxy "$R/proxy.json" --out-dir "$I/dec"
refused "learn --out-dir" learn --traj "$I/omega.npy" --k-lo 4 --k-mid 8 --anchors 4 --out-dir "$I/model"
refused "run --out" run "${SMALL[@]}" --out "$G/DS/run"
refused "scales --out" scales --n 16 --out "$G/DS/items/scales"
[ "$(cd "$G/DS" && find . -type f -exec md5sum {} + | sort)" = "$before" ] || fail "the dataset changed"
[ ! -e "$I/dec" ] && [ ! -e "$I/model" ] && [ ! -e "$G/DS/run" ] || fail "a refused output appeared in the dataset"

# 7d. An output directory never replaces the directory the command runs in, nor one above it
#     (decode --out-dir ../X run inside X, an earlier decode's output, replaced X: the shell was
#     left in a deleted directory): exit 2 naming the flag, the path and the current directory;
#     the directory is the same one (its inode) with the same files after each refusal.
W="$T/cwd"; mkdir -p "$W"
"$DASHI" decode --z "$R/z0.npy" --proxy "$R/proxy.json" --no-png --out-dir "$W/X" >/dev/null ||
  fail "decode into $W/X failed"
inode=$(stat -c %i "$W/X"); files=$(entries "$W/X")
for case in "../X:is" "$W/X:is" "..:contains" "$W:contains"; do
  out=${case%:*}; want=${case##*:}
  err=$(cd "$W/X" && "$DASHI" decode --z "$R/z0.npy" --proxy "$R/proxy.json" --no-png \
    --out-dir "$out" 2>&1 >/dev/null); rc=$?
  [ "$rc" = 2 ] || fail "decode --out-dir $out from inside it: exit $rc, expected 2"
  grep -q -- "INVALID_ARGUMENT: --out-dir $out $want the current directory $W/X" <<<"$err" ||
    fail "decode --out-dir $out from inside it: message '$err'"
  [ "$(stat -c %i "$W/X")" = "$inode" ] && [ "$(entries "$W/X")" = "$files" ] ||
    fail "decode --out-dir $out replaced the current directory"
done
err=$(cd "$W/X" && "$DASHI" run "${SMALL[@]}" --out .. 2>&1 >/dev/null); rc=$?
[ "$rc" = 2 ] && grep -q -- "--out .. contains the current directory" <<<"$err" ||
  fail "run --out .. from inside it: exit $rc, message '$err'"

# 7e. A dangling symlink as the output: one message from every command, exit 2, the link kept.
ln -sfn "$W/nowhere/x" "$W/dangling"; ln -sfn "$W/nowhere/x.npy" "$W/dangling.npy"
for cmd in "decode --z $R/z0.npy --proxy $R/proxy.json --out-dir $W/dangling" \
           "learn --traj $T/ok/traj.npy --out-dir $W/dangling" \
           "golden generate --out $W/dangling" \
           "rollout --z0 $R/z0.npy --a $R/A.npy --steps 2 --out $W/dangling.npy" \
           "simulate --quiet --n 32 --steps 1 --out $W/dangling.npy"; do
  err=$($DASHI $cmd 2>&1 >/dev/null); rc=$?
  [ "$rc" = 2 ] || fail "$cmd: exit $rc, expected 2"
  grep -q "INVALID_ARGUMENT: --out[-dir]* $W/dangling\(.npy\)\? is a symbolic link to $W/nowhere/x\(.npy\)\?, which does not exist" <<<"$err" ||
    fail "$cmd: message '$err'"
done
[ -L "$W/dangling" ] && [ -L "$W/dangling.npy" ] || fail "a dangling output link was removed"

# 7f. Written in place, never replaced: golden generate and dataset generate take the current
#     directory as --out (regenerating a golden set, resuming a dataset from inside it).
mkdir -p "$W/G" "$W/DSX"
(cd "$W/G" && "$DASHI" golden generate --out . >/dev/null 2>&1) || fail "golden generate --out . failed"
(cd "$W/G" && "$DASHI" golden generate --out . >/dev/null 2>&1) || fail "golden generate --out . again failed"
"$DASHI" golden verify "$W/G" >/dev/null || fail "golden generate --out .: the set does not verify"
(cd "$W/DSX" && "$DASHI" dataset generate --spec "$G/spec.json" --out . --quiet >/dev/null 2>&1) ||
  fail "dataset generate --out . failed"
(cd "$W/DSX" && "$DASHI" dataset generate --spec spec.json --out . --quiet >/dev/null 2>&1) ||
  fail "dataset generate --out . resumed from inside it failed"
"$DASHI" dataset verify "$W/DSX" >/dev/null || fail "dataset generate --out .: the dataset does not verify"

# 7g. A report (conform --out, audit --out) is NAME.json and replaces only a missing file or an
#     earlier report of its command: never a golden manifest or array, a run's file, an array, a
#     store's key or another JSON file (exit 2 naming --out, the path and why; the file kept).
S="$T/store"; mkdir -p "$S"; echo key >"$S/store.key"; echo '{"a": 1}' >"$T/ok/notes.json"
cp "$W/G/manifest.json" "$T/manifest.orig"; cp "$R/chain.json" "$T/chain.orig"
report_refused() {  # report_refused LABEL WANT COMMAND...: exit 2, WANT in the message
  local label=$1 want=$2; shift 2
  err=$(DASHI_CERT_STORE="$S" "$DASHI" "$@" 2>&1 >/dev/null); rc=$?
  [ "$rc" = 2 ] || fail "$label: exit $rc, expected 2"
  grep -q -- "$want" <<<"$err" || fail "$label: message '$err'"
}
CONFORM=(conform --golden-dir "$W/G" --filter carrier.pda --no-store)
AUDIT=(audit --z0 "$R/z0.npy" --a "$R/A.npy" --steps 10)
report_refused "conform --out the golden manifest" "--out $W/G/manifest.json is inside --golden-dir" \
  "${CONFORM[@]}" --out "$W/G/manifest.json"
report_refused "conform --out a store file" "--out $S/store.json is inside DASHI_CERT_STORE" \
  "${CONFORM[@]}" --out "$S/store.json"
report_refused "conform --out store.key" "--out $S/store.key is inside DASHI_CERT_STORE" \
  "${CONFORM[@]}" --out "$S/store.key"
report_refused "audit --out a run's chain" "--out $R/chain.json is inside the dashi output set $R" \
  "${AUDIT[@]}" --out "$R/chain.json"
report_refused "audit --out an array" "--out $T/ok/zT.npy: a report's name is NAME.json" \
  "${AUDIT[@]}" --out "$T/ok/zT.npy"
report_refused "audit --out another JSON file" "--out $T/ok/notes.json exists and is not an earlier report" \
  "${AUDIT[@]}" --out "$T/ok/notes.json"
cmp -s "$W/G/manifest.json" "$T/manifest.orig" && cmp -s "$R/chain.json" "$T/chain.orig" &&
  [ "$(cat "$S/store.key")" = key ] && [ "$(cat "$T/ok/notes.json")" = '{"a": 1}' ] ||
  fail "a refused report replaced a file"
for i in 1 2; do  # a new report, then an earlier one replaced
  "$DASHI" "${CONFORM[@]}" --out "$T/conform.json" >/dev/null 2>&1 || fail "conform --out (run $i) failed"
  "$DASHI" "${AUDIT[@]}" --out "$T/audit.json" >/dev/null 2>&1 || fail "audit --out (run $i) failed"
done
report_refused "conform onto audit's report" "--out $T/audit.json exists and is not an earlier report" \
  "${CONFORM[@]}" --out "$T/audit.json"
# The audit report names what it audited as a rollout's chain file does (z0_hash, a_hash).
"$DASHI" rollout --z0 "$R/z0.npy" --a "$R/A.npy" --steps 10 --out "$T/audit_twin.npy" >/dev/null 2>&1 ||
  fail "rollout of the audited inputs failed"
for key in z0_hash a_hash; do
  want=$(grep -o "\"$key\": *\"[0-9a-f]*\"" "$T/audit_twin.chain.json")
  got=$(grep -o "\"$key\": *\"[0-9a-f]*\"" "$T/audit.json")
  [ -n "$want" ] && [ "$want" = "$got" ] || fail "audit.json's $key '$got', the chain file's '$want'"
done
rm "$T/ok/notes.json"
# A store that cannot be written is refused before the suite (it was reported after 14 minutes).
echo x >"$T/not_a_dir"
err=$(timeout 120 "$DASHI" conform --golden-dir "$W/G" --cert-store "$T/not_a_dir/store" \
  --out "$T/conform.json" 2>&1); rc=$?
[ "$rc" = 2 ] || fail "conform --cert-store unwritable: exit $rc, expected 2"
grep -q -- "--cert-store $T/not_a_dir/store: the certification store cannot be written" <<<"$err" ||
  fail "conform --cert-store unwritable: message '$(tail -c 300 <<<"$err")'"

# 7h. Two simulates with other parameters onto one --out at once: the pair left is one run's
#     (t.npy's bytes are those of the seed t.json records; a mixed pair was left in 54 of 150).
M="$T/mix"; mkdir -p "$M"
for seed in 1 2; do
  "$DASHI" simulate --quiet --n 32 --steps 2 --seed $seed --out "$M/s$seed.npy" >/dev/null
  sum[$seed]=$(md5sum <"$M/s$seed.npy")
done
for i in $(seq 30); do
  "$DASHI" simulate --quiet --n 32 --steps 2 --seed 1 --out "$M/t.npy" >/dev/null &
  "$DASHI" simulate --quiet --n 32 --steps 2 --seed 2 --out "$M/t.npy" >/dev/null &
  wait
  seed=$(grep -o '"seed": [12]' "$M/t.json" | grep -o '[12]$')
  [ -n "$seed" ] && [ "$(md5sum <"$M/t.npy")" = "${sum[$seed]}" ] ||
    { fail "concurrent simulates left a mixed pair (round $i, t.json seed '$seed')"; break; }
done

# 8. simulate streams its frames: 4,001 frames of 64² (131 MB on disk) under a 300 MB
#    address-space cap (holding the frames, as before streaming, died of out-of-memory here).
(
  ulimit -v 300000
  "$DASHI" simulate --quiet --n 64 --steps 4000 --out "$T/ok/traj.npy" >/dev/null
) || fail "simulate of 4001 frames under a 300 MB address-space cap failed"
[ "$(stat -c %s "$T/ok/traj.npy" 2>/dev/null)" = 131104896 ] || fail "traj.npy has the wrong size"
[ -f "$T/ok/traj.json" ] || fail "no traj.json beside traj.npy"

if [ "$failures" -ne 0 ]; then echo "$failures failure(s)"; exit 1; fi
echo "output sets: all checks passed"
