// Annihilation projector K_ann(r): a cell becomes 0 when its periodic (2r+1)×(2r+1) window
// (itself included) holds both a +1 and a −1; otherwise it keeps its value. Idempotent, a mask
// (K(s)(x) ∈ {0, s(x)}), so it never creates support and never raises the defect (docs/MATH.md).
#ifndef DASHI_CORE_REF_CARRIER_ANNIHILATION_H_
#define DASHI_CORE_REF_CARRIER_ANNIHILATION_H_

#include "core_ref/carrier/carrier.h"
#include "core_ref/status/status.h"

namespace dashi {

struct AnnihilationParams {
  int radius = 1;  // 0..kMaxWindowRadius; 0 is the identity
};

Status ValidateAnnihilationParams(const AnnihilationParams& params);

StatusOr<Carrier> Annihilate(const Carrier& s, const AnnihilationParams& params);

}  // namespace dashi

#endif  // DASHI_CORE_REF_CARRIER_ANNIHILATION_H_
