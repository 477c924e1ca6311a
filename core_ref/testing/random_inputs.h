// Seeded random inputs for tests and conformance cases: the one home of every generator, so a
// seed printed by a core_ref test, an accelerator test, a conformance case or a benchmark replays
// the same data in the others. Every draw comes from Xoshiro256** (core_ref/prng) seeded with the
// given seed, in a fixed order; <random> distributions are never used (they differ between
// standard libraries). Callers print the seed (ReplayTag for SCOPED_TRACE, or in a case's detail).
//
//   std::vector<double> a = StableMatrix(D, /*seed=*/1);               // D×D
//   std::vector<double> z0 = UniformValues(D, /*seed=*/2, 1.0);
//   Carrier s = RandomCarrier({64, 64}, /*seed=*/3, /*p_zero=*/0.3);
//   SCOPED_TRACE(ReplayTag(3, {64, 64}));
#ifndef DASHI_CORE_REF_TESTING_RANDOM_INPUTS_H_
#define DASHI_CORE_REF_TESTING_RANDOM_INPUTS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core_ref/carrier/carrier.h"
#include "core_ref/prng/prng.h"

namespace dashi::testing {

// ---- values and matrices ------------------------------------------------------------------------

// n values uniform in [-1, 1)·scale: (2u − 1)·scale for u = rng.NextDouble(), in order. The
// overload taking `rng` continues its sequence.
std::vector<double> UniformValues(size_t n, uint64_t seed, double scale);
std::vector<double> UniformValues(Xoshiro256ss& rng, size_t n, double scale);

// n values of magnitude uniform in [0.5, 1)·scale with random signs (per value: the magnitude
// draw, then the sign bit). Never zero: no product of the rollout contract is trivially ±0, so a
// wrong order or a skipped product shows in the bits.
std::vector<double> NonZeroUniform(size_t n, uint64_t seed, double scale);

// D×D row-major matrices scaled by 0.9/sqrt(D), stable over many rollout steps:
// StableMatrix has UniformValues entries; DecayingMatrix has NonZeroUniform entries, so
// |z·A| ≈ 0.69·|z| per step and states stay normal for more than a thousand steps (≈ 1e-163
// after 1000).
std::vector<double> StableMatrix(int64_t dim, uint64_t seed);
std::vector<double> DecayingMatrix(int64_t dim, uint64_t seed);

// ---- carriers and fields ------------------------------------------------------------------------

// The sizes where bugs live: 1×1, single rows and columns, odd, powers of two, wide and tall.
std::vector<GridShape> PropertyTestShapes();

// i.i.d. cells: 0 with probability p_zero, else ±1 with equal odds.
Carrier RandomCarrier(GridShape shape, uint64_t seed, double p_zero);

// i.i.d. values uniform in [-1, 1)·scale (UniformValues, row-major).
RealField RandomField(GridShape shape, uint64_t seed, double scale = 1.0);

// Coherent blobs: a random field smoothed twice with a box of radius 2, normalised, thresholded
// at tau. Closure on these runs several levels deep, like on real vorticity.
Carrier BlobCarrier(GridShape shape, uint64_t seed, double tau);

// "seed=S shape=(r, c)" for SCOPED_TRACE.
std::string ReplayTag(uint64_t seed, GridShape shape);

}  // namespace dashi::testing

#endif  // DASHI_CORE_REF_TESTING_RANDOM_INPUTS_H_
