// Separable periodic smoothing of a real field: a pass along each row (index j), then along each
// column (index i), each output a weighted sum in the fixed order d = −r..r divided by the weight
// total (docs/MATH.md, "Smoothing"), so the accelerator can reproduce it bit for bit.
//   box:      w_d = 1,            total 2r+1
//   triangle: w_d = r + 1 − |d|,  total (r+1)^2
#ifndef DASHI_CORE_REF_CARRIER_SMOOTHING_H_
#define DASHI_CORE_REF_CARRIER_SMOOTHING_H_

#include "core_ref/carrier/carrier.h"
#include "core_ref/status/status.h"

namespace dashi {

enum class SmoothingKernel { kBox, kTriangle };

struct SmoothingParams {
  SmoothingKernel kernel = SmoothingKernel::kBox;
  int radius = 1;  // 0..kMaxWindowRadius; 0 is the identity
};

Status ValidateSmoothingParams(const SmoothingParams& params);

StatusOr<RealField> Smooth(const RealField& field, const SmoothingParams& params);

// Normalise by max|x| (so the result lies in [-1, 1]); an all-zero field stays zero.
RealField NormalizeByMaxAbs(const RealField& field);

}  // namespace dashi

#endif  // DASHI_CORE_REF_CARRIER_SMOOTHING_H_
