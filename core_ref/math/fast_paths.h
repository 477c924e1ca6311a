// The fast paths of the own exp / sinpi / cospi (docs/MATH.md §5): double-double evaluations
// whose relative error is bounded well below the rounding-test margins given here. Exp and
// SinCosPi round them with RoundsUnambiguously (double_double.h) and fall back to the accurate
// paths when the margin straddles a midpoint. Exposed for the tests, which measure the actual
// error of these double-doubles and count the fallbacks.
#ifndef DASHI_CORE_REF_MATH_FAST_PATHS_H_
#define DASHI_CORE_REF_MATH_FAST_PATHS_H_

#include "core_ref/math/double_double.h"

namespace dashi::math_internal {

// e^x = v·2^scale for −707 ≤ x ≤ 709 and |x| > 2^-54, with v ∈ [2^(-1/256), 2^(255/256)];
// |v − true| < 2^-100 (analysis), tested against 2^-89.
inline constexpr double kExpFastMargin = 0x1p-89;
DoubleDouble ExpFast(double x, int* scale);

// sin(πy) and cos(πy) for 2^-900 ≤ y ≤ ¼, relative error < 2^-98 (analysis), tested against
// 2^-88·|hi|.
inline constexpr double kSinCosPiFastRelMargin = 0x1p-88;
void SinCosPiFast(double y, DoubleDouble* sin_pi_y, DoubleDouble* cos_pi_y);

}  // namespace dashi::math_internal

#endif  // DASHI_CORE_REF_MATH_FAST_PATHS_H_
