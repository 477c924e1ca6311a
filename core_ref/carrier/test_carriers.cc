#include "core_ref/carrier/test_carriers.h"

#include "core_ref/carrier/pda_threshold.h"
#include "core_ref/carrier/smoothing.h"
#include "core_ref/prng/prng.h"

namespace dashi::testing {

std::vector<GridShape> PropertyTestShapes() {
  return {{1, 1}, {1, 2}, {2, 1}, {1, 17}, {17, 1}, {2, 2}, {3, 3}, {5, 7},
          {8, 8}, {16, 16}, {31, 33}, {32, 8}, {4, 64}, {64, 4}, {63, 65}};
}

Carrier RandomCarrier(GridShape shape, uint64_t seed, double p_zero) {
  Xoshiro256ss rng(seed);
  std::vector<int8_t> v(static_cast<size_t>(shape.size()));
  for (int8_t& x : v) {
    if (rng.NextDouble() < p_zero) {
      x = 0;
    } else {
      x = (rng.Next() >> 63) ? 1 : -1;
    }
  }
  return *Carrier::FromValues(shape, std::move(v));
}

RealField RandomField(GridShape shape, uint64_t seed) {
  Xoshiro256ss rng(seed);
  std::vector<double> v(static_cast<size_t>(shape.size()));
  for (double& x : v) x = 2.0 * rng.NextDouble() - 1.0;
  return *RealField::FromValues(shape, std::move(v));
}

Carrier BlobCarrier(GridShape shape, uint64_t seed, double tau) {
  RealField f = RandomField(shape, seed);
  const SmoothingParams box{SmoothingKernel::kBox, 2};
  f = *Smooth(*Smooth(f, box), box);
  return *PdaThreshold(NormalizeByMaxAbs(f), {tau});
}

std::string ReplayTag(uint64_t seed, GridShape shape) {
  return "seed=" + std::to_string(seed) + " shape=" + ToString(shape);
}

}  // namespace dashi::testing
