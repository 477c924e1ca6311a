#include "core_ref/carrier/pda_threshold.h"

#include <cmath>
#include <string>
#include <vector>

namespace dashi {

Status ValidatePdaThresholdParams(const PdaThresholdParams& params) {
  if (!std::isfinite(params.tau) || !(params.tau > 0)) {
    return InvalidArgumentError("PDA threshold tau " + std::to_string(params.tau) +
                                " must be finite and > 0");
  }
  return OkStatus();
}

StatusOr<Carrier> PdaThreshold(const RealField& field, const PdaThresholdParams& params) {
  DASHI_RETURN_IF_ERROR(ValidatePdaThresholdParams(params));
  std::vector<int8_t> out(static_cast<size_t>(field.size()));
  const auto x = field.values();
  for (size_t k = 0; k < out.size(); ++k) out[k] = PdaThresholdValue(x[k], params.tau);
  return Carrier::FromValues(field.shape(), std::move(out));
}

}  // namespace dashi
