// Seeded random inputs shared by the FFT tests: values uniform in [-1, 1) (both parts for
// complex), drawn from Xoshiro256** so a failure replays from its seed.
#ifndef DASHI_CORE_REF_FFT_FFT_TEST_INPUTS_H_
#define DASHI_CORE_REF_FFT_FFT_TEST_INPUTS_H_

#include <complex>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core_ref/prng/prng.h"

namespace dashi {

inline std::vector<std::complex<double>> RandomComplex(size_t n, uint64_t seed) {
  Xoshiro256ss rng(seed);
  std::vector<std::complex<double>> v(n);
  for (auto& z : v) {
    const double re = 2.0 * rng.NextDouble() - 1.0;
    const double im = 2.0 * rng.NextDouble() - 1.0;
    z = std::complex<double>(re, im);
  }
  return v;
}

inline std::vector<double> RandomReal(size_t n, uint64_t seed) {
  Xoshiro256ss rng(seed);
  std::vector<double> v(n);
  for (auto& x : v) x = 2.0 * rng.NextDouble() - 1.0;
  return v;
}

}  // namespace dashi

#endif  // DASHI_CORE_REF_FFT_FFT_TEST_INPUTS_H_
