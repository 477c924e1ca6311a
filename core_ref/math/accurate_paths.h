// The accurate (slow) paths of the own exp / sinpi / cospi (docs/MATH.md §5): the functions
// evaluated in exact 224-bit fixed-point integer arithmetic (fixed_point.h) to a relative error
// below 2^-180, then rounded once to nearest. Exp and SinCosPi (exp.h, sincospi.h) take them
// when their double-double result is too close to a rounding boundary, and for arguments whose
// result is subnormal or near overflow. Tests call them directly as an independent second
// evaluation.
//
// *ambiguous (if not null) reports a value within the error bound of a midpoint between two
// doubles: the result is then the rounding of the approximation, still deterministic, but not
// proven correctly rounded (no such argument is known; the tests count them).
#ifndef DASHI_CORE_REF_MATH_ACCURATE_PATHS_H_
#define DASHI_CORE_REF_MATH_ACCURATE_PATHS_H_

namespace dashi::math_internal {

// e^x for finite x with 2^-54 < |x|, −746 < x < 710.
double ExpAccurate(double x, bool* ambiguous);

// sin(π·y) for 0 < y ≤ 1/4, and cos(π·y) for 0 ≤ y ≤ 1/4 (y exact: the reduction is the caller's).
double SinPiAccurate(double y, bool* ambiguous);
double CosPiAccurate(double y, bool* ambiguous);

}  // namespace dashi::math_internal

#endif  // DASHI_CORE_REF_MATH_ACCURATE_PATHS_H_
