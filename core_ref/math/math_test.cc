// The own Exp / SinPi / CosPi: special values and IEEE 754-2019's exact cases, symmetries, the
// edges of every path (|x| = 2^-54, the subnormal and overflow thresholds of exp, the exact
// reduction points of sinpi/cospi), and a sized sample of every accuracy range checked against
// Boost.Multiprecision (accuracy_harness.h): every result correctly rounded, the fast path's
// error within its analysed bound, the independent accurate path agreeing bit for bit.
// The full run over millions of arguments is accuracy_benchmark (docs/MATH.md §5).
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "core_ref/math/accuracy_harness.h"
#include "core_ref/math/exp.h"
#include "core_ref/math/sincospi.h"

namespace dashi {
namespace {

using math_testing::AccuracyStats;
using math_testing::Function;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

uint64_t Bits(double d) { return std::bit_cast<uint64_t>(d); }

// Every double within `ulps` steps of p.
std::vector<double> Around(double p, int ulps) {
  std::vector<double> v{p};
  double up = p, down = p;
  for (int i = 0; i < ulps; ++i) {
    up = std::nextafter(up, kInf);
    down = std::nextafter(down, -kInf);
    v.push_back(up);
    v.push_back(down);
  }
  return v;
}

void ExpectCorrectlyRounded(Function f, const std::vector<double>& args) {
  AccuracyStats s;
  for (double x : args) math_testing::MeasureOne(f, x, &s);
  EXPECT_EQ(s.not_correctly_rounded, 0) << math_testing::FormatStats("edge arguments", s);
  EXPECT_EQ(s.accurate_mismatches, 0) << "first at x = " << s.first_mismatch_argument;
  EXPECT_EQ(s.accurate_ambiguous, 0);
}

TEST(ExpTest, SpecialValues) {
  EXPECT_TRUE(std::isnan(Exp(kNaN)));
  EXPECT_EQ(Exp(kInf), kInf);
  EXPECT_EQ(Bits(Exp(-kInf)), Bits(0.0));
  EXPECT_EQ(Exp(0.0), 1.0);
  EXPECT_EQ(Exp(-0.0), 1.0);
  EXPECT_EQ(Exp(1000.0), kInf);
  EXPECT_EQ(Bits(Exp(-1000.0)), Bits(0.0));
  EXPECT_EQ(Exp(-745.2), 0.0);
  EXPECT_EQ(Exp(-745.0), std::numeric_limits<double>::denorm_min());  // e^-745 ≈ 0.99·2^-1074
}

TEST(ExpTest, EdgesOfEveryPath) {
  std::vector<double> args;
  for (double p : {0x1p-54, -0x1p-54, 0x1p-53, -0x1p-53, 0x1p-30, -0x1p-30,
                   709.782712893384,     // ln(DBL_MAX): the overflow threshold
                   -708.3964185322641,   // ln(2^-1022): the subnormal threshold
                   -745.1332191019411,   // ln(2^-1075): below it, +0
                   -744.4400719213812,   // ln(2^-1074)
                   -707.0, 709.0, 1.0, -1.0, 0.5 * 0.6931471805599453}) {
    for (double x : Around(p, 8)) args.push_back(x);
  }
  ExpectCorrectlyRounded(Function::kExp, args);
}

TEST(SinCosPiTest, ExactCasesAndSigns) {
  for (double n : {0.0, 1.0, 2.0, 3.0, 1e6, 0x1p51, 0x1p52, 0x1p52 + 1, 0x1p53, 0x1p60, 1e300}) {
    SCOPED_TRACE(n);
    EXPECT_EQ(Bits(SinPi(n)), Bits(0.0));
    EXPECT_EQ(Bits(SinPi(-n)), Bits(-0.0));
    const bool odd = n < 0x1p53 && std::fmod(n, 2.0) == 1.0;
    EXPECT_EQ(CosPi(n), odd ? -1.0 : 1.0);
    EXPECT_EQ(CosPi(-n), odd ? -1.0 : 1.0);
  }
  for (double h : {0.5, 1.5, 2.5, 1e6 + 0.5, 0x1p51 + 0.5}) {
    SCOPED_TRACE(h);
    const double sign = std::fmod(h - 0.5, 2.0) == 0 ? 1.0 : -1.0;  // sin(π(2m + ½)) = 1
    EXPECT_EQ(SinPi(h), sign);
    EXPECT_EQ(SinPi(-h), -sign);
    EXPECT_EQ(Bits(CosPi(h)), Bits(0.0));
    EXPECT_EQ(Bits(CosPi(-h)), Bits(0.0));
  }
  EXPECT_EQ(SinPi(0.25), CosPi(0.25));
  EXPECT_EQ(SinPi(0.25), 0x1.6a09e667f3bcdp-1);  // RN(√2/2), also checked against Boost below
  for (double bad : {kNaN, kInf, -kInf}) {
    EXPECT_TRUE(std::isnan(SinPi(bad)));
    EXPECT_TRUE(std::isnan(CosPi(bad)));
  }
  const double tiny = std::numeric_limits<double>::denorm_min();
  EXPECT_EQ(SinPi(tiny), 3 * tiny);  // π·2^-1074 rounds to 3·2^-1074
  EXPECT_EQ(SinPi(-tiny), -3 * tiny);
  EXPECT_EQ(CosPi(tiny), 1.0);
}

TEST(SinCosPiTest, SymmetriesHoldBitForBit) {
  Xoshiro256ss rng(31);  // replay: this seed
  for (int i = 0; i < 20000; ++i) {
    const double x = 4.0 * rng.NextDouble() - 2.0;
    const SinCos w = SinCosPi(x);
    ASSERT_EQ(Bits(w.sin), Bits(SinPi(x))) << x;
    ASSERT_EQ(Bits(w.cos), Bits(CosPi(x))) << x;
    ASSERT_EQ(Bits(SinPi(-x)), Bits(-w.sin)) << x;
    ASSERT_EQ(Bits(CosPi(-x)), Bits(w.cos)) << x;
    const double shifted = x + 4.0;
    if (shifted - 4.0 == x) {  // the shift was exact
      ASSERT_EQ(Bits(SinPi(shifted)), Bits(w.sin)) << x;
      ASSERT_EQ(Bits(CosPi(shifted)), Bits(w.cos)) << x;
    }
    const double x8 = std::ldexp(std::floor(std::ldexp(x, 8)), -8) + 6.0;  // exact: 8 bits
    ASSERT_EQ(SinPi(x8), SinPi(x8 - 6.0)) << x8;  // == : sinπ(5) = +0, sinπ(−1) = −0
    const double u = rng.NextDouble() * 0.5;  // cos(π(½ − u)) = sin(πu), ½ − u exact for u ≥ ¼
    if (u >= 0.25) {
      ASSERT_EQ(Bits(CosPi(0.5 - u)), Bits(SinPi(u))) << u;
    }
  }
}

TEST(SinCosPiTest, EdgesOfEveryPath) {
  std::vector<double> args;
  for (double p : {0.25, 0.5, 1.0, 0.75, 1.25, 1.5, 1.75, 2.0, 1.0 / 64, 3.0 / 128, 0x1p-900,
                   0x1p-1022, 0x1p52, 0x1p51, 0x1p-27, 0.0}) {
    for (double x : Around(p, 6)) {
      args.push_back(x);
      args.push_back(-x);
    }
  }
  ExpectCorrectlyRounded(Function::kSinPi, args);
  ExpectCorrectlyRounded(Function::kCosPi, args);
}

// Arguments whose result lies within 2^-100 of a midpoint, so the fast path's rounding test
// must send them to the accurate path: e^x for x just below 2^-53 (1 + x + x²/2 against the
// midpoint 1 + 2^-53), and cos(πy) ≈ 1 − (πy)²/2 for y ≈ 2^-27·√(2m)/π, m = 1, 3 (against the
// midpoints 1 − m·2^-54 below 1).
TEST(AccuracyTest, NearMidpointArgumentsTakeTheAccuratePathAndRoundCorrectly) {
  AccuracyStats e;
  for (double x : Around(0x1p-53, 16)) math_testing::MeasureOne(Function::kExp, x, &e);
  EXPECT_GT(e.fallbacks, 0) << math_testing::FormatStats("exp near 2^-53", e);
  EXPECT_EQ(e.not_correctly_rounded, 0);
  EXPECT_EQ(e.accurate_mismatches, 0);
  AccuracyStats c;
  for (double k : {1.0, 3.0}) {
    const double y = 0x1p-27 * std::sqrt(2.0 * k) / 3.141592653589793;
    for (double x : Around(y, 16)) math_testing::MeasureOne(Function::kCosPi, x, &c);
  }
  EXPECT_GT(c.fallbacks, 0) << math_testing::FormatStats("cospi near midpoints below 1", c);
  EXPECT_EQ(c.not_correctly_rounded, 0);
  EXPECT_EQ(c.accurate_mismatches, 0);
}

// A sized sample of every range of the long run; the analysed fast-path bounds are 2^-100
// (exp) and 2^-98 (sinpi, cospi) relative: the measured error must stay within them.
TEST(AccuracyTest, SampleOfEveryRangeIsCorrectlyRounded) {
  constexpr int64_t kPerRange = 2000;
  uint64_t seed = 1;
  for (const math_testing::ArgumentRange& range : math_testing::StandardRanges()) {
    const AccuracyStats s = math_testing::MeasureRange(range, kPerRange, seed);
    std::printf("%s   [seed %llu]\n", math_testing::FormatStats(range.name, s).c_str(),
                static_cast<unsigned long long>(seed));
    EXPECT_EQ(s.not_correctly_rounded, 0) << range.name << ", worst x = " << s.worst_argument;
    EXPECT_LE(s.max_ulp, 0.5) << range.name;
    EXPECT_EQ(s.accurate_mismatches, 0) << range.name << ", first x = "
                                        << s.first_mismatch_argument;
    EXPECT_EQ(s.accurate_ambiguous, 0) << range.name;
    const double bound = range.function == Function::kExp ? 1.0 : 4.0;  // units of 2^-100
    EXPECT_LE(s.fast_max_rel_err_2m100, bound) << range.name;
    ++seed;
  }
}

}  // namespace
}  // namespace dashi
