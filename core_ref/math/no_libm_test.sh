#!/usr/bin/env bash
# The reference defines results that must be the same bytes everywhere (docs/MATH.md §5), so no
# core_ref library may call a libm transcendental (their last bits differ between C libraries,
# CPU paths and versions) or use long double (80 bits on x86-64, 128 on aarch64, 64 elsewhere).
# Arguments: the archives (.a) and sources of every core_ref library (core_ref_files.bzl).
# Fails, naming the archive and the symbol or the file and line, on:
#   - an undefined reference (nm -u) to a transcendental of <cmath> or <complex.h> in any
#     precision, or its __*_finite alias (exact functions — sqrt, fabs, floor, ldexp — are fine);
#   - `long double` in a source file.
set -euo pipefail
real='exp|exp2|exp10|expm1|log|log2|log10|log1p|logb|pow|pow10|cbrt|hypot|sin|cos|tan|sincos'
real+='|asin|acos|atan|atan2|sinh|cosh|tanh|asinh|acosh|atanh|erf|erfc|lgamma|tgamma|j0|j1|jn|y0|y1|yn'
cplx='cexp|clog|cpow|csqrt|csin|ccos|ctan|csinh|ccosh|ctanh|casin|cacos|catan|casinh|cacosh|catanh|cabs|carg'
pattern="^_*(${real}|${cplx})[fl]?(_finite)?(@.*)?$"

archives=0
sources=0
bad_symbols=0
bad_long_double=0
for f in "$@"; do
  if [[ ! -f "$f" ]]; then
    echo "FAIL: $f is missing from the test's runfiles"
    exit 1
  fi
  case "$f" in
    *.a)
      archives=$((archives + 1))
      syms=$(nm -u "$f" | awk '{print $NF}' | grep -E "$pattern" | sort -u || true)
      if [[ -n "$syms" ]]; then
        echo "FAIL: $f references libm transcendentals: $(echo $syms)"
        bad_symbols=1
      fi
      ;;
    *.h | *.cc)
      sources=$((sources + 1))
      if grep -n 'long double' "$f"; then
        echo "FAIL: $f uses long double (line above)"
        bad_long_double=1
      fi
      ;;
  esac
done
echo "checked $archives archives and $sources source files of core_ref"
# The collection must not be empty (a broken rule would make this check vacuous).
if ((archives < 10 || sources < 20)); then
  echo "FAIL: expected at least 10 archives and 20 sources, got $archives and $sources"
  bad_symbols=1
  bad_long_double=1
fi
# A GoogleTest-style report (two cases), so that .ci/run counts them like every other test.
if [[ -n "${XML_OUTPUT_FILE:-}" ]]; then
  failures=$((bad_symbols + bad_long_double))
  case_xml() {  # case_xml NAME FAILED
    if (($2)); then
      echo "    <testcase name=\"$1\" status=\"run\" result=\"completed\"><failure message=\"see the log\"/></testcase>"
    else
      echo "    <testcase name=\"$1\" status=\"run\" result=\"completed\"/>"
    fi
  }
  {
    echo '<?xml version="1.0" encoding="UTF-8"?>'
    echo "<testsuites tests=\"2\" failures=\"$failures\" errors=\"0\" name=\"AllTests\">"
    echo "  <testsuite name=\"CoreRefUsesNoLibm\" tests=\"2\" failures=\"$failures\" errors=\"0\">"
    case_xml NoLibmTranscendentalSymbols "$bad_symbols"
    case_xml NoLongDouble "$bad_long_double"
    echo "  </testsuite>"
    echo "</testsuites>"
  } > "$XML_OUTPUT_FILE"
fi
((bad_symbols == 0 && bad_long_double == 0))
