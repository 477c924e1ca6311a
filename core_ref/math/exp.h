// e^x, correctly rounded to nearest, from plain IEEE-754 double operations and integer
// arithmetic only (docs/MATH.md §5): the same bits on every platform, independent of the C
// library, of FMA hardware and of the compiler. The reference uses it instead of std::exp.
//
//   double decay = Exp(-nu * k2 * dt);
#ifndef DASHI_CORE_REF_MATH_EXP_H_
#define DASHI_CORE_REF_MATH_EXP_H_

namespace dashi {

// e^x rounded to nearest (ties to even). Exp(NaN) is NaN, Exp(+Inf) = +Inf, Exp(−Inf) = +0;
// results past the largest double are +Inf, results below half the smallest subnormal +0.
double Exp(double x);

}  // namespace dashi

#endif  // DASHI_CORE_REF_MATH_EXP_H_
