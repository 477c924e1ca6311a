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
  // Canonical order (docs/MATH.md §1.2): each row's Σ|f| over its supported cells in increasing
  // j, then the row sums added in increasing i, so a GPU can sum the rows in parallel.
  ClosureLevelStats stats;
  double total = 0.0;
  const auto v = s.values();
  for (int64_t i = 0; i < s.rows(); ++i) {
    double row = 0.0;
    for (int64_t j = 0; j < s.cols(); ++j) {
      const int64_t k = i * s.cols() + j;
      if (v[k] == 0) continue;
      ++stats.active_cells;
      if (field != nullptr) row += std::fabs(field->values()[k]);
    }
    total += row;
  }
  if (field != nullptr && stats.active_cells > 0) {
    stats.mean_abs_field = total / static_cast<double>(stats.active_cells);
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
