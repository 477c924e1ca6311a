#!/usr/bin/env bash
# tools/gpu/rows_with_clock.py on fixture files: the loaded samples inside each row's span (the
# power threshold and both span ends inclusive, a span across midnight UTC, "[N/A]" and a line cut
# off mid-value dropped, an error row, a row shorter than the log's period), the markdown form,
# and its errors (missing or binary file, a log without the power column, a header-only log,
# several GPUs in one log, another run's log, output without spans, a bad --min-watts).
set -uo pipefail
here=$(dirname "$0")
tool="$here/rows_with_clock.py"
data="$here/testdata"
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
check() {  # check NAME PATTERN TEXT
  if ! grep -qE -- "$2" <<<"$3"; then echo "FAIL: $1: no line matching '$2' in:"; echo "$3"; fail=1; fi
}
expect_error() {  # expect_error NAME PATTERN ARGS...: exit 2, the message on stderr, nothing on stdout
  local name=$1 pattern=$2; shift 2
  python3 "$tool" "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
  [ $rc -eq 2 ] || { echo "FAIL: $name: exit $rc (want 2)"; fail=1; }
  [ -s "$tmp/out" ] && { echo "FAIL: $name: printed rows"; fail=1; }
  check "$name" "^rows_with_clock: $pattern" "$(cat "$tmp/err")"
}
out=$(python3 "$tool" --bench "$data/bench_rows.txt" --clock "$data/clock_rows.csv" 2>"$tmp/err") || {
  echo "FAIL: exit status $?"; fail=1; }
[ -s "$tmp/err" ] && { echo "FAIL: stderr on success:"; cat "$tmp/err"; fail=1; }
# Row 1, 23:59:58.0-00:00:01.0 across midnight: 200 W at 23:59:58.000 (the span's first instant),
# 300, 310 and 150 W (inclusive) are loaded; 120 W is not, nor the [N/A] clock: 4 samples.
check "across midnight" '^ +960 +46 +small-batch +21\.23 +21\.22 +bit-exact \(rows 0, 45\) +4 loaded samples, 1800-1980 MHz +23:59:58\.0-00:00:01\.0$' "$out"
# Row 2, 00:00:01.0-00:00:02.0: 1110 MHz at 160 W and 1500 MHz at 400 W (the span's last instant)
# are loaded, 149.99 W is not.
check "tiled row" '^ +960 +46 +tiled 16x16 \(KG 4\) +21\.34 .* 2 loaded samples, 1110-1500 MHz' "$out"
# Row 3 (00:00:02.1-00:00:02.2) is shorter than the log's period.
check "short row" '^ +705 +65 +tiled 32x32 \(2 K blocks\) +34\.08 .*no loaded sample' "$out"
# The error row: its message; the 90 W sample is not loaded, the cut-off last line is dropped.
check "error row" '^ +512 +64 +tiled-persistent +error +error: UNAVAILABLE: planted +no loaded sample' "$out"
[ "$(wc -l <<<"$out")" -eq 4 ] || { echo "FAIL: expected 4 rows, got:"; echo "$out"; fail=1; }
md=$(python3 "$tool" --bench "$data/bench_rows.txt" --clock "$data/clock_rows.csv" --format markdown --min-watts 100)
check "markdown header" '^\| D \| B \| kernel \| us/step \| min us \| verified \| SM clock \(>= 100 W\) \| UTC \|$' "$md"
check "markdown row 1" '^\| 960 \| 46 \| small-batch \| 21\.23 \| 21\.22 \| bit-exact \(rows 0, 45\) \| 5 loaded samples, 1800-1980 MHz \| 23:59:58\.0-00:00:01\.0 \|$' "$md"
check "markdown row 4" '^\| 512 \| 64 \| tiled-persistent \| error \|  \| error: UNAVAILABLE: planted \| no loaded sample \|' "$md"
[ "$(wc -l <<<"$md")" -eq 6 ] || { echo "FAIL: markdown: expected 6 lines"; echo "$md"; fail=1; }
# The log's clocks.sm under its query name, one sample: "1 loaded sample".
sed 's/clocks.current.sm/clocks.sm/' "$data/clock_rows.csv" > "$tmp/named.csv"
out=$(python3 "$tool" --bench "$data/bench_rows.txt" --clock "$tmp/named.csv" --min-watts 305)
check "clocks.sm, singular" '^ +960 +46 +small-batch .* 1 loaded sample, 1965-1965 MHz' "$out"
# Errors: exit status 2, a message naming the file and the problem.
expect_error "missing clock log" '.*missing\.csv: cannot read the clock log' \
  --bench "$data/bench_rows.txt" --clock "$data/missing.csv"
printf 'timestamp, clocks.current.sm [MHz]\n2026/11/28 00:00:00.000, 1980 MHz\n' > "$tmp/nopower.csv"
expect_error "no power column" ".*nopower\.csv: the clock log has no 'power\.draw' column" \
  --bench "$data/bench_rows.txt" --clock "$tmp/nopower.csv"
head -1 "$data/clock_rows.csv" > "$tmp/header.csv"
expect_error "header only" '.*header\.csv: the clock log has no readable sample \(a header only\)' \
  --bench "$data/bench_rows.txt" --clock "$tmp/header.csv"
sed 's/ MHz,/,/' "$data/clock_rows.csv" > "$tmp/nounit.csv"
expect_error "values without unit" '.*nounit\.csv: the clock log has no readable sample \(first failure: line 2: .*has no unit MHz\)' \
  --bench "$data/bench_rows.txt" --clock "$tmp/nounit.csv"
{ cat "$data/clock_rows.csv"; tail -n +3 "$data/clock_rows.csv" | head -1; } > "$tmp/twogpus.csv"
expect_error "several GPUs" '.*twogpus\.csv: lines 3 and 14 have one timestamp: the log holds several GPUs' \
  --bench "$data/bench_rows.txt" --clock "$tmp/twogpus.csv"
printf 'timestamp, clocks.current.sm [MHz], power.draw [W]\n2026/11/28 10:00:00.000, 1980 MHz, 300.00 W\n2026/11/28 10:00:00.200, 1980 MHz, 300.00 W\n' > "$tmp/other.csv"
expect_error "another run's log" ".*other\.csv: no row's span falls inside the log" \
  --bench "$data/bench_rows.txt" --clock "$tmp/other.csv"
grep -v 'UTC\]' "$data/bench_rows.txt" > "$tmp/nospans.txt"
expect_error "no spans" '.*nospans\.txt: no benchmark row ends with a UTC span' \
  --bench "$tmp/nospans.txt" --clock "$data/clock_rows.csv"
printf '\xff\xfe\x00binary' > "$tmp/binary.txt"
expect_error "binary bench" '.*binary\.txt: the benchmark output is not UTF-8 text' \
  --bench "$tmp/binary.txt" --clock "$data/clock_rows.csv"
expect_error "negative watts" '--min-watts -5\.0: must be a finite power >= 0' \
  --bench "$data/bench_rows.txt" --clock "$data/clock_rows.csv" --min-watts -5
expect_error "nan watts" '--min-watts nan: must be a finite power >= 0' \
  --bench "$data/bench_rows.txt" --clock "$data/clock_rows.csv" --min-watts nan
[ $fail -eq 0 ] && echo "rows_with_clock_test: all checks passed"
exit $fail
