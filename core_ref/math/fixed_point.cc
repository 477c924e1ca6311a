#include "core_ref/math/fixed_point.h"

#include <bit>

namespace dashi::math_internal {
namespace {

constexpr uint64_t kOne = 1;

uint32_t Bit(std::span<const uint32_t> w, int i) {
  if (i < 0 || i >= 32 * static_cast<int>(w.size())) return 0;
  return (w[static_cast<size_t>(i / 32)] >> (i % 32)) & 1u;
}

// Whether the integer formed by bits [0, nbits) of w — each bit inverted if `inverted` — is at
// most bound.
bool LowBitsAtMost(std::span<const uint32_t> w, int nbits, bool inverted, uint64_t bound) {
  uint64_t low = 0;
  for (int i = nbits - 1; i >= 0; --i) {
    const uint32_t b = Bit(w, i) ^ (inverted ? 1u : 0u);
    if (i >= 64) {
      if (b != 0) return false;
    } else {
      low |= static_cast<uint64_t>(b) << i;
    }
  }
  return low <= bound;
}

}  // namespace

Fixed FixedFromLimbs(const uint32_t (&limbs)[kFixedLimbs]) {
  Fixed f;
  for (int i = 0; i < kFixedLimbs; ++i) f.limb[i] = limbs[i];
  return f;
}

Fixed FixedFromInt(uint32_t v) {
  Fixed f;
  f.limb[kFixedLimbs - 1] = v;
  return f;
}

DoubleParts DecomposeDouble(double x) {
  const uint64_t bits = std::bit_cast<uint64_t>(x);
  const int biased = static_cast<int>((bits >> 52) & 0x7FF);
  const uint64_t fraction = bits & ((kOne << 52) - 1);
  if (biased == 0) return {fraction, -1074};
  return {fraction | (kOne << 52), biased - 1075};
}

Fixed FixedFromDouble(double x) {
  Fixed f;
  if (x == 0) return f;
  const DoubleParts p = DecomposeDouble(x);
  const int shift = p.exponent + kFixedFractionBits;  // bit position of the significand's bit 0
  for (int b = 0; b < 53; ++b) {
    if (((p.significand >> b) & 1) == 0) continue;
    const int pos = b + shift;
    if (pos < 0 || pos >= 32 * kFixedLimbs) continue;
    f.limb[pos / 32] |= 1u << (pos % 32);
  }
  return f;
}

bool FixedIsZero(const Fixed& a) {
  for (uint32_t w : a.limb) {
    if (w != 0) return false;
  }
  return true;
}

bool FixedLess(const Fixed& a, const Fixed& b) {
  for (int i = kFixedLimbs - 1; i >= 0; --i) {
    if (a.limb[i] != b.limb[i]) return a.limb[i] < b.limb[i];
  }
  return false;
}

Fixed FixedAdd(const Fixed& a, const Fixed& b) {
  Fixed r;
  uint64_t carry = 0;
  for (int i = 0; i < kFixedLimbs; ++i) {
    const uint64_t t = static_cast<uint64_t>(a.limb[i]) + b.limb[i] + carry;
    r.limb[i] = static_cast<uint32_t>(t);
    carry = t >> 32;
  }
  return r;
}

Fixed FixedSub(const Fixed& a, const Fixed& b) {
  Fixed r;
  uint64_t borrow = 0;
  for (int i = 0; i < kFixedLimbs; ++i) {
    const uint64_t t = static_cast<uint64_t>(a.limb[i]) - b.limb[i] - borrow;
    r.limb[i] = static_cast<uint32_t>(t);
    borrow = (t >> 63) & 1;  // wrapped below zero
  }
  return r;
}

void MultiplyWords(std::span<const uint32_t> a, std::span<const uint32_t> b,
                   std::span<uint32_t> product) {
  for (uint32_t& w : product) w = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    uint64_t carry = 0;
    for (size_t j = 0; j < b.size(); ++j) {
      const uint64_t t = static_cast<uint64_t>(a[i]) * b[j] + product[i + j] + carry;  // < 2^64
      product[i + j] = static_cast<uint32_t>(t);
      carry = t >> 32;
    }
    product[i + b.size()] = static_cast<uint32_t>(carry);
  }
}

Fixed FixedMul(const Fixed& a, const Fixed& b) {
  uint32_t prod[2 * kFixedLimbs];
  MultiplyWords(a.limb, b.limb, prod);
  Fixed r;
  for (int i = 0; i < kFixedLimbs; ++i) r.limb[i] = prod[i + kFixedFractionBits / 32];
  return r;
}

Fixed FixedMulInt(const Fixed& a, uint32_t m) {
  Fixed r;
  uint64_t carry = 0;
  for (int i = 0; i < kFixedLimbs; ++i) {
    const uint64_t t = static_cast<uint64_t>(a.limb[i]) * m + carry;
    r.limb[i] = static_cast<uint32_t>(t);
    carry = t >> 32;
  }
  return r;
}

Fixed FixedDivInt(const Fixed& a, uint32_t d) {
  Fixed r;
  uint64_t rem = 0;
  for (int i = kFixedLimbs - 1; i >= 0; --i) {
    const uint64_t cur = (rem << 32) | a.limb[i];
    r.limb[i] = static_cast<uint32_t>(cur / d);
    rem = cur % d;
  }
  return r;
}

double RoundToDouble(std::span<const uint32_t> words, int exponent, uint64_t err,
                     bool* ambiguous) {
  if (ambiguous != nullptr) *ambiguous = false;
  int top = -1;
  for (int i = 32 * static_cast<int>(words.size()) - 1; i >= 0; --i) {
    if (Bit(words, i) != 0) {
      top = i;
      break;
    }
  }
  if (top < 0) return 0.0;
  const double kInf = std::bit_cast<double>(uint64_t{0x7FF0000000000000});
  if (top + exponent > 1023) return kInf;
  // q: the position in V of the last bit kept (53 bits, fewer for a subnormal result).
  const int q = top - 52 > -1074 - exponent ? top - 52 : -1074 - exponent;
  uint64_t m = 0;
  for (int b = 52; b >= 0; --b) m = (m << 1) | Bit(words, q + b);  // bits below 0 read as 0
  if (q > 0) {
    const bool half_bit = Bit(words, q - 1) != 0;
    bool sticky = false;
    for (int i = q - 2; i >= 0 && !sticky; --i) sticky = Bit(words, i) != 0;
    if (half_bit && (sticky || (m & 1) != 0)) ++m;
    // Distance from V to the midpoint, with L the bits below the half bit: L when the half bit
    // is set, else 2^(q-1) − L = (L with its q−1 bits inverted) + 1. With err = 0, V is exact
    // and a tie is decided by the rule, not ambiguous.
    if (ambiguous != nullptr && err > 0) {
      *ambiguous = half_bit ? LowBitsAtMost(words, q - 1, false, err)
                            : LowBitsAtMost(words, q - 1, true, err - 1);
    }
  } else if (ambiguous != nullptr) {
    *ambiguous = err > 0;  // exact in binary64, but the error could reach a midpoint
  }
  int lsb = q + exponent;  // exponent of m's bit 0
  if (m == (kOne << 53)) {
    m >>= 1;
    ++lsb;
  }
  if (m >= (kOne << 52)) {
    const int biased = lsb + 52 + 1023;
    if (biased >= 2047) return kInf;
    return std::bit_cast<double>((static_cast<uint64_t>(biased) << 52) | (m - (kOne << 52)));
  }
  return std::bit_cast<double>(m);  // subnormal: lsb == -1074
}

}  // namespace dashi::math_internal
