// Reduction (exact in doubles): |x| = n + f with n an integer, f ∈ [0, 1); f > ½ → 1 − f
// (cos changes sign), then f > ¼ → y = ½ − f with sin and cos swapped; so y ∈ (0, ¼].
// Fast path: y = j/64 + z, |z| ≤ 1/128; sin(πz)/z and cos(πz) by their Taylor polynomials in z²
// (double-double for the leading terms), combined with the double-double table of
// sin, cos(πj/64); relative error below 2^-98 (docs/MATH.md §5), so a result not within
// 2^-88 (relative) of a midpoint is the correctly rounded one. Otherwise, and for y < 2^-900
// (where Dekker's product would underflow), the exact fixed-point evaluation decides.
#include "core_ref/math/sincospi.h"

#include <cmath>
#include <cstdint>

#include "core_ref/math/accurate_paths.h"
#include "core_ref/math/double_double.h"
#include "core_ref/math/fast_paths.h"
#include "core_ref/math/math_tables.h"

namespace dashi {
namespace math_internal {
namespace {

DoubleDouble Entry(const double (&e)[2]) { return {e[0], e[1]}; }

}  // namespace

void SinCosPiFast(double y, DoubleDouble* sin_pi_y, DoubleDouble* cos_pi_y) {
  const int j = static_cast<int>(y * 64.0 + 0.5);  // 0..16
  const double z = y - j * 0x1p-6;                 // exact, |z| ≤ 1/128
  const DoubleDouble zz = TwoProd(z, z);

  // sin(πz)/z = Σ_{k≤6} s_k z^(2k): k ≥ 4 (below 2^-59) in double, the rest in double-double.
  double ts = kSinPiPoly[6][0];
  for (int k = 5; k >= 4; --k) ts = kSinPiPoly[k][0] + zz.hi * ts;
  DoubleDouble s{ts, 0.0};
  for (int k = 3; k >= 0; --k) s = MulAdd(zz, s, Entry(kSinPiPoly[k]));
  s = Mul(s, z);
  // cos(πz) = Σ_{k≤7} c_k z^(2k), likewise.
  double tc = kCosPiPoly[7][0];
  for (int k = 6; k >= 4; --k) tc = kCosPiPoly[k][0] + zz.hi * tc;
  DoubleDouble c{tc, 0.0};
  for (int k = 3; k >= 0; --k) c = MulAdd(zz, c, Entry(kCosPiPoly[k]));

  if (j == 0) {
    *sin_pi_y = s;
    *cos_pi_y = c;
    return;
  }
  // sin(a + b) = sin a cos b + cos a sin b; cos(a + b) = cos a cos b − sin a sin b.
  const DoubleDouble sa = Entry(kSinPiJOver64[j]), ca = Entry(kCosPiJOver64[j]);
  *sin_pi_y = Add(Mul(sa, c), Mul(ca, s));
  *cos_pi_y = Add(Mul(ca, c), Negate(Mul(sa, s)));
}

}  // namespace math_internal

namespace {

// sin(πy) and cos(πy) for 0 < y ≤ ¼, each rounded to nearest.
SinCos SinCosPiReduced(double y) {
  if (y < 0x1p-900) return {math_internal::SinPiAccurate(y, nullptr), 1.0};
  math_internal::DoubleDouble s, c;
  math_internal::SinCosPiFast(y, &s, &c);
  SinCos out;
  // Both are positive; the margins are relative: 2^-88·hi, a power-of-two scaling (exact).
  if (!math_internal::RoundsUnambiguously(s, s.hi * math_internal::kSinCosPiFastRelMargin,
                                          &out.sin)) {
    out.sin = math_internal::SinPiAccurate(y, nullptr);
  }
  if (!math_internal::RoundsUnambiguously(c, c.hi * math_internal::kSinCosPiFastRelMargin,
                                          &out.cos)) {
    out.cos = math_internal::CosPiAccurate(y, nullptr);
  }
  return out;
}

}  // namespace

SinCos SinCosPi(double x) {
  if (x - x != 0) return {x - x, x - x};  // NaN or ±Inf: NaN
  const bool negative = std::signbit(x);
  const double ax = negative ? -x : x;
  const double signed_zero = negative ? -0.0 : 0.0;
  if (ax >= 0x1p52) {  // an integer
    const bool odd = ax < 0x1p53 && (static_cast<int64_t>(ax) & 1) != 0;
    return {signed_zero, odd ? -1.0 : 1.0};
  }
  const int64_t n = static_cast<int64_t>(ax);  // floor(|x|)
  double f = ax - static_cast<double>(n);      // exact
  const bool sin_negative = negative != ((n & 1) != 0);
  bool cos_negative = (n & 1) != 0;
  if (f == 0) return {signed_zero, cos_negative ? -1.0 : 1.0};
  if (f == 0.5) return {sin_negative ? -1.0 : 1.0, 0.0};
  if (f > 0.5) {
    f = 1.0 - f;  // exact (Sterbenz)
    cos_negative = !cos_negative;
  }
  SinCos r;
  if (f > 0.25) {
    const SinCos w = SinCosPiReduced(0.5 - f);  // exact (Sterbenz)
    r = {w.cos, w.sin};
  } else {
    r = SinCosPiReduced(f);
  }
  return {sin_negative ? -r.sin : r.sin, cos_negative ? -r.cos : r.cos};
}

double SinPi(double x) { return SinCosPi(x).sin; }
double CosPi(double x) { return SinCosPi(x).cos; }

}  // namespace dashi
