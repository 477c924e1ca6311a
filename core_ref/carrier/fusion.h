// K-channel majority fusion: K carriers of one shape stored channel-major (channel c's cells are
// data[c·n .. c·n + n−1], n = rows·cols); out(x) = sign(Σ_c s_c(x)), a tie (sum 0) gives 0.
#ifndef DASHI_CORE_REF_CARRIER_FUSION_H_
#define DASHI_CORE_REF_CARRIER_FUSION_H_

#include <cstdint>
#include <span>

#include "core_ref/carrier/carrier.h"
#include "core_ref/status/status.h"

namespace dashi {

// Largest channel count; the per-cell sum then fits an int32.
inline constexpr int64_t kMaxFusionChannels = int64_t{1} << 24;

// `channels` holds k·shape.size() int8 values in {-1, 0, +1}; 1 ≤ k ≤ kMaxFusionChannels.
StatusOr<Carrier> FuseMajority(std::span<const int8_t> channels, int64_t k, GridShape shape);

}  // namespace dashi

#endif  // DASHI_CORE_REF_CARRIER_FUSION_H_
