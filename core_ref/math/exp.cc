// Fast path: x = (128·m + j)·ln2/128 + r with |r| ≤ ln2/256 (Cody–Waite, ln2/128 in three
// pieces), e^x = 2^m · 2^(j/128) · e^r, the table entry and the degree-9 Taylor polynomial of
// e^r in double-double; relative error below 2^-100 (docs/MATH.md §5), so a result that is
// not within 2^-89 of a midpoint is the correctly rounded one. Otherwise, and for results that
// are subnormal or near overflow, the exact fixed-point evaluation (accurate_paths.h) decides.
#include "core_ref/math/exp.h"

#include <bit>
#include <cstdint>

#include "core_ref/math/accurate_paths.h"
#include "core_ref/math/double_double.h"
#include "core_ref/math/fast_paths.h"
#include "core_ref/math/math_tables.h"

namespace dashi {
namespace math_internal {

DoubleDouble ExpFast(double x, int* scale) {
  const double t = x * kExpInvLn2x128;
  const double kd = (t + 0x1.8p52) - 0x1.8p52;  // nearest integer, |kd| < 2^18
  const int64_t k = static_cast<int64_t>(kd);
  // r = x − kd·(C1 + C2 + C3): kd·C1 is exact (C1 has 32 bits) and so is x − kd·C1 (both are
  // multiples of ulp(x) or of C1's last bit, and the difference is below 2^-7).
  const double a = x - kd * kExpLn2Over128[0];
  const DoubleDouble p = TwoProd(kd, kExpLn2Over128[1]);
  DoubleDouble r = TwoSum(a, -p.hi);
  r = FastTwoSum(r.hi, (r.lo - p.lo) - kd * kExpLn2Over128[2]);

  // e^r = Σ_{n≤9} r^n/n!: the terms n ≥ 6 (below 2^-60) in double, the rest in double-double.
  double tail = kExpTaylor[9][0];
  for (int n = 8; n >= 6; --n) tail = kExpTaylor[n][0] + r.hi * tail;
  DoubleDouble poly{tail, 0.0};
  for (int n = 5; n >= 0; --n) poly = MulAdd(r, poly, {kExpTaylor[n][0], kExpTaylor[n][1]});

  const int64_t j = k & 127;
  *scale = static_cast<int>((k - j) / 128);
  return Mul({kExp2JOver128[j][0], kExp2JOver128[j][1]}, poly);
}

}  // namespace math_internal

double Exp(double x) {
  if (x != x) return x + x;            // NaN (quietened)
  if (x > 709.8) return x * 0x1p1023;  // > ln(DBL_MAX) ≈ 709.78: +Inf (also for +Inf)
  if (x < -745.2) return 0.0;          // e^x < 2^-1075: rounds to +0 (also for −Inf)
  const double ax = x < 0 ? -x : x;
  // |x| ≤ 2^-54: e^x is within 2^-54 + 2^-108 of 1, inside 1's rounding interval (its lower
  // half-width is 2^-54, reached only at x = −2^-54 where e^x − 1 + 2^-54 > 0).
  if (ax <= 0x1p-54) return 1.0;
  // Results near the subnormal range or overflow: rounded by the exact evaluation.
  if (x < -707.0 || x > 709.0) return math_internal::ExpAccurate(x, nullptr);
  int scale;
  const math_internal::DoubleDouble v = math_internal::ExpFast(x, &scale);
  double rounded;
  if (!math_internal::RoundsUnambiguously(v, math_internal::kExpFastMargin, &rounded)) {
    return math_internal::ExpAccurate(x, nullptr);
  }
  // scale ∈ [−1020, 1022] and v ∈ [0.99, 2): the product is normal, hence exact.
  return rounded * std::bit_cast<double>(static_cast<uint64_t>(scale + 1023) << 52);
}

}  // namespace dashi
