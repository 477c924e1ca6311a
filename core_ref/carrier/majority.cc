#include "core_ref/carrier/majority.h"

#include <vector>

#include "core_ref/carrier/window_sum.h"

namespace dashi {

Status ValidateMajorityParams(const MajorityParams& params) {
  return ValidateWindowRadius(params.radius, "majority radius");
}

StatusOr<Carrier> Majority(const Carrier& s, const MajorityParams& params) {
  DASHI_RETURN_IF_ERROR(ValidateMajorityParams(params));
  const auto v = s.values();
  const std::vector<int32_t> in(v.begin(), v.end());
  const std::vector<int32_t> sum = PeriodicWindowSum(s.shape(), in, params.radius);
  std::vector<int8_t> out(v.begin(), v.end());
  for (size_t k = 0; k < out.size(); ++k) {
    if (out[k] != 0 && out[k] * sum[k] < params.eta) out[k] = 0;
  }
  return Carrier::FromValues(s.shape(), std::move(out));
}

}  // namespace dashi
