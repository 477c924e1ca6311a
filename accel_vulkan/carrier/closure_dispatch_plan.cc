#include "accel_vulkan/carrier/closure_dispatch_plan.h"

#include <algorithm>

namespace dashi::vk {

const char* ClosureDispatchName(ClosureDispatch d) {
  return d == ClosureDispatch::kSharedMemory ? "shared_memory" : "multi_dispatch";
}

// 12 bytes of counters, rounded up with room for the alignment of the fp64 row sums.
uint64_t SharedClosureBytes(uint64_t words, uint64_t rows) { return 16 * words + 8 * rows + 272; }

ClosureDispatchPlan PlanClosureDispatch(GridShape shape, const ClosureParams& params,
                                        const ClosureDeviceLimits& limits, ClosurePlan plan) {
  ClosureDispatchPlan out;
  auto multi = [&](const std::string& why) {
    out.dispatch = ClosureDispatch::kMultiDispatch;
    out.note = "multi_dispatch: " + why;
    return out;
  };
  if (plan == ClosurePlan::kMultiDispatch) return multi("asked for");
  if (params.max_iterations > kSharedClosureMaxIterations) {
    return multi("cap " + std::to_string(params.max_iterations) + " exceeds " +
                 std::to_string(kSharedClosureMaxIterations));
  }
  const int r_max = std::max(params.majority.radius, params.annihilation.radius);
  if (shape.cols % 32 != 0) {
    return multi(std::to_string(shape.cols) + " columns are not a multiple of 32");
  }
  if (r_max > kSharedClosureMaxRadius || r_max > shape.rows) {
    return multi("radius " + std::to_string(r_max) + " exceeds " +
                 std::to_string(std::min<int64_t>(kSharedClosureMaxRadius, shape.rows)));
  }
  const uint64_t words = static_cast<uint64_t>(shape.size()) / 32;
  const uint64_t bytes = SharedClosureBytes(words, static_cast<uint64_t>(shape.rows));
  if (bytes > limits.max_shared_bytes) {
    return multi("needs " + std::to_string(bytes) + " B of shared memory, the device has " +
                 std::to_string(limits.max_shared_bytes));
  }
  const uint32_t cap = std::min(limits.max_invocations, kSharedClosureMaxWorkgroup);
  if (cap < 32) return multi("workgroups of " + std::to_string(cap) + " invocations");
  // One word per invocation where the device allows it (a multiple of 32: whole subgroups).
  const uint64_t wanted = std::max<uint64_t>(32, (words + 31) / 32 * 32);
  out.dispatch = ClosureDispatch::kSharedMemory;
  out.words = static_cast<uint32_t>(words);
  out.rows = static_cast<uint32_t>(shape.rows);
  out.workgroup = static_cast<uint32_t>(std::min<uint64_t>(wanted, cap / 32 * 32));
  out.shared_bytes = static_cast<uint32_t>(bytes);
  out.note = "shared_memory: " + std::to_string(bytes) + " of " +
             std::to_string(limits.max_shared_bytes) + " B, workgroup " +
             std::to_string(out.workgroup);
  return out;
}

}  // namespace dashi::vk
