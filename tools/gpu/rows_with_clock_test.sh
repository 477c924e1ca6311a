#!/usr/bin/env bash
# tools/gpu/rows_with_clock.py on fixture files: the loaded samples inside each row's span (the
# power threshold inclusive, a span across midnight UTC, an error row, a row shorter than the log's
# period), and its errors (missing file, a log without the power column, output without spans).
set -uo pipefail
here=$(dirname "$0")
tool="$here/rows_with_clock.py"
data="$here/testdata"
fail=0
check() {  # check NAME PATTERN TEXT
  if ! grep -qE -- "$2" <<<"$3"; then echo "FAIL: $1: no line matching '$2' in:"; echo "$3"; fail=1; fi
}
out=$(python3 "$tool" --bench "$data/bench_rows.txt" --clock "$data/clock_rows.csv") || {
  echo "FAIL: exit status $?"; fail=1; }
# Row 1 spans 23:59:58.0-00:00:01.0 across midnight: 300, 310 and 150 W (inclusive) are loaded,
# 120 W is not: 3 samples, 1965-1980 MHz.
check "across midnight" '^ +960 +46 +small-batch +21\.23 +21\.22 +bit-exact \(rows 0, 45\) +3 loaded samples, 1965–1980 MHz +23:59:58\.0–00:00:01\.0$' "$out"
# Row 2: 1110 MHz at 160 W is loaded, 149.99 W is not.
check "tiled row" '^ +960 +46 +tiled 16x16 \(KG 4\) +21\.34 .* 1 loaded samples, 1110–1110 MHz' "$out"
# Row 3 is shorter than the log's period.
check "short row" '^ +705 +65 +tiled 32x32 \(2 K blocks\) +34\.08 .*no loaded sample' "$out"
# The error row: its message, and the 90 W sample is not loaded.
check "error row" '^ +512 +64 +tiled-persistent +error +error: UNAVAILABLE: planted +no loaded sample' "$out"
[ "$(wc -l <<<"$out")" -eq 4 ] || { echo "FAIL: expected 4 rows, got:"; echo "$out"; fail=1; }
md=$(python3 "$tool" --bench "$data/bench_rows.txt" --clock "$data/clock_rows.csv" --format markdown --min-watts 100)
check "markdown header" '^\| D \| B \| kernel \| µs/step \| min µs \| verified \| SM clock \(≥ 100 W\) \| UTC \|$' "$md"
check "markdown threshold" '^\| 960 \| 46 \| small-batch \| 21\.23 \| 21\.22 \| bit-exact \(rows 0, 45\) \| 4 loaded samples, 1965–1980 MHz \|' "$md"
# Errors: a message naming the file, exit status 2.
err=$(python3 "$tool" --bench "$data/bench_rows.txt" --clock "$data/missing.csv" 2>&1); rc=$?
[ $rc -eq 2 ] || { echo "FAIL: missing clock log: exit $rc"; fail=1; }
check "missing clock log" 'missing\.csv: cannot read the clock log' "$err"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
printf 'timestamp, clocks.current.sm [MHz]\n2026/11/28 00:00:00.000, 1980 MHz\n' > "$tmp/nopower.csv"
err=$(python3 "$tool" --bench "$data/bench_rows.txt" --clock "$tmp/nopower.csv" 2>&1); rc=$?
[ $rc -eq 2 ] || { echo "FAIL: no power column: exit $rc"; fail=1; }
check "no power column" "nopower\.csv: the clock log has no 'power\.draw' column" "$err"
grep -v 'UTC\]' "$data/bench_rows.txt" > "$tmp/nospans.txt"
err=$(python3 "$tool" --bench "$tmp/nospans.txt" --clock "$data/clock_rows.csv" 2>&1); rc=$?
[ $rc -eq 2 ] || { echo "FAIL: no spans: exit $rc"; fail=1; }
check "no spans" 'nospans\.txt: no benchmark row ends with a UTC span' "$err"
[ $fail -eq 0 ] && echo "rows_with_clock_test: all checks passed"
exit $fail
