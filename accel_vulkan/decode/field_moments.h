// VulkanFieldMoments: a decoded field compared with its reference on the device, so that the
// `metrics` observer mode reads back eight doubles per snapshot instead of the fields. From the
// decoded field ω̂ (a device buffer: the decoder's output) and the reference ω (uploaded from the
// host) it computes, in one submission,
//   real space  Σ(ω̂−ω)², Σω², Σω̂², Σω̂ω, Σω̂, Σω          (field_moments.comp)
//   spectrum    Σ w·|Ω̂|²/|k|², Σ w·|Ω̂|²  of Ω̂ = Rfft(ω̂)  (VkFFT forward, spectral_moments.comp)
// each summed in the fixed order of docs/MATH.md §11.4 (sum_partials.comp), and the host turns
// them into the snapshot metrics core_ref computes from the fields (CompareFromSums): rel L2,
// Pearson correlation, energy and enstrophy of ω̂. The sums run in another order than core_ref's
// sequential loops, so the metrics agree within the tolerance docs/CONFORMANCE.md states, not
// bit for bit.
//
//   DASHI_ASSIGN_OR_RETURN(auto fm, VulkanFieldMoments::Create(ctx, n));
//   DASHI_ASSIGN_OR_RETURN(FieldComparison c, fm->Compare(decoder->omega_buffer(), les_omega));
#ifndef DASHI_ACCEL_VULKAN_DECODE_FIELD_MOMENTS_H_
#define DASHI_ACCEL_VULKAN_DECODE_FIELD_MOMENTS_H_

#include <cstdint>
#include <memory>
#include <span>

#include "accel_vulkan/command_batch.h"
#include "accel_vulkan/context.h"
#include "accel_vulkan/decode/vkfft_plan.h"
#include "accel_vulkan/device_buffer.h"
#include "core_ref/status/status.h"

namespace dashi::vk {

// The eight sums one Compare reads back, and their size.
inline constexpr uint64_t kFieldMomentsReadbackBytes = 8 * 8;
struct FieldMomentSums {
  double diff2 = 0, ref2 = 0, dec2 = 0, cross = 0, dec_sum = 0, ref_sum = 0;
  double spectral_energy = 0, spectral_enstrophy = 0;  // before the ½/N⁴
};

// What core_ref's pipeline computes per snapshot from the decoded field and the LES's.
struct FieldComparison {
  double rel_l2 = 0, correlation = 0, energy = 0, enstrophy = 0;
};

// The host formulas on the sums: rel L2 = √(Σ(ω̂−ω)²/Σω²) (√Σ(ω̂−ω)² when Σω² = 0), Pearson from
// the centred moments Σxy − ΣxΣy/N² etc. (INVALID_ARGUMENT when a variance is not positive, as
// core_ref's PearsonCorrelation), energy and enstrophy = ½·sum/N⁴.
StatusOr<FieldComparison> CompareFromSums(const FieldMomentSums& s, int64_t n);

struct FieldMomentsTimings {
  double device_ms = 0;      // first to last timestamp of the submission
  double host_ms = 0;        // the whole Compare call: upload, submit, wait, read
  uint64_t readback_bytes = 0;
};

class VulkanFieldMoments {
 public:
  // n: a power of two in [8, 4096] (the decoder's grids); the context needs shaderFloat64.
  static StatusOr<std::unique_ptr<VulkanFieldMoments>> Create(VulkanContext& ctx, uint32_t n);
  ~VulkanFieldMoments();
  VulkanFieldMoments(const VulkanFieldMoments&) = delete;
  VulkanFieldMoments& operator=(const VulkanFieldMoments&) = delete;

  // decoded: at least N² fp64 values on the device (written by an earlier, finished submission);
  // reference: N² finite values (INVALID_ARGUMENT otherwise, naming the first bad index).
  StatusOr<FieldMomentSums> Sums(const DeviceBuffer& decoded, std::span<const double> reference);
  // The same work recorded into a caller's open command batch (e.g. the decoder's own submission,
  // after its combine), timestamped "compare"; ReadSums() after that batch's wait. The reference
  // is copied into staging memory here, so it need not outlive the call.
  Status Record(CommandBatch& batch, const DeviceBuffer& decoded,
                std::span<const double> reference);
  FieldMomentSums ReadSums() const;
  StatusOr<FieldComparison> Compare(const DeviceBuffer& decoded,
                                    std::span<const double> reference);

  const FieldMomentsTimings& last_timings() const;
  VkFftPlan::CacheUse fft_cache_use() const;  // its forward plan's (vkfft_binary_cache.h)
  // DATA_LOSS naming the buffer when a shader or the FFT wrote past a payload.
  Status CheckGuards() const;

 private:
  struct Impl;
  explicit VulkanFieldMoments(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace dashi::vk

#endif  // DASHI_ACCEL_VULKAN_DECODE_FIELD_MOMENTS_H_
