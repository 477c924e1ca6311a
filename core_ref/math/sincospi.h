// sin(πx) and cos(πx), correctly rounded to nearest, from plain IEEE-754 double operations and
// integer arithmetic only (docs/MATH.md §5): the same bits on every platform. Every angle of the
// reference is a rational multiple of π, so its argument x is exact (the FFT's twiddle angle
// 2k/n, the random phase 2u of a uniform u), and the reduction modulo 2 is exact too.
//
//   const SinCos w = SinCosPi(2.0 * u);     // e^{iφ} for φ = 2πu
//   Complex c(amp * w.cos, amp * w.sin);
#ifndef DASHI_CORE_REF_MATH_SINCOSPI_H_
#define DASHI_CORE_REF_MATH_SINCOSPI_H_

namespace dashi {

struct SinCos {
  double sin;
  double cos;
};

// Both rounded to nearest (ties to even). IEEE 754-2019 §9.2 for exact cases: sinπ(±n) = ±0
// (the sign of x) for an integer n, cosπ(n + ½) = +0, cosπ(n) = ±1; NaN and ±Inf give NaN.
SinCos SinCosPi(double x);
double SinPi(double x);
double CosPi(double x);

}  // namespace dashi

#endif  // DASHI_CORE_REF_MATH_SINCOSPI_H_
