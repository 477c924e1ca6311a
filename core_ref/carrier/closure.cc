#include "core_ref/carrier/closure.h"

#include <cmath>
#include <string>

namespace dashi {

Status ValidateClosureParams(const ClosureParams& params) {
  DASHI_RETURN_IF_ERROR(ValidateAnnihilationParams(params.annihilation));
  DASHI_RETURN_IF_ERROR(ValidateMajorityParams(params.majority));
  if (params.max_iterations < 0) {
    return InvalidArgumentError("closure max_iterations " + std::to_string(params.max_iterations) +
                                " is negative");
  }
  return OkStatus();
}

StatusOr<Carrier> ClosureStep(const Carrier& s, const ClosureParams& params) {
  DASHI_ASSIGN_OR_RETURN(Carrier m, Majority(s, params.majority));
  return Annihilate(m, params.annihilation);
}

ClosureLevelStats ComputeLevelStats(const Carrier& s, const RealField* field) {
  ClosureLevelStats stats;
  double sum = 0.0;
  const auto v = s.values();
  for (size_t k = 0; k < v.size(); ++k) {
    if (v[k] == 0) continue;
    ++stats.active_cells;
    if (field != nullptr) sum += std::fabs(field->values()[k]);
  }
  if (field != nullptr && stats.active_cells > 0) {
    stats.mean_abs_field = sum / static_cast<double>(stats.active_cells);
  }
  return stats;
}

StatusOr<ClosureResult> Closure(const Carrier& s0, const RealField* field,
                                const ClosureParams& params) {
  DASHI_RETURN_IF_ERROR(ValidateClosureParams(params));
  if (field != nullptr && !(field->shape() == s0.shape())) {
    return InvalidArgumentError("closure field shape " + ToString(field->shape()) +
                                " differs from carrier shape " + ToString(s0.shape()));
  }
  ClosureResult result{s0, 0, false, {ComputeLevelStats(s0, field)}};
  for (int it = 0; it < params.max_iterations; ++it) {
    DASHI_ASSIGN_OR_RETURN(Carrier next, ClosureStep(result.fixed_point, params));
    if (next == result.fixed_point) {
      result.reached_fixed_point = true;
      return result;
    }
    result.fixed_point = std::move(next);
    ++result.depth;
    result.levels.push_back(ComputeLevelStats(result.fixed_point, field));
  }
  // The cap was reached: s* is a fixed point only if one more step leaves it unchanged.
  DASHI_ASSIGN_OR_RETURN(Carrier next, ClosureStep(result.fixed_point, params));
  result.reached_fixed_point = (next == result.fixed_point);
  return result;
}

}  // namespace dashi
