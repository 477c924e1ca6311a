// Accuracy measurement of the own exp / sinpi / cospi against Boost.Multiprecision (166-bit
// cpp_bin_float_50), shared by math_test (a sized sample) and accuracy_benchmark (millions of
// arguments; docs/MATH.md §5 records its output). Arguments come from named ranges drawn with
// Xoshiro256** (the seed replays a run).
//
//   AccuracyStats s = MeasureRange(ExpRanges()[0], 10000, /*seed=*/1);
#ifndef DASHI_CORE_REF_MATH_ACCURACY_HARNESS_H_
#define DASHI_CORE_REF_MATH_ACCURACY_HARNESS_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core_ref/prng/prng.h"

namespace dashi::math_testing {

enum class Function { kExp, kSinPi, kCosPi };

struct ArgumentRange {
  std::string name;
  Function function;
  std::function<double(Xoshiro256ss&)> draw;
};

// Ranges of exp (the LES's exp(−ν k² dt) and the spectrum's exp(−2r²) lie in [−745, 0]) and of
// sinpi / cospi (wide magnitudes, and the neighbourhoods of the exact and the reduction points).
std::vector<ArgumentRange> StandardRanges();

struct AccuracyStats {
  int64_t count = 0;
  double max_ulp = 0;          // max |f(x) − f_true(x)| / ulp(f_true(x))
  double worst_argument = 0;   // where max_ulp was reached
  int64_t not_correctly_rounded = 0;  // ulp error > 0.5
  // The fast path (arguments where it applies): the largest relative error of its
  // double-double, in units of 2^-100; and how often its rounding test sent the argument to the
  // accurate path.
  int64_t fast_count = 0;
  double fast_max_rel_err_2m100 = 0;
  int64_t fallbacks = 0;
  // The accurate path on every argument of the range: results that differ from the function's
  // (an independent evaluation: must be 0), and midpoint-ambiguous results (must be 0).
  int64_t accurate_mismatches = 0;
  int64_t accurate_ambiguous = 0;
  double first_mismatch_argument = 0;
};

// One argument: the result, the truth, and the path statistics, folded into *stats.
void MeasureOne(Function f, double x, AccuracyStats* stats);

// `count` arguments drawn from the range with Xoshiro256**(seed).
AccuracyStats MeasureRange(const ArgumentRange& range, int64_t count, uint64_t seed);

std::string FormatStats(const std::string& name, const AccuracyStats& s);

}  // namespace dashi::math_testing

#endif  // DASHI_CORE_REF_MATH_ACCURACY_HARNESS_H_
