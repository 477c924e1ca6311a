#include "core_ref/carrier/fusion.h"

#include <string>
#include <vector>

namespace dashi {

StatusOr<Carrier> FuseMajority(std::span<const int8_t> channels, int64_t k, GridShape shape) {
  DASHI_RETURN_IF_ERROR(ValidateGridShape(shape));
  if (k < 1 || k > kMaxFusionChannels) {
    return InvalidArgumentError("fusion channel count " + std::to_string(k) + " is outside [1, " +
                                std::to_string(kMaxFusionChannels) + "]");
  }
  const int64_t n = shape.size();
  if (static_cast<int64_t>(channels.size()) / k != n ||
      static_cast<int64_t>(channels.size()) % k != 0) {
    return InvalidArgumentError("fusion input has " + std::to_string(channels.size()) +
                                " values but " + std::to_string(k) + " channels of shape " +
                                ToString(shape) + " need " + std::to_string(k * n));
  }
  std::vector<int32_t> sum(static_cast<size_t>(n), 0);
  for (int64_t c = 0; c < k; ++c) {
    const int8_t* ch = channels.data() + c * n;
    for (int64_t x = 0; x < n; ++x) {
      if (ch[x] < -1 || ch[x] > 1) {
        return InvalidArgumentError("fusion channel " + std::to_string(c) + " value " +
                                    std::to_string(ch[x]) + " at index " + std::to_string(x) +
                                    " is not -1, 0 or +1");
      }
      sum[x] += ch[x];
    }
  }
  std::vector<int8_t> out(static_cast<size_t>(n));
  for (int64_t x = 0; x < n; ++x) out[x] = static_cast<int8_t>((sum[x] > 0) - (sum[x] < 0));
  return Carrier::FromValues(shape, std::move(out));
}

}  // namespace dashi
