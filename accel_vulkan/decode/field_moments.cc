#include "accel_vulkan/decode/field_moments.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "accel_vulkan/buffer.h"
#include "accel_vulkan/command_batch.h"
#include "accel_vulkan/compute_pipeline.h"
#include "accel_vulkan/decode/vkfft_plan.h"
#include "accel_vulkan/guard_words.h"
#include "shaders/decode/decode_params.h"
#include "shaders/decode/field_moments.h"
#include "shaders/decode/spectral_moments.h"
#include "shaders/decode/sum_partials.h"

namespace dashi::vk {
namespace {

using Clock = std::chrono::steady_clock;
double MsSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

constexpr uint32_t kGroupSize = 256;  // local_size_x of the three shaders
constexpr uint32_t kMaxGroups = 1024;
constexpr uint32_t kRealMoments = 6, kSpectralMoments = 2;
static_assert((kRealMoments + kSpectralMoments) * 8 == kFieldMomentsReadbackBytes);
constexpr size_t kMaxDecodedBuffers = 16;  // the moments pipeline's descriptor sets

// Workgroups for `count` items: fixed by N alone, so the summation order is too.
uint32_t GroupsFor(uint64_t count) {
  const uint64_t g = (count + kGroupSize - 1) / kGroupSize;
  return static_cast<uint32_t>(std::clamp<uint64_t>(g, 1, kMaxGroups));
}

}  // namespace

StatusOr<FieldComparison> CompareFromSums(const FieldMomentSums& s, int64_t n) {
  const double cells = static_cast<double>(n) * static_cast<double>(n);
  const double n4 = cells * cells;
  FieldComparison c;
  c.rel_l2 = s.ref2 > 0 ? std::sqrt(s.diff2 / s.ref2) : std::sqrt(s.diff2);
  const double sxx = s.dec2 - s.dec_sum * s.dec_sum / cells;
  const double syy = s.ref2 - s.ref_sum * s.ref_sum / cells;
  const double sxy = s.cross - s.dec_sum * s.ref_sum / cells;
  if (!(sxx > 0.0) || !(syy > 0.0)) {
    return InvalidArgumentError(
        "device field moments: a field has zero variance; the correlation is undefined");
  }
  c.correlation = sxy / std::sqrt(sxx * syy);
  c.energy = 0.5 * s.spectral_energy / n4;
  c.enstrophy = 0.5 * s.spectral_enstrophy / n4;
  return c;
}

struct VulkanFieldMoments::Impl {
  explicit Impl(VulkanContext& c) : ctx(c) {}
  VulkanContext& ctx;
  uint32_t n = 0;
  uint64_t cells = 0, half_complex = 0;
  uint32_t real_groups = 0, spectral_groups = 0;
  std::unique_ptr<ComputePipeline> moments, spectral, sum;
  std::unique_ptr<CommandBatch> batch;
  std::unique_ptr<HostVisibleBuffer> staging, result;
  // reference: ω; real: a copy of ω̂ for the FFT (VkFFT binds its buffers at plan creation);
  // spectrum: Rfft(ω̂); partials: the workgroups' sums, real then spectral.
  std::unique_ptr<DeviceBuffer> reference, real, spectrum, partials_real, partials_spectral, sums;
  std::unique_ptr<VkFftPlan> plan;
  VkDescriptorSet set_spectral = VK_NULL_HANDLE, set_sum_real = VK_NULL_HANDLE,
                  set_sum_spectral = VK_NULL_HANDLE;
  std::vector<std::pair<VkBuffer, VkDescriptorSet>> moments_sets;  // per decoded buffer seen
  FieldMomentsTimings timings;

  Status Init();
  StatusOr<VkDescriptorSet> MomentsSet(VkBuffer decoded);
};

VulkanFieldMoments::VulkanFieldMoments(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

VulkanFieldMoments::~VulkanFieldMoments() {
  if (impl_ != nullptr) {
    vkDeviceWaitIdle(impl_->ctx.device());
    impl_->plan.reset();  // VkFFT holds descriptors on the buffers
  }
}

StatusOr<std::unique_ptr<VulkanFieldMoments>> VulkanFieldMoments::Create(VulkanContext& ctx,
                                                                         uint32_t n) {
  if (n < 8 || n > 4096 || (n & (n - 1)) != 0) {
    return InvalidArgumentError("VulkanFieldMoments: N = " + std::to_string(n) +
                                " must be a power of two in [8, 4096]");
  }
  if (!ctx.info().shader_float64) {
    return UnimplementedError("VulkanFieldMoments needs shaderFloat64; " + ctx.info().name +
                              " lacks it");
  }
  auto impl = std::make_unique<Impl>(ctx);
  impl->n = n;
  DASHI_RETURN_IF_ERROR(impl->Init());
  return std::unique_ptr<VulkanFieldMoments>(new VulkanFieldMoments(std::move(impl)));
}

Status VulkanFieldMoments::Impl::Init() {
  cells = uint64_t{n} * n;
  half_complex = uint64_t{n} * (n / 2 + 1);
  real_groups = GroupsFor(cells);
  spectral_groups = GroupsFor(half_complex);
  auto pipeline = [&](std::span<const uint32_t> spirv, uint32_t buffers, uint32_t push,
                      std::unique_ptr<ComputePipeline>& out) -> Status {
    DASHI_ASSIGN_OR_RETURN(out, ComputePipeline::Create(ctx, {spirv, buffers, push, {},
                                                              uint32_t{kMaxDecodedBuffers}}));
    return OkStatus();
  };
  DASHI_RETURN_IF_ERROR(pipeline(spirv::kFieldMoments, 3, sizeof(CountParams), moments));
  DASHI_RETURN_IF_ERROR(
      pipeline(spirv::kSpectralMoments, 2, sizeof(SpectralMomentsParams), spectral));
  DASHI_RETURN_IF_ERROR(pipeline(spirv::kSumPartials, 2, sizeof(SumPartialsParams), sum));
  DASHI_ASSIGN_OR_RETURN(batch, CommandBatch::Create(ctx, 8));
  DASHI_ASSIGN_OR_RETURN(HostVisibleBuffer st, HostVisibleBuffer::Create(ctx, cells * 8));
  staging = std::make_unique<HostVisibleBuffer>(std::move(st));
  constexpr uint32_t kSums = kRealMoments + kSpectralMoments;
  DASHI_ASSIGN_OR_RETURN(HostVisibleBuffer rs, HostVisibleBuffer::CreateForReading(ctx, kSums * 8));
  result = std::make_unique<HostVisibleBuffer>(std::move(rs));
  DASHI_RETURN_IF_ERROR(CreateGuardedBuffer(ctx, cells * 8, reference));
  DASHI_RETURN_IF_ERROR(
      CreateGuardedBuffer(ctx, VkFftPlan::RealBufferBytes(n, Precision::kFp64), real));
  DASHI_RETURN_IF_ERROR(
      CreateGuardedBuffer(ctx, VkFftPlan::SpectrumBytes(n, Precision::kFp64), spectrum));
  DASHI_RETURN_IF_ERROR(
      CreateGuardedBuffer(ctx, uint64_t{real_groups} * kRealMoments * 8, partials_real));
  DASHI_RETURN_IF_ERROR(CreateGuardedBuffer(ctx, uint64_t{spectral_groups} * kSpectralMoments * 8,
                                            partials_spectral));
  DASHI_RETURN_IF_ERROR(CreateGuardedBuffer(ctx, kSums * 8, sums));
  DASHI_ASSIGN_OR_RETURN(plan, VkFftPlan::Create(ctx, n, Precision::kFp64, *spectrum, *real));
  const VkBuffer spectral_bufs[] = {spectrum->buffer(), partials_spectral->buffer()};
  DASHI_ASSIGN_OR_RETURN(set_spectral, spectral->Bindings(spectral_bufs));
  const VkBuffer sum_real_bufs[] = {partials_real->buffer(), sums->buffer()};
  DASHI_ASSIGN_OR_RETURN(set_sum_real, sum->Bindings(sum_real_bufs));
  const VkBuffer sum_spectral_bufs[] = {partials_spectral->buffer(), sums->buffer()};
  DASHI_ASSIGN_OR_RETURN(set_sum_spectral, sum->Bindings(sum_spectral_bufs));
  return OkStatus();
}

StatusOr<VkDescriptorSet> VulkanFieldMoments::Impl::MomentsSet(VkBuffer decoded) {
  for (const auto& [buffer, set] : moments_sets) {
    if (buffer == decoded) return set;
  }
  if (moments_sets.size() >= kMaxDecodedBuffers) {
    return ResourceExhaustedError("device field moments: more than " +
                                  std::to_string(kMaxDecodedBuffers) +
                                  " different decoded buffers");
  }
  const VkBuffer bufs[] = {decoded, reference->buffer(), partials_real->buffer()};
  DASHI_ASSIGN_OR_RETURN(VkDescriptorSet set, moments->Bindings(bufs));
  moments_sets.emplace_back(decoded, set);
  return set;
}

Status VulkanFieldMoments::Record(CommandBatch& b, const DeviceBuffer& decoded,
                                  std::span<const double> reference_field) {
  Impl& m = *impl_;
  if (reference_field.size() != m.cells) {
    return InvalidArgumentError("device field moments: the reference field has " +
                                std::to_string(reference_field.size()) + " values, N² = " +
                                std::to_string(m.cells));
  }
  for (size_t k = 0; k < reference_field.size(); ++k) {
    if (!std::isfinite(reference_field[k])) {
      return InvalidArgumentError("device field moments: reference value at index " +
                                  std::to_string(k) + " is not finite");
    }
  }
  std::memcpy(m.staging->data(), reference_field.data(), reference_field.size_bytes());
  DASHI_ASSIGN_OR_RETURN(VkDescriptorSet set_moments, m.MomentsSet(decoded.buffer()));
  b.Barrier();  // the decoded field's writes before these reads
  b.CopyBuffer(m.staging->buffer(), m.reference->buffer(), m.cells * 8);
  b.CopyBuffer(decoded.buffer(), m.real->buffer(), m.cells * 8);
  b.Barrier();
  const CountParams cp{static_cast<uint32_t>(m.cells)};
  b.Dispatch(*m.moments, set_moments, &cp, sizeof(cp), m.real_groups);
  DASHI_RETURN_IF_ERROR(m.plan->RecordForward(b.command_buffer()));
  b.Barrier();
  const SpectralMomentsParams sp{m.n};
  b.Dispatch(*m.spectral, m.set_spectral, &sp, sizeof(sp), m.spectral_groups);
  b.Barrier();
  // Each moment family summed by one workgroup into the first slots of `sums`, then copied to
  // its place in the host-visible result.
  const SumPartialsParams real_sum{m.real_groups, kRealMoments};
  b.Dispatch(*m.sum, m.set_sum_real, &real_sum, sizeof(real_sum), 1);
  b.Barrier();
  b.CopyBuffer(m.sums->buffer(), m.result->buffer(), kRealMoments * 8, 0, 0);
  b.Barrier();
  const SumPartialsParams spectral_sum{m.spectral_groups, kSpectralMoments};
  b.Dispatch(*m.sum, m.set_sum_spectral, &spectral_sum, sizeof(spectral_sum), 1);
  b.Barrier();
  b.CopyBuffer(m.sums->buffer(), m.result->buffer(), kSpectralMoments * 8, 0, kRealMoments * 8);
  b.HostReadBarrier();
  b.Timestamp("compare");
  return OkStatus();
}

FieldMomentSums VulkanFieldMoments::ReadSums() const {
  const std::span<const double> r = impl_->result->as<const double>();
  FieldMomentSums s;
  s.diff2 = r[0];
  s.ref2 = r[1];
  s.dec2 = r[2];
  s.cross = r[3];
  s.dec_sum = r[4];
  s.ref_sum = r[5];
  s.spectral_energy = r[6];
  s.spectral_enstrophy = r[7];
  return s;
}

StatusOr<FieldMomentSums> VulkanFieldMoments::Sums(const DeviceBuffer& decoded,
                                                   std::span<const double> reference_field) {
  Impl& m = *impl_;
  const auto host_start = Clock::now();
  CommandBatch& b = *m.batch;
  DASHI_RETURN_IF_ERROR(b.Begin());
  b.Timestamp("begin");
  DASHI_RETURN_IF_ERROR(Record(b, decoded, reference_field));
  DASHI_RETURN_IF_ERROR(b.SubmitAndWait());
  double device_ms = 0;
  for (const auto& [label, ms] : b.StageMilliseconds()) device_ms += ms;
  m.timings = {device_ms, MsSince(host_start), kFieldMomentsReadbackBytes};
  return ReadSums();
}

StatusOr<FieldComparison> VulkanFieldMoments::Compare(const DeviceBuffer& decoded,
                                                      std::span<const double> reference_field) {
  DASHI_ASSIGN_OR_RETURN(FieldMomentSums s, Sums(decoded, reference_field));
  return CompareFromSums(s, impl_->n);
}

const FieldMomentsTimings& VulkanFieldMoments::last_timings() const { return impl_->timings; }
VkFftPlan::CacheUse VulkanFieldMoments::fft_cache_use() const { return impl_->plan->cache_use(); }

Status VulkanFieldMoments::CheckGuards() const {
  const Impl& m = *impl_;
  const GuardedPayload items[] = {
      {"moments reference", m.reference.get(), m.cells * 8},
      {"moments real", m.real.get(), m.cells * 8},
      {"moments spectrum", m.spectrum.get(), m.half_complex * 16},
      {"moments partials (real)", m.partials_real.get(),
       uint64_t{m.real_groups} * kRealMoments * 8},
      {"moments partials (spectral)", m.partials_spectral.get(),
       uint64_t{m.spectral_groups} * kSpectralMoments * 8},
      {"moments sums", m.sums.get(), (kRealMoments + kSpectralMoments) * 8},
  };
  return CheckGuardWords(m.ctx, items, "");
}

}  // namespace dashi::vk
