// Periodic square-window sums on integer grids, shared by the annihilation and majority kernels.
//
// out(i, j) = Σ_{dy = -r..r} Σ_{dx = -r..r} in((i + dy) mod rows, (j + dx) mod cols): every
// offset counts once, so on a grid narrower than 2r+1 a cell can be counted several times
// (docs/MATH.md, "Windows"). Integer sums are exact, so the order of summation does not matter.
#ifndef DASHI_CORE_REF_CARRIER_WINDOW_SUM_H_
#define DASHI_CORE_REF_CARRIER_WINDOW_SUM_H_

#include <cstdint>
#include <span>
#include <vector>

#include "core_ref/carrier/carrier.h"
#include "core_ref/status/status.h"

namespace dashi {

// Largest window radius any kernel accepts; (2r+1)^2 then fits an int32 with room to spare.
inline constexpr int kMaxWindowRadius = 4096;

// OK when 0 ≤ radius ≤ kMaxWindowRadius; the message names `what` ("annihilation radius").
Status ValidateWindowRadius(int radius, const char* what);

// Separable: a pass along each row, then along each column. `in` has shape.size() elements.
std::vector<int32_t> PeriodicWindowSum(const GridShape& shape, std::span<const int32_t> in,
                                       int radius);

}  // namespace dashi

#endif  // DASHI_CORE_REF_CARRIER_WINDOW_SUM_H_
