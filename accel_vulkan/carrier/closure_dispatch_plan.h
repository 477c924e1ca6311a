// How a closure runs on a device: in ONE dispatch of one workgroup holding the carrier in shared
// memory (shaders/carrier/carrier_closure_shared.comp); where the grid does not fit, as steps
// recorded ahead, each step tiled into strips of whole rows with halos (2 dispatches per step:
// carrier_closure_strip.comp, carrier_closure_reduce.comp); or as the multi-dispatch steps
// (7 dispatches per step: any shape and radius). PlanClosureDispatch decides from the grid, the
// parameters and the device's limits, and says why, so the choice can be recorded next to the
// timings.
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
  kAuto,           // kSharedMemory where it fits, else kStrips where it applies, else kMultiDispatch
  kMultiDispatch,  // always the multi-dispatch steps
  kStrips,         // kStrips where it applies (never kSharedMemory), else kMultiDispatch
};
enum class ClosureDispatch {
  kSharedMemory,   // one dispatch for the whole closure
  kMultiDispatch,  // per step: 2 window passes for M, 2 for K_ann, level rows, reduce, control
  kStrips,         // per step: the strip-tiled step (M, K_ann, row partials), reduce + control
};
// "shared_memory", "multi_dispatch", "strips"
const char* ClosureDispatchName(ClosureDispatch d);

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
  // kSharedMemory: the shader's specialization (words per plane, rows, workgroup size) and the
  // shared memory it declares with them. kStrips: rows = the rows of one strip (kStripRows),
  // words = words per row, workgroup, shared_bytes; strips = the workgroups of a step.
  uint32_t words = 0, rows = 0, workgroup = 0, shared_bytes = 0, strips = 0;
  std::string note;  // what was chosen and why
};

// The shared memory the shader declares for `words` words per plane and `rows` rows: four bit
// planes (s and M(s), + and −), one fp64 row sum per row, 2 × 32 count slots and a flag (padded).
uint64_t SharedClosureBytes(uint64_t words, uint64_t rows);

// The strip-tiled step's shared memory for strips of `strip_rows` rows of `words_per_row` words and
// halo H = r_m + r_a: the s planes on strip_rows + 2H rows, the M planes on strip_rows + 2 r_a, the
// output's support, the strip's field rows (fp64) and two counters per row.
uint64_t StripClosureBytes(uint64_t strip_rows, uint64_t words_per_row, uint64_t majority_radius,
                           uint64_t annihilation_radius);
// The strip rows tried, largest first (the largest whose tile fits is taken).
inline constexpr uint32_t kStripClosureMaxRows = 8;
// Its workgroup.
inline constexpr uint32_t kStripClosureWorkgroup = 256;

ClosureDispatchPlan PlanClosureDispatch(GridShape shape, const ClosureParams& params,
                                        const ClosureDeviceLimits& limits, ClosurePlan plan);

}  // namespace dashi::vk

#endif  // DASHI_ACCEL_VULKAN_CARRIER_CLOSURE_DISPATCH_PLAN_H_
