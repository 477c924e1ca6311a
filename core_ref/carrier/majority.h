// Support-preserving majority M(r, η), one "fining layer": a non-zero cell keeps its value v when
// its signed periodic (2r+1)×(2r+1) window sum S (itself included) agrees with it by at least η,
// v·S ≥ η; otherwise it becomes 0. Zero cells stay zero. A mask, so it never creates support and
// never raises the defect; it is not idempotent in general (docs/MATH.md).
#ifndef DASHI_CORE_REF_CARRIER_MAJORITY_H_
#define DASHI_CORE_REF_CARRIER_MAJORITY_H_

#include "core_ref/carrier/carrier.h"
#include "core_ref/status/status.h"

namespace dashi {

struct MajorityParams {
  int radius = 1;  // 0..kMaxWindowRadius
  int eta = 1;     // agreement margin; v·S ranges over [-(2r+1)^2, (2r+1)^2]
};

Status ValidateMajorityParams(const MajorityParams& params);

StatusOr<Carrier> Majority(const Carrier& s, const MajorityParams& params);

}  // namespace dashi

#endif  // DASHI_CORE_REF_CARRIER_MAJORITY_H_
