// How a closure runs on a device: in ONE dispatch of one workgroup holding the carrier in shared
// memory (shaders/carrier/carrier_closure_shared.comp), or as the multi-dispatch steps recorded
// ahead (7 dispatches per step). PlanClosureDispatch decides from the grid, the parameters and
// the device's limits, and says why, so the choice can be recorded next to the timings.
//
//   ClosureDispatchPlan plan = PlanClosureDispatch({128, 128}, params, {49152, 1024},
//                                                  ClosurePlan::kAuto);
//   plan.dispatch == ClosureDispatch::kSharedMemory;
//   plan.note == "shared_memory: 9248 of 49152 B, workgroup 512"
#ifndef DASHI_ACCEL_VULKAN_CARRIER_CLOSURE_DISPATCH_PLAN_H_
#define DASHI_ACCEL_VULKAN_CARRIER_CLOSURE_DISPATCH_PLAN_H_

#include <cstdint>
#include <string>

#include "core_ref/carrier/carrier.h"
#include "core_ref/carrier/closure.h"

namespace dashi::vk {

enum class ClosurePlan {
  kAuto,           // kSharedMemory where it fits, else kMultiDispatch
  kMultiDispatch,  // always the steps recorded ahead
};
enum class ClosureDispatch {
  kSharedMemory,   // one dispatch for the whole closure
  kMultiDispatch,  // per step: 2 window passes for M, 2 for K_ann, level rows, reduce, control
};
const char* ClosureDispatchName(ClosureDispatch d);  // "shared_memory", "multi_dispatch"

// The shader's largest window radius: a window row then spans the word and its two neighbours.
inline constexpr int kSharedClosureMaxRadius = 15;
// Its statistics buffer holds a slot per step: larger caps take the multi-dispatch path.
inline constexpr int kSharedClosureMaxIterations = 4096;
// Its workgroup never exceeds this many invocations.
inline constexpr uint32_t kSharedClosureMaxWorkgroup = 1024;

struct ClosureDeviceLimits {
  uint32_t max_shared_bytes = 0;  // maxComputeSharedMemorySize (or a smaller budget)
  uint32_t max_invocations = 0;   // min(maxComputeWorkGroupInvocations, maxComputeWorkGroupSize[0])
};

struct ClosureDispatchPlan {
  ClosureDispatch dispatch = ClosureDispatch::kMultiDispatch;
  // kSharedMemory only: the shader's specialization (words per plane, rows, workgroup size) and
  // the shared memory it declares with them.
  uint32_t words = 0, rows = 0, workgroup = 0, shared_bytes = 0;
  std::string note;  // what was chosen and why
};

// The shared memory the shader declares for `words` words per plane and `rows` rows: four bit
// planes (s and M(s), + and −), one fp64 row sum per row, 2 × 32 count slots and a flag (padded).
uint64_t SharedClosureBytes(uint64_t words, uint64_t rows);

ClosureDispatchPlan PlanClosureDispatch(GridShape shape, const ClosureParams& params,
                                        const ClosureDeviceLimits& limits, ClosurePlan plan);

}  // namespace dashi::vk

#endif  // DASHI_ACCEL_VULKAN_CARRIER_CLOSURE_DISPATCH_PLAN_H_
