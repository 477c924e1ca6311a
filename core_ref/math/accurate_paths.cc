#include "core_ref/math/accurate_paths.h"

#include <cstdint>

#include "core_ref/math/fixed_point.h"
#include "core_ref/math/math_tables.h"

namespace dashi::math_internal {
namespace {

// Error bounds in units of 2^-192 (the derivations are in docs/MATH.md §5).
// exp: r = |x| − k·ln2 is off by k·(ln2 − LN2) < 1076·2^-192 (LN2 truncated), e^r ≤ 2 doubles
// it; each of the ≤ 60 Taylor terms adds < 3 units of truncation: < 2^12 units; 2^13 is used.
constexpr uint64_t kExpErrUnits = uint64_t{1} << 13;
// sinpi/cospi: u = π²·y² is off by < 16 units, the ≤ 40 series terms add < 3 units each, and
// the product by π (sine) multiplies by < 4: < 2^9 units; 2^10 is used.
constexpr uint64_t kSinCosErrUnits = uint64_t{1} << 10;

// Σ_k (−1)^k u^k / ((2k + offset)! / offset!) — with offset 1 the series of sin(√u)/√u, with
// offset 0 that of cos(√u) — for 0 ≤ u < 1, in two non-negative accumulators (even and odd k)
// so that every operation stays unsigned; the even sum always exceeds the odd one.
Fixed AlternatingSeries(const Fixed& u, uint32_t offset) {
  Fixed even = FixedFromInt(1), odd;
  Fixed term = FixedFromInt(1);
  for (uint32_t k = 1;; ++k) {
    const uint32_t divisor = (2 * k - 1 + offset) * (2 * k + offset);
    term = FixedDivInt(FixedMul(term, u), divisor);
    if (FixedIsZero(term)) break;
    if (k % 2 == 0) {
      even = FixedAdd(even, term);
    } else {
      odd = FixedAdd(odd, term);
    }
  }
  return FixedSub(even, odd);
}

// (π·y)² in fixed point.
Fixed PiYSquared(double y) {
  const Fixed yf = FixedFromDouble(y);
  return FixedMul(FixedMul(yf, yf), FixedFromLimbs(kFixedPiSquared));
}

}  // namespace

double ExpAccurate(double x, bool* ambiguous) {
  const bool negative = x < 0;
  const double ax = negative ? -x : x;
  const Fixed xf = FixedFromDouble(ax);  // exact: 2^-54 < |x| < 746
  const Fixed ln2 = FixedFromLimbs(kFixedLn2);
  // r = |x| − k·ln2 ∈ [0, ln2) for x ≥ 0; r = k·ln2 − |x| ∈ [0, ln2) for x < 0 (then e^x =
  // e^r·2^-k). The estimate k0 from a double division is corrected by exact comparisons.
  const int64_t k0 = static_cast<int64_t>(ax * 0x1.71547652b82fep0);  // ax/ln2, truncated
  int64_t k = negative ? k0 + 1 : k0;
  Fixed kln2 = FixedMulInt(ln2, static_cast<uint32_t>(k));
  if (!negative && FixedLess(xf, kln2)) {
    --k;
    kln2 = FixedSub(kln2, ln2);
  }
  if (negative && FixedLess(kln2, xf)) {
    ++k;
    kln2 = FixedAdd(kln2, ln2);
  }
  Fixed r = negative ? FixedSub(kln2, xf) : FixedSub(xf, kln2);
  while (!FixedLess(r, ln2)) {
    r = FixedSub(r, ln2);
    k += negative ? -1 : 1;
  }
  // e^r = Σ r^n/n!, 0 ≤ r < ln2, until the terms vanish at 2^-192.
  Fixed sum = FixedFromInt(1), term = FixedFromInt(1);
  for (uint32_t n = 1;; ++n) {
    term = FixedDivInt(FixedMul(term, r), n);
    if (FixedIsZero(term)) break;
    sum = FixedAdd(sum, term);
  }
  const int scale = static_cast<int>(negative ? -k : k);
  return RoundToDouble(sum.limb, scale - kFixedFractionBits, kExpErrUnits, ambiguous);
}

double SinPiAccurate(double y, bool* ambiguous) {
  // sin(πy) = y · π·S(u), S(u) = Σ (−1)^k u^k/(2k+1)!, u = (πy)²: π·S is known to an absolute
  // 2^-182, and y = M·2^e is multiplied in exactly, so the product keeps the relative error.
  const Fixed g = FixedMul(AlternatingSeries(PiYSquared(y), 1), FixedFromLimbs(kFixedPi));
  const DoubleParts p = DecomposeDouble(y);
  const uint32_t m[2] = {static_cast<uint32_t>(p.significand),
                         static_cast<uint32_t>(p.significand >> 32)};
  uint32_t prod[2 + kFixedLimbs];
  MultiplyWords(m, g.limb, prod);
  // The error of g, times M < 2^53, stays below 2^64 units.
  return RoundToDouble(prod, p.exponent - kFixedFractionBits, kSinCosErrUnits * p.significand,
                       ambiguous);
}

double CosPiAccurate(double y, bool* ambiguous) {
  const Fixed c = AlternatingSeries(PiYSquared(y), 0);
  return RoundToDouble(c.limb, -kFixedFractionBits, kSinCosErrUnits, ambiguous);
}

}  // namespace dashi::math_internal
