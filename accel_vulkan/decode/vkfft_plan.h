// VkFftPlan: RAII wrapper of one VkFFT 1.2.26 plan for the 2D real transforms of an N×N grid, in
// fp64 (doublePrecision) or fp32, on two device-local buffers, recorded into a caller's command
// buffer (VkFFTAppend with launchParams.commandBuffer). It reproduces core_ref/fft's Rfft and
// Irfft layout and scaling:
//
//   real:     N×N scalars, dense row-major (row i = y, column j = x, the fastest index).
//   spectrum: N×(N/2+1) complex (interleaved re, im), row-major, index ky_row·(N/2+1) + kx, the
//             half spectrum over the fast axis exactly as core_ref's Fft2d::Rfft returns it.
//   Forward  (R2C): real → spectrum, unnormalised  X[k] = Σ x[n]·e^{−2πi k·n/N}   (= Rfft).
//   Inverse  (C2R): spectrum → real, scaled by 1/N² (VkFFT normalize = 1)         (= Irfft).
//
// Plan creation compiles VkFFT's kernels (glslang at run time) unless the on-disk binary cache
// of vkfft_binary_cache.h holds them for this plan, device and driver (cache_use() says which).
//
// VkFFT configuration: FFTdim 2, size {N, N}, performR2C 1, out of place with isInputFormatted 1
// and inverseReturnToInputBuffer 1 (VkFFT's "input buffer" is our dense real buffer; its
// "buffer" our spectrum), inputBufferStride {N, N²} (VkFFT's R2C default is the padded N+2),
// bufferStride {N/2+1, N·(N/2+1)} complex, normalize 1, useLUT 1 (twiddles from host-computed
// tables, also in fp32). The inverse uses the spectrum buffer as scratch: its content is
// undefined afterwards. The plan is bound to its two buffers at creation (VkFFT fixes the
// descriptors then); they must outlive it. Destroy before the VulkanContext.
//
//   DASHI_ASSIGN_OR_RETURN(auto plan, VkFftPlan::Create(ctx, 128, Precision::kFp64, spec, real));
//   batch->Begin();  ...;  DASHI_RETURN_IF_ERROR(plan->RecordInverse(batch->command_buffer()));
#ifndef DASHI_ACCEL_VULKAN_DECODE_VKFFT_PLAN_H_
#define DASHI_ACCEL_VULKAN_DECODE_VKFFT_PLAN_H_

#include <cstdint>
#include <memory>

#include <vulkan/vulkan.h>

#include "accel_vulkan/context.h"
#include "accel_vulkan/device_buffer.h"
#include "core_ref/status/status.h"

namespace dashi::vk {

// The arithmetic of a device path. kFp32 must be declared as such in any output it produces.
enum class Precision { kFp64, kFp32 };
const char* PrecisionName(Precision p);  // "fp64", "fp32"
inline uint64_t ScalarBytes(Precision p) { return p == Precision::kFp64 ? 8 : 4; }

class VkFftPlan {
 public:
  // n: a power of two in [8, 4096]. `spectrum` must hold SpectrumBytes(n, precision) bytes and
  // `real` RealBufferBytes(n, precision) (more is allowed). VkFFT reads and writes only the first
  // SpectrumBytes of the spectrum and the first RealBytes of the real buffer.
  static StatusOr<std::unique_ptr<VkFftPlan>> Create(const VulkanContext& ctx, uint32_t n,
                                                     Precision precision,
                                                     const DeviceBuffer& spectrum,
                                                     const DeviceBuffer& real);
  ~VkFftPlan();
  VkFftPlan(const VkFftPlan&) = delete;
  VkFftPlan& operator=(const VkFftPlan&) = delete;

  static uint64_t SpectrumBytes(uint32_t n, Precision p) {
    return uint64_t{n} * (n / 2 + 1) * 2 * ScalarBytes(p);
  }
  static uint64_t RealBytes(uint32_t n, Precision p) { return uint64_t{n} * n * ScalarBytes(p); }
  // The size the real buffer must have: max(RealBytes, SpectrumBytes). VkFFT 1.2.26 binds the
  // real ("input") buffer of its separate R2C-decomposition kernel with the spectrum's byte range
  // (VkFFT's descriptor-range computation uses bufferSize there); a buffer of only RealBytes
  // makes that descriptor overrun it (VUID-VkDescriptorBufferInfo-range-00342). The data stay
  // dense in the first RealBytes; guard words right after them stay untouched (tested).
  static uint64_t RealBufferBytes(uint32_t n, Precision p) {
    return RealBytes(n, p) > SpectrumBytes(n, p) ? RealBytes(n, p) : SpectrumBytes(n, p);
  }

  // Record into `cb` (between vkBeginCommandBuffer and vkEndCommandBuffer). The caller puts a
  // compute→compute barrier before (so the input is visible) and after (so the output is).
  Status RecordForward(VkCommandBuffer cb);  // real → spectrum
  Status RecordInverse(VkCommandBuffer cb);  // spectrum → real (spectrum clobbered)

  uint32_t n() const { return n_; }
  Precision precision() const { return precision_; }

  // Where the plan's compiled kernels came from (VkFftBinaryCache, vkfft_binary_cache.h).
  enum class CacheUse { kOff, kLoaded, kCompiledAndSaved, kCompiledNotSaved };
  CacheUse cache_use() const;
  static const char* CacheUseName(CacheUse u);

 private:
  struct State;  // VkFFT's application and the handles it points at (stable addresses)
  VkFftPlan(uint32_t n, Precision precision, std::unique_ptr<State> state);

  uint32_t n_;
  Precision precision_;
  std::unique_ptr<State> state_;
};

}  // namespace dashi::vk

#endif  // DASHI_ACCEL_VULKAN_DECODE_VKFFT_PLAN_H_
