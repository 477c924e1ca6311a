// Exact multi-word integer arithmetic for the accurate paths of the own exp / sinpi / cospi
// (docs/MATH.md §5): unsigned fixed-point numbers of 224 bits (32 integer bits, 192 fraction
// bits) in 32-bit limbs, and the correctly rounded conversion of a multi-word integer times a
// power of two to binary64 (subnormals, overflow, ties to even). Only integer operations: the
// result does not depend on the CPU, the compiler or a floating-point mode.
//
//   Fixed r = FixedMul(a, b);                       // a·b truncated to 192 fraction bits
//   double d = RoundToDouble(words, -192, err, &ambiguous);
#ifndef DASHI_CORE_REF_MATH_FIXED_POINT_H_
#define DASHI_CORE_REF_MATH_FIXED_POINT_H_

#include <cstdint>
#include <span>

namespace dashi::math_internal {

inline constexpr int kFixedLimbs = 7;
inline constexpr int kFixedFractionBits = 192;

// value = Σ limb[i]·2^(32i) · 2^-192, limb[0] least significant.
struct Fixed {
  uint32_t limb[kFixedLimbs] = {};
};

Fixed FixedFromLimbs(const uint32_t (&limbs)[kFixedLimbs]);
Fixed FixedFromInt(uint32_t v);
// |x| truncated to 192 fraction bits (exact when the lowest set bit of x is ≥ 2^-192);
// requires a finite |x| < 2^32.
Fixed FixedFromDouble(double x);

bool FixedIsZero(const Fixed& a);
bool FixedLess(const Fixed& a, const Fixed& b);
Fixed FixedAdd(const Fixed& a, const Fixed& b);        // modulo 2^32 in the integer part
Fixed FixedSub(const Fixed& a, const Fixed& b);        // requires a ≥ b
Fixed FixedMul(const Fixed& a, const Fixed& b);        // truncated (error < 2^-192)
Fixed FixedMulInt(const Fixed& a, uint32_t m);         // exact if the integer part fits
Fixed FixedDivInt(const Fixed& a, uint32_t d);         // truncated (error < 2^-192), d > 0

// product = a·b exactly (schoolbook); product.size() must be a.size() + b.size().
void MultiplyWords(std::span<const uint32_t> a, std::span<const uint32_t> b,
                   std::span<uint32_t> product);

// The significand M (an integer < 2^53) and exponent e of a finite x ≠ 0: |x| = M·2^e.
struct DoubleParts {
  uint64_t significand;
  int exponent;
};
DoubleParts DecomposeDouble(double x);

// Round V·2^exponent to the nearest binary64 (ties to even; subnormals; +Inf past the largest
// finite double), V = Σ words[i]·2^(32i) ≥ 0. The caller knows V only to within ±err units of
// 2^exponent: *ambiguous (if not null) is set when a value within that range could round
// differently, i.e. V is within err of a midpoint between two doubles.
double RoundToDouble(std::span<const uint32_t> words, int exponent, uint64_t err,
                     bool* ambiguous);

}  // namespace dashi::math_internal

#endif  // DASHI_CORE_REF_MATH_FIXED_POINT_H_
