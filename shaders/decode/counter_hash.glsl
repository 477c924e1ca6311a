// The counter-based PRNG of docs/MATH.md §3 (core_ref/prng/prng.h), bit for bit, in uint64
// arithmetic (shaderInt64). All operations are modulo 2^64 exactly as in C++.

const uint64_t kGoldenGamma = 0x9E3779B97F4A7C15UL;

uint64_t Mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9UL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBUL;
  return z ^ (z >> 31);
}

// kx, ky as int64 (negative values in two's complement when reinterpreted as uint64).
uint64_t CounterHash(uint64_t seed, uint64_t t, int64_t kx, int64_t ky, uint64_t stream) {
  uint64_t w[4] = uint64_t[4](t, uint64_t(kx), uint64_t(ky), stream);
  uint64_t h = Mix64(seed ^ kGoldenGamma);
  for (int i = 0; i < 4; ++i) h = Mix64(h ^ (w[i] + uint64_t(i + 1) * kGoldenGamma));
  return h;
}

// (x >> 11) · 2^-53: exact (the integer has 53 bits, the scale is a power of two).
double U64ToUnitDouble(uint64_t x) {
  precise double u = double(x >> 11) * packDouble2x32(uvec2(0u, 0x3CA00000u));  // 2^-53
  return u;
}

double CounterUniform(uint64_t seed, uint64_t t, int64_t kx, int64_t ky, uint64_t stream) {
  return U64ToUnitDouble(CounterHash(seed, t, kx, ky, stream));
}
