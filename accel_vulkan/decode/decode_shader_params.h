// Push constants and table entries of the shaders in shaders/decode/, mirrored field for field
// (std430 / push-constant offsets checked by static_asserts).
#ifndef DASHI_ACCEL_VULKAN_DECODE_DECODE_SHADER_PARAMS_H_
#define DASHI_ACCEL_VULKAN_DECODE_DECODE_SHADER_PARAMS_H_

#include <cstddef>
#include <cstdint>

namespace dashi::vk {

// scatter_lowk.comp
struct ScatterLowKParams {
  double n2;       // N·N
  uint32_t count;  // low modes + anchors
  uint32_t padding;
};
static_assert(offsetof(ScatterLowKParams, n2) == 0);
static_assert(offsetof(ScatterLowKParams, count) == 8);
static_assert(sizeof(ScatterLowKParams) == 16);

// scatter_lowk.comp's slot table: one per mode, in z order.
struct HalfSpectrumSlot {
  uint32_t index;   // row·(N/2+1) + kx
  uint32_t mirror;  // the −ky slot on the kx = 0 column, or kNoMirror
};
inline constexpr uint32_t kNoMirror = 0xFFFFFFFFu;
static_assert(sizeof(HalfSpectrumSlot) == 8);

// synth_residual.comp
struct SynthResidualParams {
  uint64_t seed;
  uint64_t t;
  double amp_mid;
  double amp_high;
  uint32_t mid_count;
  uint32_t count;
};
static_assert(offsetof(SynthResidualParams, seed) == 0);
static_assert(offsetof(SynthResidualParams, t) == 8);
static_assert(offsetof(SynthResidualParams, amp_mid) == 16);
static_assert(offsetof(SynthResidualParams, amp_high) == 24);
static_assert(offsetof(SynthResidualParams, mid_count) == 32);
static_assert(offsetof(SynthResidualParams, count) == 36);
static_assert(sizeof(SynthResidualParams) == 40);

// synth_residual.comp's mode table (std430 struct of four 32-bit members).
struct ResidualModeEntry {
  int32_t kx;
  int32_t ky;
  uint32_t index;
  uint32_t mirror;
};
static_assert(sizeof(ResidualModeEntry) == 16);

// combine.comp, convert_*.comp, counter_hash_test.comp, trig_f64_test.comp
struct CountParams {
  uint32_t count;
};
static_assert(sizeof(CountParams) == 4);

// counter_hash_test.comp's key (std430: 8-byte members, stride 40).
struct CounterKey {
  uint64_t seed;
  uint64_t t;
  int64_t kx;
  int64_t ky;
  uint64_t stream;
};
static_assert(sizeof(CounterKey) == 40);

}  // namespace dashi::vk

#endif  // DASHI_ACCEL_VULKAN_DECODE_DECODE_SHADER_PARAMS_H_
