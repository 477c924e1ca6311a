// Error-free transformations and double-double arithmetic from plain IEEE-754 binary64 +, −, ×
// in a fixed order (docs/MATH.md §5). No FMA: products are split by Veltkamp/Dekker, so the
// results are the same on every CPU and compiler that rounds to nearest and does not contract
// (-ffp-contract=off), and on a GPU with `precise` operations.
//
//   DoubleDouble p = TwoProd(a, b);   // p.hi + p.lo == a·b exactly (no overflow / underflow)
#ifndef DASHI_CORE_REF_MATH_DOUBLE_DOUBLE_H_
#define DASHI_CORE_REF_MATH_DOUBLE_DOUBLE_H_

namespace dashi::math_internal {

// An unevaluated sum hi + lo.
struct DoubleDouble {
  double hi;
  double lo;
};

// s + e == a + b exactly (Knuth), for any finite a, b.
inline DoubleDouble TwoSum(double a, double b) {
  const double s = a + b;
  const double bb = s - a;
  const double e = (a - (s - bb)) + (b - bb);
  return {s, e};
}

// s + e == a + b exactly (Dekker), when a == 0 or |a| ≥ |b|.
inline DoubleDouble FastTwoSum(double a, double b) {
  const double s = a + b;
  const double e = b - (s - a);
  return {s, e};
}

// a == hi + lo with hi and lo of at most 26 significant bits each (Veltkamp, 2^27 + 1); |a| must
// stay below 2^995 so that the scaled product does not overflow.
inline DoubleDouble Split(double a) {
  const double c = 134217729.0 * a;
  const double hi = c - (c - a);
  return {hi, a - hi};
}

// p + e == a·b exactly (Dekker) unless the product or its error term over- or underflows.
inline DoubleDouble TwoProd(double a, double b) {
  const double p = a * b;
  const DoubleDouble as = Split(a);
  const DoubleDouble bs = Split(b);
  const double e = (((as.hi * bs.hi - p) + as.hi * bs.lo) + as.lo * bs.hi) + as.lo * bs.lo;
  return {p, e};
}

// a·b with a relative error below 2^-103 (|a.lo| ≤ ulp(a.hi), likewise b; a.lo·b.lo is dropped).
inline DoubleDouble Mul(DoubleDouble a, DoubleDouble b) {
  const DoubleDouble p = TwoProd(a.hi, b.hi);
  const double cross = a.hi * b.lo + a.lo * b.hi;
  return FastTwoSum(p.hi, p.lo + cross);
}

// a·b for a double b.
inline DoubleDouble Mul(DoubleDouble a, double b) {
  const DoubleDouble p = TwoProd(a.hi, b);
  return FastTwoSum(p.hi, p.lo + a.lo * b);
}

// a + b; the error is below 2^-104·(|a| + |b|), so it is relative where a and b do not cancel.
inline DoubleDouble Add(DoubleDouble a, DoubleDouble b) {
  const DoubleDouble s = TwoSum(a.hi, b.hi);
  return FastTwoSum(s.hi, s.lo + (a.lo + b.lo));
}

// One Horner step c + x·p.
inline DoubleDouble MulAdd(DoubleDouble x, DoubleDouble p, DoubleDouble c) {
  return Add(c, Mul(x, p));
}

inline DoubleDouble Negate(DoubleDouble a) { return {-a.hi, -a.lo}; }

// The double RN(hi + lo) when every value within ±err of hi + lo rounds to it; otherwise false.
// err ≥ 0 must exceed the true error bound by at least ulp(lo) (to cover the rounding of lo ± err).
// lb = RN(hi + RN(lo − err)) ≤ RN(v) ≤ RN(hi + RN(lo + err)) = ub by monotony of rounding.
inline bool RoundsUnambiguously(DoubleDouble v, double err, double* out) {
  const double lb = v.hi + (v.lo - err);
  const double ub = v.hi + (v.lo + err);
  if (lb != ub) return false;
  *out = lb;
  return true;
}

}  // namespace dashi::math_internal

#endif  // DASHI_CORE_REF_MATH_DOUBLE_DOUBLE_H_
