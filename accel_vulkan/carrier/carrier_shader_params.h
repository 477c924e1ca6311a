// Push constants and buffer records of the carrier shaders (shaders/carrier/*.comp), mirrored
// field for field; the static_asserts pin the std430 offsets the shaders use.
#ifndef DASHI_ACCEL_VULKAN_CARRIER_CARRIER_SHADER_PARAMS_H_
#define DASHI_ACCEL_VULKAN_CARRIER_CARRIER_SHADER_PARAMS_H_

#include <cstddef>
#include <cstdint>

namespace dashi::vk {

// carrier_pda.comp
struct CarrierPdaParams {
  double tau;
  uint32_t n;
  uint32_t pad;
};
static_assert(offsetof(CarrierPdaParams, tau) == 0);
static_assert(offsetof(CarrierPdaParams, n) == 8);
static_assert(sizeof(CarrierPdaParams) == 16);

// carrier_window_rows.comp, carrier_window_cols.comp
inline constexpr uint32_t kWindowModeMajority = 0;
inline constexpr uint32_t kWindowModeAnnihilation = 1;
struct CarrierWindowParams {
  uint32_t rows;
  uint32_t cols;
  uint32_t radius;
  uint32_t mode;  // kWindowMode*
  int32_t eta;    // majority only
  uint32_t pad;
};
static_assert(offsetof(CarrierWindowParams, rows) == 0);
static_assert(offsetof(CarrierWindowParams, cols) == 4);
static_assert(offsetof(CarrierWindowParams, radius) == 8);
static_assert(offsetof(CarrierWindowParams, mode) == 12);
static_assert(offsetof(CarrierWindowParams, eta) == 16);
static_assert(sizeof(CarrierWindowParams) == 24);

// carrier_level_rows.comp (flag: a field is bound), carrier_defect_rows.comp (flag:
// 8-neighbourhood), carrier_maxabs_rows.comp (flag unused).
struct CarrierRowParams {
  uint32_t rows;
  uint32_t cols;
  uint32_t flag;
  uint32_t pad;
};
static_assert(offsetof(CarrierRowParams, rows) == 0);
static_assert(offsetof(CarrierRowParams, cols) == 4);
static_assert(offsetof(CarrierRowParams, flag) == 8);
static_assert(sizeof(CarrierRowParams) == 16);

// The per-row partial written by the *_rows shaders (std430 struct RowPartial).
struct CarrierRowPartial {
  double sum;
  double maxabs;
  uint64_t c0;
  uint64_t c1;
};
static_assert(offsetof(CarrierRowPartial, sum) == 0);
static_assert(offsetof(CarrierRowPartial, maxabs) == 8);
static_assert(offsetof(CarrierRowPartial, c0) == 16);
static_assert(offsetof(CarrierRowPartial, c1) == 24);
static_assert(sizeof(CarrierRowPartial) == 32);

// carrier_reduce_rows.comp (flag: divide sum by c0 into mean).
struct CarrierReduceParams {
  uint32_t rows;
  uint32_t flag;
  uint32_t slot;
  uint32_t pad;
};
static_assert(offsetof(CarrierReduceParams, rows) == 0);
static_assert(offsetof(CarrierReduceParams, flag) == 4);
static_assert(offsetof(CarrierReduceParams, slot) == 8);
static_assert(sizeof(CarrierReduceParams) == 16);

// One record of the (host-visible) totals buffer (std430 struct Totals).
inline constexpr uint32_t kTotalsFlagBadFusionValue = 1;
struct CarrierTotals {
  double sum;
  double maxabs;
  double mean;
  double pad0;
  uint64_t c0;
  uint64_t c1;
  uint32_t flags;  // kTotalsFlag*
  uint32_t pad1;
  uint32_t pad2;
  uint32_t pad3;
};
static_assert(offsetof(CarrierTotals, sum) == 0);
static_assert(offsetof(CarrierTotals, maxabs) == 8);
static_assert(offsetof(CarrierTotals, mean) == 16);
static_assert(offsetof(CarrierTotals, c0) == 32);
static_assert(offsetof(CarrierTotals, c1) == 40);
static_assert(offsetof(CarrierTotals, flags) == 48);
static_assert(sizeof(CarrierTotals) == 64);

// carrier_smooth.comp
struct CarrierSmoothParams {
  double total;  // W: 2r+1 (box) or (r+1)^2 (triangle), computed on the host as core_ref does
  uint32_t rows;
  uint32_t cols;
  uint32_t radius;
  uint32_t triangle;
  uint32_t axis;  // 0: along rows (j), 1: along columns (i)
  uint32_t pad;
};
static_assert(offsetof(CarrierSmoothParams, total) == 0);
static_assert(offsetof(CarrierSmoothParams, rows) == 8);
static_assert(offsetof(CarrierSmoothParams, cols) == 12);
static_assert(offsetof(CarrierSmoothParams, radius) == 16);
static_assert(offsetof(CarrierSmoothParams, triangle) == 20);
static_assert(offsetof(CarrierSmoothParams, axis) == 24);
static_assert(sizeof(CarrierSmoothParams) == 32);

// carrier_scale.comp
struct CarrierScaleParams {
  uint32_t n;
  uint32_t slot;
};
static_assert(offsetof(CarrierScaleParams, n) == 0);
static_assert(offsetof(CarrierScaleParams, slot) == 4);
static_assert(sizeof(CarrierScaleParams) == 8);

// carrier_fuse.comp
struct CarrierFuseParams {
  uint32_t n;
  uint32_t channels;  // in this chunk
  uint32_t first;     // 1: the sum starts from 0
  uint32_t last;      // 1: write sign(sum) to the output
  uint32_t slot;      // totals record whose flags report a bad value
  uint32_t pad;
};
static_assert(offsetof(CarrierFuseParams, n) == 0);
static_assert(offsetof(CarrierFuseParams, channels) == 4);
static_assert(offsetof(CarrierFuseParams, first) == 8);
static_assert(offsetof(CarrierFuseParams, last) == 12);
static_assert(offsetof(CarrierFuseParams, slot) == 16);
static_assert(sizeof(CarrierFuseParams) == 24);

// carrier_closure_control.comp: the device-side state of a closure run (CarrierClosure). The
// step dispatches read their group counts from `args` (vkCmdDispatchIndirect); the control shader
// zeroes every x count once the closure is finished, so the steps recorded after that are no-ops.
inline constexpr uint32_t kClosureArgsCells = 0;  // one invocation per cell (window kernels)
inline constexpr uint32_t kClosureArgsRows = 1;   // one invocation per row (level statistics)
inline constexpr uint32_t kClosureArgsOne = 2;    // one workgroup (the row reduction)
inline constexpr uint32_t kClosureArgsCount = 3;
struct CarrierDispatchArgs {  // a VkDispatchIndirectCommand, padded to 16 bytes
  uint32_t x;
  uint32_t y;
  uint32_t z;
  uint32_t pad;
};
static_assert(sizeof(CarrierDispatchArgs) == 16);
struct CarrierClosureControl {
  uint32_t depth;      // steps that changed the carrier (the cap's check step never counts)
  uint32_t converged;  // 1 once a step changed nothing
  uint32_t steps;      // steps run so far (the converging step and the check step included)
  uint32_t pad;
  CarrierDispatchArgs args[kClosureArgsCount];
};
static_assert(offsetof(CarrierClosureControl, depth) == 0);
static_assert(offsetof(CarrierClosureControl, converged) == 4);
static_assert(offsetof(CarrierClosureControl, steps) == 8);
static_assert(offsetof(CarrierClosureControl, args) == 16);
static_assert(sizeof(CarrierClosureControl) == 64);

struct CarrierClosureControlParams {
  uint32_t step;            // s, counted from 0
  uint32_t max_iterations;  // the cap: step s = max_iterations is the check step
  uint32_t slot;            // the step's statistics are at levels[slot]
  uint32_t pad;
};
static_assert(offsetof(CarrierClosureControlParams, step) == 0);
static_assert(offsetof(CarrierClosureControlParams, max_iterations) == 4);
static_assert(offsetof(CarrierClosureControlParams, slot) == 8);
static_assert(sizeof(CarrierClosureControlParams) == 16);

}  // namespace dashi::vk

#endif  // DASHI_ACCEL_VULKAN_CARRIER_CARRIER_SHADER_PARAMS_H_
