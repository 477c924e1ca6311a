// Closure: iterate C = K_ann ∘ M (majority first, then annihilation) from s_0 until C(s) = s or
// a cap. Its depth (the number of iterations that changed something) is the design's
// "annihilation level". Per level it reports the active cells |supp| and, when the real field the
// carrier was cut from is given, the mean |field| over the support.
//
//   ClosureParams p;  // radii, η, cap
//   StatusOr<ClosureResult> r = Closure(s0, &smoothed_field, p);
//   r->depth; r->levels[0].active_cells;  // level 0 is s_0 itself
#ifndef DASHI_CORE_REF_CARRIER_CLOSURE_H_
#define DASHI_CORE_REF_CARRIER_CLOSURE_H_

#include <cstdint>
#include <vector>

#include "core_ref/carrier/annihilation.h"
#include "core_ref/carrier/carrier.h"
#include "core_ref/carrier/majority.h"
#include "core_ref/status/status.h"

namespace dashi {

struct ClosureParams {
  AnnihilationParams annihilation;
  MajorityParams majority;
  int max_iterations = 64;  // ≥ 0; the cap on applications of C
};

struct ClosureLevelStats {
  int64_t active_cells = 0;
  // Σ|field| over the support — each row summed in increasing j, the row sums then added in
  // increasing i — divided by active_cells; 0 when the support is empty or no field was given.
  double mean_abs_field = 0.0;
};

struct ClosureResult {
  Carrier fixed_point;               // s* (the last iterate when the cap was hit)
  int depth = 0;                     // iterations that changed the carrier
  bool reached_fixed_point = false;  // false only when the cap stopped the iteration
  std::vector<ClosureLevelStats> levels;  // levels[0] = s_0, levels[d] = after change d
};

Status ValidateClosureParams(const ClosureParams& params);

// One application of C = K_ann ∘ M.
StatusOr<Carrier> ClosureStep(const Carrier& s, const ClosureParams& params);

// `field` may be null; when given it must have the carrier's shape.
StatusOr<ClosureResult> Closure(const Carrier& s0, const RealField* field,
                                const ClosureParams& params);

// The per-level statistics of one carrier (exposed for the accelerator's twin).
ClosureLevelStats ComputeLevelStats(const Carrier& s, const RealField* field);

}  // namespace dashi

#endif  // DASHI_CORE_REF_CARRIER_CLOSURE_H_
