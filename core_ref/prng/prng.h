// Deterministic pseudo-random numbers, identical on every platform and backend.
//
// SplitMix64 and Xoshiro256** are sequential generators (seed once, draw in order).
// CounterUniform(seed, t, kx, ky, stream) is stateless: the same key gives the same double on the
// CPU and in a shader, so backends can draw residual phases independently. docs/MATH.md §PRNG gives
// the exact algorithms and the double conversion; never use <random> distributions (they differ
// between standard libraries).
//
//   Xoshiro256ss rng(/*seed=*/42);
//   double u = rng.NextDouble();                       // [0, 1)
//   double p = CounterUniform(seed, t, kx, ky, 0);      // [0, 1), stateless
#ifndef DASHI_CORE_REF_PRNG_PRNG_H_
#define DASHI_CORE_REF_PRNG_PRNG_H_

#include <cstdint>

namespace dashi {

// Stafford's "Mix13" finaliser as used by SplitMix64: a bijection on 64-bit words.
constexpr uint64_t Mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

inline constexpr uint64_t kGoldenGamma = 0x9E3779B97F4A7C15ull;

// The top 53 bits of x as a double in [0, 1): (x >> 11) * 2^-53. Exact, no rounding.
constexpr double U64ToUnitDouble(uint64_t x) {
  return static_cast<double>(x >> 11) * 0x1.0p-53;
}

// SplitMix64 (Steele, Lea, Flood 2014): state += gamma; return Mix64(state).
class SplitMix64 {
 public:
  explicit constexpr SplitMix64(uint64_t seed) : state_(seed) {}
  constexpr uint64_t Next() {
    state_ += kGoldenGamma;
    return Mix64(state_);
  }
  constexpr double NextDouble() { return U64ToUnitDouble(Next()); }

 private:
  uint64_t state_;
};

// Xoshiro256** 1.0 (Blackman, Vigna 2018), state seeded with four SplitMix64(seed) outputs.
class Xoshiro256ss {
 public:
  explicit Xoshiro256ss(uint64_t seed);
  uint64_t Next();
  double NextDouble() { return U64ToUnitDouble(Next()); }
  // Uniform integer in [0, n) for n > 0, unbiased (rejection of the short top interval).
  uint64_t NextBelow(uint64_t n);
  // Uniform integer in [lo, hi] (inclusive), lo <= hi.
  int64_t NextInRange(int64_t lo, int64_t hi);

 private:
  uint64_t s_[4];
};

// Stateless counter-based draw. With w = (t, kx, ky, stream) taken as uint64 (negative kx, ky in
// two's complement):
//   h = Mix64(seed ^ kGoldenGamma)
//   for i in 0..3:  h = Mix64(h ^ (w[i] + (i + 1) * kGoldenGamma))      (all mod 2^64)
//   return h
// Every operation is a 64-bit xor, add, multiply or shift: a shader with shaderInt64 reproduces it.
constexpr uint64_t CounterHash(uint64_t seed, uint64_t t, int64_t kx, int64_t ky,
                               uint64_t stream) {
  const uint64_t w[4] = {t, static_cast<uint64_t>(kx), static_cast<uint64_t>(ky), stream};
  uint64_t h = Mix64(seed ^ kGoldenGamma);
  for (uint64_t i = 0; i < 4; ++i) h = Mix64(h ^ (w[i] + (i + 1) * kGoldenGamma));
  return h;
}

// U64ToUnitDouble(CounterHash(...)): a double in [0, 1).
constexpr double CounterUniform(uint64_t seed, uint64_t t, int64_t kx, int64_t ky,
                                uint64_t stream) {
  return U64ToUnitDouble(CounterHash(seed, t, kx, ky, stream));
}

}  // namespace dashi

#endif  // DASHI_CORE_REF_PRNG_PRNG_H_
