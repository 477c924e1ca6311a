#include "accel_vulkan/carrier/closure_dispatch_plan.h"

#include <algorithm>

namespace dashi::vk {

const char* ClosureDispatchName(ClosureDispatch d) {
  switch (d) {
    case ClosureDispatch::kSharedMemory: return "shared_memory";
    case ClosureDispatch::kMultiDispatch: return "multi_dispatch";
    case ClosureDispatch::kStrips: return "strips";
  }
  return "?";
}

// 12 bytes of counters, rounded up with room for the alignment of the fp64 row sums.
uint64_t SharedClosureBytes(uint64_t words, uint64_t rows) { return 16 * words + 8 * rows + 272; }

uint64_t StripClosureBytes(uint64_t strip_rows, uint64_t words_per_row, uint64_t majority_radius,
                           uint64_t annihilation_radius) {
  const uint64_t halo = majority_radius + annihilation_radius;
  return 8 * words_per_row * (strip_rows + 2 * halo) +          // s planes
         8 * words_per_row * (strip_rows + 2 * annihilation_radius) +  // M planes
         4 * words_per_row * strip_rows +                       // the output's support
         256 * words_per_row * strip_rows +                     // field rows: 32 fp64 a word
         8 * strip_rows;                                        // two counters a row
}

ClosureDispatchPlan PlanClosureDispatch(GridShape shape, const ClosureParams& params,
                                        const ClosureDeviceLimits& limits, ClosurePlan plan) {
  ClosureDispatchPlan out;
  auto multi = [&](const std::string& why) {
    out.dispatch = ClosureDispatch::kMultiDispatch;
    out.note = "multi_dispatch: " + why;
    return out;
  };
  if (plan == ClosurePlan::kMultiDispatch) return multi("asked for");
  const int r_max = std::max(params.majority.radius, params.annihilation.radius);
  if (shape.cols % 32 != 0) {
    return multi(std::to_string(shape.cols) + " columns are not a multiple of 32");
  }
  if (r_max > kSharedClosureMaxRadius) {
    return multi("radius " + std::to_string(r_max) + " exceeds " +
                 std::to_string(kSharedClosureMaxRadius));
  }
  // The strip-tiled steps: the largest strip (in rows) whose tile fits the shared memory.
  auto strips = [&](const std::string& why) {
    const uint64_t wpr = static_cast<uint64_t>(shape.cols) / 32;
    if (limits.max_invocations < kStripClosureWorkgroup) {
      return multi(why + "; strips need workgroups of " +
                   std::to_string(kStripClosureWorkgroup) + " invocations");
    }
    for (uint32_t h = kStripClosureMaxRows; h >= 1; h /= 2) {
      const uint64_t bytes = StripClosureBytes(h, wpr, params.majority.radius,
                                               params.annihilation.radius);
      if (bytes > limits.max_shared_bytes) continue;
      out.dispatch = ClosureDispatch::kStrips;
      out.rows = h;
      out.words = static_cast<uint32_t>(wpr);
      out.workgroup = kStripClosureWorkgroup;
      out.shared_bytes = static_cast<uint32_t>(bytes);
      out.strips = static_cast<uint32_t>((shape.rows + h - 1) / h);
      out.note = "strips: " + why + "; " + std::to_string(out.strips) + " strips of " +
                 std::to_string(h) + " rows, " + std::to_string(bytes) + " of " +
                 std::to_string(limits.max_shared_bytes) + " B";
      return out;
    }
    return multi(why + "; a strip of one row needs " +
                 std::to_string(StripClosureBytes(1, wpr, params.majority.radius,
                                                  params.annihilation.radius)) +
                 " B of shared memory, the device has " +
                 std::to_string(limits.max_shared_bytes));
  };
  if (plan == ClosurePlan::kStrips) return strips("asked for");
  if (params.max_iterations > kSharedClosureMaxIterations) {
    return strips("cap " + std::to_string(params.max_iterations) + " exceeds " +
                  std::to_string(kSharedClosureMaxIterations));
  }
  if (r_max > shape.rows) {
    return strips("radius " + std::to_string(r_max) + " exceeds the " +
                  std::to_string(shape.rows) + " rows");
  }
  const uint64_t words = static_cast<uint64_t>(shape.size()) / 32;
  const uint64_t bytes = SharedClosureBytes(words, static_cast<uint64_t>(shape.rows));
  if (bytes > limits.max_shared_bytes) {
    return strips("the grid needs " + std::to_string(bytes) +
                  " B of shared memory, the device has " +
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
