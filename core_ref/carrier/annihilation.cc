#include "core_ref/carrier/annihilation.h"

#include <vector>

#include "core_ref/carrier/window_sum.h"

namespace dashi {

Status ValidateAnnihilationParams(const AnnihilationParams& params) {
  return ValidateWindowRadius(params.radius, "annihilation radius");
}

StatusOr<Carrier> Annihilate(const Carrier& s, const AnnihilationParams& params) {
  DASHI_RETURN_IF_ERROR(ValidateAnnihilationParams(params));
  const auto v = s.values();
  std::vector<int32_t> pos(v.size()), neg(v.size());
  for (size_t k = 0; k < v.size(); ++k) {
    pos[k] = v[k] > 0;
    neg[k] = v[k] < 0;
  }
  const std::vector<int32_t> pos_sum = PeriodicWindowSum(s.shape(), pos, params.radius);
  const std::vector<int32_t> neg_sum = PeriodicWindowSum(s.shape(), neg, params.radius);
  std::vector<int8_t> out(v.begin(), v.end());
  for (size_t k = 0; k < out.size(); ++k) {
    if (pos_sum[k] > 0 && neg_sum[k] > 0) out[k] = 0;
  }
  return Carrier::FromValues(s.shape(), std::move(out));
}

}  // namespace dashi
