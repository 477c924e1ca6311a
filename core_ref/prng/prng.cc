#include "core_ref/prng/prng.h"

namespace dashi {
namespace {
constexpr uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
}  // namespace

Xoshiro256ss::Xoshiro256ss(uint64_t seed) {
  SplitMix64 sm(seed);
  for (uint64_t& w : s_) w = sm.Next();
}

uint64_t Xoshiro256ss::Next() {
  const uint64_t result = Rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = Rotl(s_[3], 45);
  return result;
}

uint64_t Xoshiro256ss::NextBelow(uint64_t n) {
  if (n <= 1) return 0;
  // Accept x only below the largest multiple of n that fits in 2^64.
  const uint64_t limit = UINT64_MAX - (UINT64_MAX % n + 1) % n;
  uint64_t x;
  do {
    x = Next();
  } while (x > limit);
  return x % n;
}

int64_t Xoshiro256ss::NextInRange(int64_t lo, int64_t hi) {
  if (hi <= lo) return lo;
  const uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
  if (span == UINT64_MAX) return static_cast<int64_t>(Next());
  return static_cast<int64_t>(static_cast<uint64_t>(lo) + NextBelow(span + 1));
}

}  // namespace dashi
