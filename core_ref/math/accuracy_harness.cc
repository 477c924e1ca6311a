#include "core_ref/math/accuracy_harness.h"

#include <bit>
#include <cmath>
#include <cstdio>
#include <limits>

#include <boost/multiprecision/cpp_bin_float.hpp>

#include "core_ref/math/accurate_paths.h"
#include "core_ref/math/exp.h"
#include "core_ref/math/fast_paths.h"
#include "core_ref/math/sincospi.h"

namespace dashi::math_testing {
namespace {

using HP = boost::multiprecision::cpp_bin_float_50;  // 166-bit significand

const HP& Pi() {
  static const HP pi = boost::math::constants::pi<HP>();
  return pi;
}

// ulp of a double of the magnitude of t (t ≥ 0): 2^(e − 53) for t ∈ [2^(e−1), 2^e), at least
// the smallest subnormal.
HP Ulp(const HP& t) {
  if (t == 0) return HP(std::numeric_limits<double>::denorm_min());
  int e;
  (void)frexp(t, &e);
  return ldexp(HP(1), e - 53 < -1074 ? -1074 : e - 53);
}

double UlpError(double got, const HP& truth) {
  if (std::isnan(got)) return std::numeric_limits<double>::infinity();
  const HP a = abs(truth);
  if (std::isinf(got)) {
    // RN overflows exactly from 2^1024 − 2^970 on (half an ulp past the largest double).
    const HP threshold = ldexp(HP(1), 1024) - ldexp(HP(1), 970);
    const bool same_sign = (got > 0) == (truth > 0);
    return same_sign && a >= threshold ? 0.0 : std::numeric_limits<double>::infinity();
  }
  return static_cast<double>(abs(HP(got) - truth) / Ulp(a));
}

HP ExpTruth(double x) { return exp(HP(x)); }

// sin(πx) or cos(πx) by an exact fold into [0, ½] (166-bit arithmetic on exact values) and one
// Boost sine: the truth does not share the implementation's reduction or tables.
HP SinCosPiTruth(Function f, double x) {
  HP d = HP(std::fmod(x, 2.0));  // exact, |d| < 2
  HP sign = 1;
  if (f == Function::kSinPi && d < 0) {
    d = -d;
    sign = -sign;
  }
  if (f == Function::kCosPi && d < 0) d = -d;
  if (d >= 1) {
    d -= 1;
    sign = -sign;
  }
  if (d > HP(0.5)) {
    d = 1 - d;
    if (f == Function::kCosPi) sign = -sign;
  }
  if (f == Function::kCosPi) d = HP(0.5) - d;  // cos(πd) = sin(π(½ − d))
  return sign * sin(Pi() * d);
}

bool SameBits(double a, double b) { return std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b); }

void Fold(AccuracyStats* s, double x, double ulp_err) {
  ++s->count;
  if (ulp_err > 0.5) ++s->not_correctly_rounded;
  if (ulp_err > s->max_ulp || s->count == 1) {
    s->max_ulp = ulp_err;
    s->worst_argument = x;
  }
}

void FoldFast(AccuracyStats* s, const math_internal::DoubleDouble& v, const HP& truth,
              bool rounded) {
  ++s->fast_count;
  const HP rel = abs((HP(v.hi) + HP(v.lo)) - truth) / abs(truth);
  const double in_units = static_cast<double>(ldexp(rel, 100));
  if (in_units > s->fast_max_rel_err_2m100) s->fast_max_rel_err_2m100 = in_units;
  if (!rounded) ++s->fallbacks;
}

void FoldAccurate(AccuracyStats* s, double x, double accurate, double got, bool ambiguous) {
  if (!SameBits(accurate, got)) {
    if (s->accurate_mismatches++ == 0) s->first_mismatch_argument = x;
  }
  if (ambiguous) ++s->accurate_ambiguous;
}

void MeasureExp(double x, AccuracyStats* s) {
  const double got = Exp(x);
  const HP truth = ExpTruth(x);
  Fold(s, x, UlpError(got, truth));
  const double ax = std::fabs(x);
  if (ax <= 0x1p-54 || x <= -746 || x >= 710) return;
  if (x >= -707 && x <= 709) {
    int scale;
    const math_internal::DoubleDouble v = math_internal::ExpFast(x, &scale);
    double r;
    FoldFast(s, v, ldexp(truth, -scale),
             math_internal::RoundsUnambiguously(v, math_internal::kExpFastMargin, &r));
  }
  bool ambiguous;
  const double acc = math_internal::ExpAccurate(x, &ambiguous);  // before `ambiguous` is read
  FoldAccurate(s, x, acc, got, ambiguous);
}

void MeasureSinCosPi(Function f, double x, AccuracyStats* s) {
  const double got = f == Function::kSinPi ? SinPi(x) : CosPi(x);
  Fold(s, x, UlpError(got, SinCosPiTruth(f, x)));
  // The reduced argument, for the path statistics (mirrors sincospi.cc's exact reduction).
  const double ax = std::fabs(x);
  if (ax >= 0x1p52) return;
  double fr = ax - std::floor(ax);
  if (fr == 0 || fr == 0.5) return;
  if (fr > 0.5) fr = 1 - fr;
  const bool swap = fr > 0.25;
  const double y = swap ? 0.5 - fr : fr;
  const bool want_sin = (f == Function::kSinPi) != swap;  // which of sin(πy), cos(πy)
  const HP truth = want_sin ? sin(Pi() * HP(y)) : cos(Pi() * HP(y));
  if (y >= 0x1p-900) {
    math_internal::DoubleDouble sv, cv;
    math_internal::SinCosPiFast(y, &sv, &cv);
    const math_internal::DoubleDouble v = want_sin ? sv : cv;
    double r;
    FoldFast(s, v, truth,
             math_internal::RoundsUnambiguously(v, v.hi * math_internal::kSinCosPiFastRelMargin,
                                                &r));
  }
  bool ambiguous;
  const double acc = want_sin ? math_internal::SinPiAccurate(y, &ambiguous)
                              : math_internal::CosPiAccurate(y, &ambiguous);
  FoldAccurate(s, x, acc, std::fabs(got), ambiguous);
}

double Uniform(Xoshiro256ss& rng, double lo, double hi) {
  return lo + (hi - lo) * rng.NextDouble();
}

// |x| = 2^e·(1 + fraction) with e uniform in [e_lo, e_hi] and a random 52-bit fraction.
double LogUniform(Xoshiro256ss& rng, int e_lo, int e_hi) {
  const int e = e_lo + static_cast<int>(rng.NextBelow(static_cast<uint64_t>(e_hi - e_lo + 1)));
  const double m = 1.0 + static_cast<double>(rng.Next() >> 12) * 0x1p-52;
  double scale = 1.0;
  for (int i = 0; i < e; ++i) scale *= 2.0;
  for (int i = 0; i > e; --i) scale *= 0.5;  // exact down to the subnormals
  return m * scale;
}

double RandomSign(Xoshiro256ss& rng, double v) { return (rng.Next() >> 63) ? -v : v; }

// p plus or minus up to `ulps` steps of nextafter.
double Near(Xoshiro256ss& rng, double p, int ulps) {
  const int steps = static_cast<int>(rng.NextBelow(static_cast<uint64_t>(ulps) + 1));
  const double dir = (rng.Next() >> 63) ? 10 * (std::fabs(p) + 1) : -10 * (std::fabs(p) + 1);
  double v = p;
  for (int i = 0; i < steps; ++i) v = std::nextafter(v, dir);
  return v;
}

}  // namespace

void MeasureOne(Function f, double x, AccuracyStats* stats) {
  if (f == Function::kExp) {
    MeasureExp(x, stats);
  } else {
    MeasureSinCosPi(f, x, stats);
  }
}

std::vector<ArgumentRange> StandardRanges() {
  std::vector<ArgumentRange> r;
  const Function kExp = Function::kExp;
  r.push_back({"exp uniform [-745.2, 0]", kExp, [](Xoshiro256ss& g) { return Uniform(g, -745.2, 0); }});
  r.push_back({"exp uniform [0, 709.8]", kExp, [](Xoshiro256ss& g) { return Uniform(g, 0, 709.8); }});
  r.push_back({"exp uniform [-20, 0] (LES factors, spectrum shape)", kExp,
               [](Xoshiro256ss& g) { return Uniform(g, -20, 0); }});
  r.push_back({"exp |x| log-uniform [2^-54, 2^0], both signs", kExp,
               [](Xoshiro256ss& g) { return RandomSign(g, LogUniform(g, -54, 0)); }});
  r.push_back({"exp subnormal and overflow edges [-745.2, -707] + [709, 709.8]", kExp,
               [](Xoshiro256ss& g) {
                 const double u = Uniform(g, 0, 1);
                 return (g.Next() >> 63) ? -707 - 38.2 * u : 709 + 0.8 * u;
               }});
  r.push_back({"exp near k*ln2/128 (+-64 ulps)", kExp, [](Xoshiro256ss& g) {
                 const int64_t k = static_cast<int64_t>(g.NextBelow(2 * 90000)) - 90000;
                 return Near(g, static_cast<double>(k) * 0x1.62e42fefa39efp-8, 64);
               }});
  for (Function f : {Function::kSinPi, Function::kCosPi}) {
    const std::string n = f == Function::kSinPi ? "sinpi" : "cospi";
    r.push_back({n + " uniform [-2, 2) (phases 2u)", f,
                 [](Xoshiro256ss& g) { return Uniform(g, -2, 2); }});
    r.push_back({n + " uniform [0, 1/4]", f, [](Xoshiro256ss& g) { return Uniform(g, 0, 0.25); }});
    r.push_back({n + " |x| log-uniform [2^-1074, 2^53], both signs", f,
                 [](Xoshiro256ss& g) { return RandomSign(g, LogUniform(g, -1074, 53)); }});
    r.push_back({n + " twiddle angles 2k/n, n = 2^1..2^20", f, [](Xoshiro256ss& g) {
                   const int p = 1 + static_cast<int>(g.NextBelow(20));
                   const uint64_t n2 = uint64_t{1} << p;
                   return 2.0 * static_cast<double>(g.NextBelow(n2)) / static_cast<double>(n2);
                 }});
    r.push_back({n + " near k/4 and j/64 (+-2^20 ulps)", f, [](Xoshiro256ss& g) {
                   const double base = static_cast<double>(g.NextBelow(64 * 8)) / 64.0 - 4.0;
                   const int steps = 1 << static_cast<int>(g.NextBelow(21));
                   return Near(g, base, steps);
                 }});
    r.push_back({n + " uniform [-2^30, 2^30]", f,
                 [](Xoshiro256ss& g) { return Uniform(g, -0x1p30, 0x1p30); }});
  }
  return r;
}

AccuracyStats MeasureRange(const ArgumentRange& range, int64_t count, uint64_t seed) {
  Xoshiro256ss rng(seed);
  AccuracyStats s;
  for (int64_t i = 0; i < count; ++i) MeasureOne(range.function, range.draw(rng), &s);
  return s;
}

std::string FormatStats(const std::string& name, const AccuracyStats& s) {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "%-62s n=%-9lld max %.9f ulp (x=%.17g) >0.5ulp:%lld | fast: n=%lld max rel err "
                "%.3g*2^-100 fallbacks %lld | accurate: mismatches %lld ambiguous %lld",
                name.c_str(), static_cast<long long>(s.count), s.max_ulp, s.worst_argument,
                static_cast<long long>(s.not_correctly_rounded),
                static_cast<long long>(s.fast_count), s.fast_max_rel_err_2m100,
                static_cast<long long>(s.fallbacks), static_cast<long long>(s.accurate_mismatches),
                static_cast<long long>(s.accurate_ambiguous));
  return buf;
}

}  // namespace dashi::math_testing
