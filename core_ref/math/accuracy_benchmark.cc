// The long accuracy run of the own exp / sinpi / cospi against Boost.Multiprecision: every
// standard range (accuracy_harness.h) with N arguments each (default 200000), one line per
// range, then the totals; docs/MATH.md §5 records its output. Not a test (minutes on one core):
//
//   bazel run -c opt //core_ref/math:accuracy_benchmark -- 200000
#include <cstdio>
#include <cstdlib>

#include "core_ref/math/accuracy_harness.h"

int main(int argc, char** argv) {
  using namespace dashi::math_testing;
  const long long per_range = argc > 1 ? std::atoll(argv[1]) : 200000;
  if (per_range <= 0) {
    std::fprintf(stderr, "usage: accuracy_benchmark [arguments per range > 0]\n");
    return 2;
  }
  AccuracyStats total;
  uint64_t seed = 20261124;
  for (const ArgumentRange& range : StandardRanges()) {
    const AccuracyStats s = MeasureRange(range, per_range, seed);
    std::printf("%s   [seed %llu]\n", FormatStats(range.name, s).c_str(),
                static_cast<unsigned long long>(seed));
    std::fflush(stdout);
    ++seed;
    total.count += s.count;
    total.not_correctly_rounded += s.not_correctly_rounded;
    total.fast_count += s.fast_count;
    total.fallbacks += s.fallbacks;
    total.accurate_mismatches += s.accurate_mismatches;
    total.accurate_ambiguous += s.accurate_ambiguous;
    if (s.max_ulp > total.max_ulp) {
      total.max_ulp = s.max_ulp;
      total.worst_argument = s.worst_argument;
    }
    if (s.fast_max_rel_err_2m100 > total.fast_max_rel_err_2m100) {
      total.fast_max_rel_err_2m100 = s.fast_max_rel_err_2m100;
    }
  }
  std::printf("%s\n", FormatStats("TOTAL", total).c_str());
  const bool ok = total.not_correctly_rounded == 0 && total.accurate_mismatches == 0 &&
                  total.accurate_ambiguous == 0;
  std::printf("%s\n", ok ? "all correctly rounded" : "FAILURES");
  return ok ? 0 : 1;
}
