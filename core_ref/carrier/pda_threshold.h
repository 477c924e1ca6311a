// PDA admissibility threshold P_τ: a real field becomes a carrier.
//   x ≥ τ → +1 (accept),  |x| < τ → 0 (project),  x ≤ −τ → −1 (reject).
#ifndef DASHI_CORE_REF_CARRIER_PDA_THRESHOLD_H_
#define DASHI_CORE_REF_CARRIER_PDA_THRESHOLD_H_

#include "core_ref/carrier/carrier.h"
#include "core_ref/status/status.h"

namespace dashi {

struct PdaThresholdParams {
  double tau = 0.5;  // finite, > 0
};

Status ValidatePdaThresholdParams(const PdaThresholdParams& params);

// The field is finite by construction (RealField rejects NaN/Inf).
StatusOr<Carrier> PdaThreshold(const RealField& field, const PdaThresholdParams& params);

// One cell's decision, shared with tests and documented as the reference for the shader.
inline int8_t PdaThresholdValue(double x, double tau) {
  if (x >= tau) return 1;
  if (x <= -tau) return -1;
  return 0;
}

}  // namespace dashi

#endif  // DASHI_CORE_REF_CARRIER_PDA_THRESHOLD_H_
