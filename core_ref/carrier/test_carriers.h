// Random carriers and fields for the property tests (test-only). Every generator takes a seed so
// a failure can be replayed; tests print it with SCOPED_TRACE.
#ifndef DASHI_CORE_REF_CARRIER_TEST_CARRIERS_H_
#define DASHI_CORE_REF_CARRIER_TEST_CARRIERS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core_ref/carrier/carrier.h"

namespace dashi::testing {

// The sizes where bugs live: 1×1, single rows and columns, odd, powers of two, wide and tall.
std::vector<GridShape> PropertyTestShapes();

// i.i.d. cells: 0 with probability p_zero, else ±1 with equal odds.
Carrier RandomCarrier(GridShape shape, uint64_t seed, double p_zero);

// Coherent blobs: a random field smoothed twice with a box of radius 2, normalised, thresholded
// at tau. Closure on these runs several levels deep, like on real vorticity.
Carrier BlobCarrier(GridShape shape, uint64_t seed, double tau);

// i.i.d. uniform values in [-1, 1).
RealField RandomField(GridShape shape, uint64_t seed);

// "seed=S shape=(r, c)" for SCOPED_TRACE.
std::string ReplayTag(uint64_t seed, GridShape shape);

}  // namespace dashi::testing

#endif  // DASHI_CORE_REF_CARRIER_TEST_CARRIERS_H_
