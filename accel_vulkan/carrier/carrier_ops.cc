// The carrier kernels on the device. Every op validates its arguments with core_ref's Validate*
// functions, records its dispatches (with barriers) into one command buffer, submits it once and
// waits; only small records (level statistics, a defect count) are read back.
//
// Shader design (shaders/carrier/*.comp; workgroup size = specialization constant 0; 1-D ranges
// are dispatched as a 2-D grid whose x group count is capped at Options::max_groups_x):
//   PdaThreshold  carrier_pda           one invocation per cell, comparisons only.
//   Majority      carrier_window_rows   int32 row window sums (mode 0: Σ s), then
//                 carrier_window_cols   int32 column window sums of those + the M(r, η) decision.
//   Annihilate    the same two shaders, mode 1: (#plus, #minus) window counts as ivec2, K(r).
//   ClosureStep   Majority into a scratch carrier, then Annihilate into the output.
//   Closure       one submission per iteration: a step s_k → s_{k+1} plus carrier_level_rows (one
//                 invocation per row, increasing j: active cells, cells changed, Σ|f| `precise`)
//                 and carrier_reduce_rows (one invocation: rows in increasing i, mean = Σ / active)
//                 into a host-visible Totals record; the host reads 64 bytes per iteration.
//   Defect        carrier_defect_rows (per row, forward edges with multiplicity, uint64) and
//                 carrier_reduce_rows (exact integer total).
//   FuseMajority  channels are copied channel-major into a scratch chunk; carrier_fuse sums them
//                 in int32 and writes sign(sum) after the last chunk.
//   Smooth        carrier_smooth along rows into a scratch field, then along columns: the same
//                 products, sums (d = −r..r) and single division as core_ref, each `precise`.
//   NormalizeByMaxAbs  carrier_maxabs_rows + carrier_reduce_rows (max, order-free), then
//                 carrier_scale: x / m (`precise`), or x when m = 0.
//
// Descriptor sets come from one pool owned here and reset at the start of every op (ops are
// synchronous), allocated with set layouts identical to those ComputePipeline builds.
#include "accel_vulkan/carrier/carrier_ops.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>

#include "accel_vulkan/buffer.h"
#include "accel_vulkan/carrier/carrier_shader_params.h"
#include "accel_vulkan/command_batch.h"
#include "accel_vulkan/compute_pipeline.h"
#include "accel_vulkan/vk_status.h"
#include "core_ref/carrier/fusion.h"
#include "core_ref/carrier/window_sum.h"
#include "shaders/carrier/carrier_defect_rows.h"
#include "shaders/carrier/carrier_fuse.h"
#include "shaders/carrier/carrier_level_rows.h"
#include "shaders/carrier/carrier_maxabs_rows.h"
#include "shaders/carrier/carrier_pda.h"
#include "shaders/carrier/carrier_reduce_rows.h"
#include "shaders/carrier/carrier_scale.h"
#include "shaders/carrier/carrier_smooth.h"
#include "shaders/carrier/carrier_window_cols.h"
#include "shaders/carrier/carrier_window_rows.h"

namespace dashi::vk {
namespace {

constexpr uint32_t kMaxSetBindings = 4;
constexpr uint32_t kPoolSets = 64;
constexpr uint32_t kTotalsSlots = 4;
// Largest scratch chunk of fusion channels, bytes (also capped by maxStorageBufferRange).
constexpr uint64_t kFuseChunkBudget = uint64_t{64} << 20;

std::string Bytes(uint64_t b) { return std::to_string(b) + " bytes"; }

// One storage-buffer binding: a buffer and its size (the descriptor covers all of it, guard
// region included, clamped to maxStorageBufferRange).
struct Bind {
  VkBuffer buffer;
  uint64_t size;
};
Bind B(const DeviceBuffer& b) { return {b.buffer(), b.size()}; }
Bind B(const HostVisibleBuffer& b) { return {b.buffer(), b.size()}; }

}  // namespace

struct CarrierOps::Impl {
  explicit Impl(VulkanContext& c) : ctx(c) {}
  ~Impl() {
    const VkDevice dev = ctx.device();
    if (pool != VK_NULL_HANDLE) vkDestroyDescriptorPool(dev, pool, nullptr);
    for (VkDescriptorSetLayout& l : layouts) {
      if (l != VK_NULL_HANDLE) vkDestroyDescriptorSetLayout(dev, l, nullptr);
    }
  }

  VulkanContext& ctx;
  Options options;
  uint64_t max_range = 0;  // maxStorageBufferRange
  uint32_t max_groups_y = 0;

  std::unique_ptr<ComputePipeline> pda, window_rows, window_cols, level_rows, defect_rows,
      maxabs_rows, reduce_rows, smooth, scale, fuse;
  VkDescriptorSetLayout layouts[kMaxSetBindings + 1] = {};  // by binding count
  VkDescriptorPool pool = VK_NULL_HANDLE;
  std::unique_ptr<CommandBatch> batch;
  std::optional<HostVisibleBuffer> totals;  // kTotalsSlots CarrierTotals records

  // Scratch buffers, grown on demand (every op waits for its work, so replacing one is safe).
  enum ScratchId {
    kWindowTmp,
    kCarrierTmp,
    kRowPartials,
    kFieldTmp,
    kFuseSum,
    kFuseChunk,
    kNumScratch
  };
  std::optional<DeviceBuffer> scratch[kNumScratch];

  Status Init();
  StatusOr<std::unique_ptr<ComputePipeline>> MakePipeline(std::span<const uint32_t> spirv,
                                                          uint32_t buffers, uint32_t push_bytes,
                                                          uint32_t workgroup);

  // ---- recording helpers ----
  Status BeginOp();
  StatusOr<VkDescriptorSet> Set(std::initializer_list<Bind> buffers);
  // Dispatches ceil(invocations / workgroup) groups (workgroup 0: Options::workgroup_size).
  Status Dispatch(const ComputePipeline& p, VkDescriptorSet set, const void* push,
                  uint32_t push_bytes, uint64_t invocations, uint32_t workgroup = 0);
  void FillGuard(VkBuffer buffer, uint64_t payload_bytes);
  void HostBarrier();
  CarrierTotals& Totals(uint32_t slot) { return totals->as<CarrierTotals>()[slot]; }

  // A scratch buffer of at least `bytes`. Within one op, ask for each id with one size only.
  StatusOr<Bind> Scratch(ScratchId id, uint64_t bytes);
  StatusOr<DeviceBuffer> NewBuffer(uint64_t payload_bytes);

  Status CheckBinding(uint64_t payload_bytes, const std::string& what) const;
  Status CheckCarrier(const DeviceCarrier& c, const char* what) const;
  Status CheckField(const DeviceField& f, const char* what) const;

  // Records rows + columns window passes and the M / K decision: in → out (both n int32).
  Status RecordWindowKernel(Bind in, Bind out, const GridShape& shape, int radius, uint32_t mode,
                            int eta);
  // Records one closure step in → out, using the kCarrierTmp scratch for M's output.
  Status RecordClosureStep(Bind in, Bind out, const GridShape& shape, const ClosureParams& p);
  // Records the level statistics of `cur` (changes counted against `prev`) into totals[slot].
  Status RecordLevelStats(Bind prev, Bind cur, const DeviceField* field, const GridShape& shape,
                          uint32_t slot);
  // Records the reduction of the row partials into totals[slot].
  Status RecordReduce(uint32_t rows, uint32_t flag, uint32_t slot);
  // Fusion over `sources` (buffer, byte offset) channels, each n int32.
  StatusOr<DeviceCarrier> Fuse(const std::vector<std::pair<VkBuffer, uint64_t>>& sources,
                               GridShape shape);
};

Status CarrierOps::Impl::Init() {
  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(ctx.physical_device(), &props);
  max_range = props.limits.maxStorageBufferRange;
  max_groups_y = props.limits.maxComputeWorkGroupCount[1];
  const uint32_t w = options.workgroup_size;
  if (w == 0 || w > props.limits.maxComputeWorkGroupSize[0] ||
      w > props.limits.maxComputeWorkGroupInvocations) {
    return InvalidArgumentError(
        "carrier workgroup size " + std::to_string(w) + " is outside [1, " +
        std::to_string(std::min(props.limits.maxComputeWorkGroupSize[0],
                                props.limits.maxComputeWorkGroupInvocations)) +
        "]");
  }
  if (options.max_groups_x == 0 ||
      options.max_groups_x > props.limits.maxComputeWorkGroupCount[0]) {
    return InvalidArgumentError("carrier max_groups_x " + std::to_string(options.max_groups_x) +
                                " is outside [1, " +
                                std::to_string(props.limits.maxComputeWorkGroupCount[0]) + "]");
  }

  const VkDevice dev = ctx.device();
  for (uint32_t n = 1; n <= kMaxSetBindings; ++n) {
    VkDescriptorSetLayoutBinding bindings[kMaxSetBindings];
    for (uint32_t b = 0; b < n; ++b) {
      bindings[b] = {b, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
    }
    VkDescriptorSetLayoutCreateInfo ci{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    ci.bindingCount = n;
    ci.pBindings = bindings;
    DASHI_VK_RETURN_IF_ERROR(vkCreateDescriptorSetLayout(dev, &ci, nullptr, &layouts[n]),
                             "vkCreateDescriptorSetLayout");
  }
  VkDescriptorPoolSize ps{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, kPoolSets * kMaxSetBindings};
  VkDescriptorPoolCreateInfo pci{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  pci.maxSets = kPoolSets;
  pci.poolSizeCount = 1;
  pci.pPoolSizes = &ps;
  DASHI_VK_RETURN_IF_ERROR(vkCreateDescriptorPool(dev, &pci, nullptr, &pool),
                           "vkCreateDescriptorPool");

  DASHI_ASSIGN_OR_RETURN(pda, MakePipeline(spirv::kCarrierPda, 2, sizeof(CarrierPdaParams), w));
  DASHI_ASSIGN_OR_RETURN(
      window_rows, MakePipeline(spirv::kCarrierWindowRows, 2, sizeof(CarrierWindowParams), w));
  DASHI_ASSIGN_OR_RETURN(
      window_cols, MakePipeline(spirv::kCarrierWindowCols, 3, sizeof(CarrierWindowParams), w));
  DASHI_ASSIGN_OR_RETURN(level_rows,
                         MakePipeline(spirv::kCarrierLevelRows, 4, sizeof(CarrierRowParams), w));
  DASHI_ASSIGN_OR_RETURN(defect_rows,
                         MakePipeline(spirv::kCarrierDefectRows, 2, sizeof(CarrierRowParams), w));
  DASHI_ASSIGN_OR_RETURN(maxabs_rows,
                         MakePipeline(spirv::kCarrierMaxabsRows, 2, sizeof(CarrierRowParams), w));
  // The row reduction is one invocation by design (the canonical order), so one per group.
  DASHI_ASSIGN_OR_RETURN(
      reduce_rows, MakePipeline(spirv::kCarrierReduceRows, 2, sizeof(CarrierReduceParams), 1));
  DASHI_ASSIGN_OR_RETURN(smooth,
                         MakePipeline(spirv::kCarrierSmooth, 2, sizeof(CarrierSmoothParams), w));
  DASHI_ASSIGN_OR_RETURN(scale,
                         MakePipeline(spirv::kCarrierScale, 3, sizeof(CarrierScaleParams), w));
  DASHI_ASSIGN_OR_RETURN(fuse, MakePipeline(spirv::kCarrierFuse, 4, sizeof(CarrierFuseParams), w));
  DASHI_ASSIGN_OR_RETURN(batch, CommandBatch::Create(ctx, 0));
  DASHI_ASSIGN_OR_RETURN(HostVisibleBuffer t,
                         HostVisibleBuffer::Create(ctx, kTotalsSlots * sizeof(CarrierTotals)));
  totals.emplace(std::move(t));
  std::memset(totals->data(), 0, kTotalsSlots * sizeof(CarrierTotals));
  return OkStatus();
}

StatusOr<std::unique_ptr<ComputePipeline>> CarrierOps::Impl::MakePipeline(
    std::span<const uint32_t> spirv, uint32_t buffers, uint32_t push_bytes, uint32_t workgroup) {
  ComputePipelineSpec spec;
  spec.spirv = spirv;
  spec.num_buffers = buffers;
  spec.push_constant_bytes = push_bytes;
  spec.specialization = {workgroup};
  spec.max_binding_sets = 1;  // sets come from this Impl's pool (see Set())
  return ComputePipeline::Create(ctx, spec);
}

Status CarrierOps::Impl::BeginOp() {
  DASHI_VK_RETURN_IF_ERROR(vkResetDescriptorPool(ctx.device(), pool, 0), "vkResetDescriptorPool");
  return batch->Begin();
}

StatusOr<VkDescriptorSet> CarrierOps::Impl::Set(std::initializer_list<Bind> buffers) {
  const uint32_t n = static_cast<uint32_t>(buffers.size());
  if (n == 0 || n > kMaxSetBindings) return InternalError("bad binding count");
  VkDescriptorSet set = VK_NULL_HANDLE;
  VkDescriptorSetAllocateInfo ai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  ai.descriptorPool = pool;
  ai.descriptorSetCount = 1;
  ai.pSetLayouts = &layouts[n];
  DASHI_VK_RETURN_IF_ERROR(vkAllocateDescriptorSets(ctx.device(), &ai, &set),
                           "vkAllocateDescriptorSets (carrier ops)");
  VkDescriptorBufferInfo infos[kMaxSetBindings];
  VkWriteDescriptorSet writes[kMaxSetBindings];
  uint32_t b = 0;
  for (const Bind& buf : buffers) {
    // The whole buffer (payload and guard region, so an out-of-bounds write lands in the guard),
    // as far as maxStorageBufferRange allows; the callers checked that every payload fits.
    infos[b] = {buf.buffer, 0, std::min(buf.size, max_range)};
    writes[b] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    writes[b].dstSet = set;
    writes[b].dstBinding = b;
    writes[b].descriptorCount = 1;
    writes[b].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[b].pBufferInfo = &infos[b];
    ++b;
  }
  vkUpdateDescriptorSets(ctx.device(), n, writes, 0, nullptr);
  return set;
}

Status CarrierOps::Impl::Dispatch(const ComputePipeline& p, VkDescriptorSet set, const void* push,
                                  uint32_t push_bytes, uint64_t invocations, uint32_t workgroup) {
  const uint64_t w = workgroup != 0 ? workgroup : options.workgroup_size;
  const uint64_t groups = std::max<uint64_t>(1, (invocations + w - 1) / w);
  const uint64_t gx = std::min<uint64_t>(groups, options.max_groups_x);
  const uint64_t gy = (groups + gx - 1) / gx;
  if (gy > max_groups_y) {
    return ResourceExhaustedError(
        "a dispatch of " + std::to_string(invocations) + " invocations needs " +
        std::to_string(gy) + " workgroup rows; the device allows " + std::to_string(max_groups_y));
  }
  batch->Dispatch(p, set, push, push_bytes, static_cast<uint32_t>(gx), static_cast<uint32_t>(gy));
  return OkStatus();
}

void CarrierOps::Impl::FillGuard(VkBuffer buffer, uint64_t payload_bytes) {
  vkCmdFillBuffer(batch->command_buffer(), buffer, payload_bytes, kGuardBytes, kGuardWord);
}

void CarrierOps::Impl::HostBarrier() {
  VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  b.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  b.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  vkCmdPipelineBarrier(batch->command_buffer(), VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                       VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &b, 0, nullptr, 0, nullptr);
}

StatusOr<Bind> CarrierOps::Impl::Scratch(ScratchId id, uint64_t bytes) {
  bytes = std::max<uint64_t>(bytes, 256);
  std::optional<DeviceBuffer>& s = scratch[id];
  if (!s.has_value() || s->size() < bytes) {
    s.reset();
    DASHI_ASSIGN_OR_RETURN(DeviceBuffer b, DeviceBuffer::Create(ctx, bytes));
    s.emplace(std::move(b));
  }
  return B(*s);
}

StatusOr<DeviceBuffer> CarrierOps::Impl::NewBuffer(uint64_t payload_bytes) {
  return DeviceBuffer::Create(ctx, payload_bytes + kGuardBytes);
}

Status CarrierOps::Impl::CheckBinding(uint64_t payload_bytes, const std::string& what) const {
  if (payload_bytes > max_range) {
    return ResourceExhaustedError(what + " needs " + Bytes(payload_bytes) +
                                  " in one storage buffer; the device's maxStorageBufferRange is " +
                                  Bytes(max_range));
  }
  return OkStatus();
}

Status CarrierOps::Impl::CheckCarrier(const DeviceCarrier& c, const char* what) const {
  DASHI_RETURN_IF_ERROR(ValidateGridShape(c.shape));
  if (c.cells.buffer() == VK_NULL_HANDLE) {
    return InvalidArgumentError(std::string(what) + " has no device buffer");
  }
  const uint64_t need = static_cast<uint64_t>(c.shape.size()) * sizeof(int32_t);
  if (c.cells.size() < need) {
    return InvalidArgumentError(std::string(what) + " buffer holds " + Bytes(c.cells.size()) +
                                " but shape " + ToString(c.shape) + " needs " + Bytes(need));
  }
  return CheckBinding(need, what);
}

Status CarrierOps::Impl::CheckField(const DeviceField& f, const char* what) const {
  DASHI_RETURN_IF_ERROR(ValidateGridShape(f.shape));
  if (f.values.buffer() == VK_NULL_HANDLE) {
    return InvalidArgumentError(std::string(what) + " has no device buffer");
  }
  const uint64_t need = static_cast<uint64_t>(f.shape.size()) * sizeof(double);
  if (f.values.size() < need) {
    return InvalidArgumentError(std::string(what) + " buffer holds " + Bytes(f.values.size()) +
                                " but shape " + ToString(f.shape) + " needs " + Bytes(need));
  }
  return CheckBinding(need, what);
}

Status CarrierOps::Impl::RecordWindowKernel(Bind in, Bind out, const GridShape& shape, int radius,
                                            uint32_t mode, int eta) {
  const uint64_t n = static_cast<uint64_t>(shape.size());
  DASHI_RETURN_IF_ERROR(CheckBinding(n * 8, "the window-sum scratch"));
  DASHI_ASSIGN_OR_RETURN(Bind tmp, Scratch(kWindowTmp, n * 8));
  DASHI_ASSIGN_OR_RETURN(VkDescriptorSet rows_set, Set({in, tmp}));
  DASHI_ASSIGN_OR_RETURN(VkDescriptorSet cols_set, Set({in, tmp, out}));
  const CarrierWindowParams wp{static_cast<uint32_t>(shape.rows),
                               static_cast<uint32_t>(shape.cols),
                               static_cast<uint32_t>(radius),
                               mode,
                               eta,
                               0};
  DASHI_RETURN_IF_ERROR(Dispatch(*window_rows, rows_set, &wp, sizeof(wp), n));
  batch->Barrier();
  DASHI_RETURN_IF_ERROR(Dispatch(*window_cols, cols_set, &wp, sizeof(wp), n));
  batch->Barrier();
  return OkStatus();
}

Status CarrierOps::Impl::RecordClosureStep(Bind in, Bind out, const GridShape& shape,
                                           const ClosureParams& p) {
  DASHI_ASSIGN_OR_RETURN(Bind m, Scratch(kCarrierTmp, static_cast<uint64_t>(shape.size()) * 4));
  DASHI_RETURN_IF_ERROR(
      RecordWindowKernel(in, m, shape, p.majority.radius, kWindowModeMajority, p.majority.eta));
  return RecordWindowKernel(m, out, shape, p.annihilation.radius, kWindowModeAnnihilation, 0);
}

Status CarrierOps::Impl::RecordReduce(uint32_t rows, uint32_t flag, uint32_t slot) {
  DASHI_ASSIGN_OR_RETURN(Bind partials, Scratch(kRowPartials, uint64_t{rows} * 32));
  DASHI_ASSIGN_OR_RETURN(VkDescriptorSet set, Set({partials, B(*totals)}));
  const CarrierReduceParams rp{rows, flag, slot, 0};
  DASHI_RETURN_IF_ERROR(Dispatch(*reduce_rows, set, &rp, sizeof(rp), 1, 1));
  batch->Barrier();
  return OkStatus();
}

Status CarrierOps::Impl::RecordLevelStats(Bind prev, Bind cur, const DeviceField* field,
                                          const GridShape& shape, uint32_t slot) {
  const uint32_t rows = static_cast<uint32_t>(shape.rows);
  DASHI_RETURN_IF_ERROR(CheckBinding(uint64_t{rows} * 32, "the row-partials scratch"));
  DASHI_ASSIGN_OR_RETURN(Bind partials, Scratch(kRowPartials, uint64_t{rows} * 32));
  // Without a field, `cur` stands in for the unread field binding.
  const Bind f = field != nullptr ? B(field->values) : cur;
  DASHI_ASSIGN_OR_RETURN(VkDescriptorSet set, Set({prev, cur, f, partials}));
  const uint32_t has_field = field != nullptr ? 1 : 0;
  const CarrierRowParams p{rows, static_cast<uint32_t>(shape.cols), has_field, 0};
  DASHI_RETURN_IF_ERROR(Dispatch(*level_rows, set, &p, sizeof(p), rows));
  batch->Barrier();
  return RecordReduce(rows, has_field, slot);
}

StatusOr<DeviceCarrier> CarrierOps::Impl::Fuse(
    const std::vector<std::pair<VkBuffer, uint64_t>>& sources, GridShape shape) {
  const uint64_t n = static_cast<uint64_t>(shape.size());
  const uint64_t k = sources.size();
  const uint64_t channel_bytes = n * 4;
  DASHI_RETURN_IF_ERROR(CheckBinding(channel_bytes, "a fusion channel"));
  const uint64_t budget = std::min<uint64_t>(max_range, kFuseChunkBudget);
  const uint64_t chunk = std::max<uint64_t>(1, std::min<uint64_t>(k, budget / channel_bytes));
  DASHI_ASSIGN_OR_RETURN(DeviceBuffer out, NewBuffer(channel_bytes));
  DASHI_ASSIGN_OR_RETURN(Bind sum, Scratch(kFuseSum, channel_bytes));
  DASHI_ASSIGN_OR_RETURN(Bind staging, Scratch(kFuseChunk, chunk * channel_bytes));
  DASHI_RETURN_IF_ERROR(BeginOp());
  Totals(0) = CarrierTotals{};
  DASHI_ASSIGN_OR_RETURN(VkDescriptorSet set, Set({staging, sum, B(out), B(*totals)}));
  FillGuard(out.buffer(), channel_bytes);
  for (uint64_t c0 = 0; c0 < k; c0 += chunk) {
    const uint64_t m = std::min(chunk, k - c0);
    for (uint64_t c = 0; c < m; ++c) {
      batch->CopyBuffer(sources[c0 + c].first, staging.buffer, channel_bytes,
                        sources[c0 + c].second, c * channel_bytes);
    }
    batch->Barrier();
    const CarrierFuseParams fp{static_cast<uint32_t>(n),
                               static_cast<uint32_t>(m),
                               c0 == 0 ? 1u : 0u,
                               c0 + m == k ? 1u : 0u,
                               0,
                               0};
    DASHI_RETURN_IF_ERROR(Dispatch(*fuse, set, &fp, sizeof(fp), n));
    batch->Barrier();
  }
  HostBarrier();
  DASHI_RETURN_IF_ERROR(batch->SubmitAndWait());
  if (Totals(0).flags & kTotalsFlagBadFusionValue) {
    return InvalidArgumentError("fusion input holds a value outside {-1, 0, +1}");
  }
  return DeviceCarrier{shape, std::move(out)};
}

// ---------------------------------------------------------------------------------------------

CarrierOps::CarrierOps(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CarrierOps::~CarrierOps() = default;

StatusOr<std::unique_ptr<CarrierOps>> CarrierOps::Create(VulkanContext& ctx) {
  return Create(ctx, Options{});
}

StatusOr<std::unique_ptr<CarrierOps>> CarrierOps::Create(VulkanContext& ctx,
                                                         const Options& options) {
  if (!ctx.info().shader_float64 || !ctx.info().shader_int64) {
    return UnimplementedError("carrier ops need shaderFloat64 and shaderInt64; device '" +
                              ctx.info().name + "' lacks them");
  }
  auto impl = std::make_unique<Impl>(ctx);
  impl->options = options;
  DASHI_RETURN_IF_ERROR(impl->Init());
  return std::unique_ptr<CarrierOps>(new CarrierOps(std::move(impl)));
}

Status CarrierOps::CheckGuards(const DeviceCarrier& c) {
  DASHI_RETURN_IF_ERROR(impl_->CheckCarrier(c, "carrier"));
  return CheckGuardWords(impl_->ctx, c.cells, static_cast<uint64_t>(c.shape.size()) * 4,
                         kGuardBytes, kGuardWord, ToString(c.shape) + " carrier");
}

Status CarrierOps::CheckGuards(const DeviceField& f) {
  DASHI_RETURN_IF_ERROR(impl_->CheckField(f, "field"));
  return CheckGuardWords(impl_->ctx, f.values, static_cast<uint64_t>(f.shape.size()) * 8,
                         kGuardBytes, kGuardWord, ToString(f.shape) + " field");
}

StatusOr<DeviceCarrier> CarrierOps::Upload(const Carrier& c) {
  const uint64_t n = static_cast<uint64_t>(c.size());
  DASHI_RETURN_IF_ERROR(impl_->CheckBinding(n * 4, "carrier " + ToString(c.shape())));
  std::vector<int32_t> words(n + kGuardBytes / 4);
  const auto v = c.values();
  for (uint64_t k = 0; k < n; ++k) words[k] = v[k];
  for (uint64_t k = n; k < words.size(); ++k) words[k] = static_cast<int32_t>(kGuardWord);
  DASHI_ASSIGN_OR_RETURN(DeviceBuffer b, impl_->NewBuffer(n * 4));
  DASHI_RETURN_IF_ERROR(b.UploadValues<int32_t>(impl_->ctx, words));
  return DeviceCarrier{c.shape(), std::move(b)};
}

StatusOr<Carrier> CarrierOps::Download(const DeviceCarrier& c) {
  DASHI_RETURN_IF_ERROR(impl_->CheckCarrier(c, "carrier"));
  const size_t n = static_cast<size_t>(c.shape.size());
  DASHI_ASSIGN_OR_RETURN(std::vector<int32_t> words,
                         c.cells.DownloadValues<int32_t>(impl_->ctx, n));
  std::vector<int8_t> v(n);
  for (size_t k = 0; k < n; ++k) {
    if (words[k] < -1 || words[k] > 1) {
      return InvalidArgumentError("device carrier value " + std::to_string(words[k]) +
                                  " at index " + std::to_string(k) + " is not -1, 0 or +1");
    }
    v[k] = static_cast<int8_t>(words[k]);
  }
  return Carrier::FromValues(c.shape, std::move(v));
}

StatusOr<DeviceField> CarrierOps::Upload(const RealField& f) {
  const uint64_t n = static_cast<uint64_t>(f.size());
  DASHI_RETURN_IF_ERROR(impl_->CheckBinding(n * 8, "field " + ToString(f.shape())));
  std::vector<double> words(f.values().begin(), f.values().end());
  const uint64_t guard64 = (uint64_t{kGuardWord} << 32) | kGuardWord;
  words.resize(n + kGuardBytes / 8, std::bit_cast<double>(guard64));
  DASHI_ASSIGN_OR_RETURN(DeviceBuffer b, impl_->NewBuffer(n * 8));
  DASHI_RETURN_IF_ERROR(b.UploadValues<double>(impl_->ctx, words));
  return DeviceField{f.shape(), std::move(b)};
}

StatusOr<RealField> CarrierOps::Download(const DeviceField& f) {
  DASHI_RETURN_IF_ERROR(impl_->CheckField(f, "field"));
  DASHI_ASSIGN_OR_RETURN(std::vector<double> v,
                         f.values.DownloadValues<double>(impl_->ctx, f.shape.size()));
  return RealField::FromValues(f.shape, std::move(v));
}

StatusOr<DeviceCarrier> CarrierOps::PdaThreshold(const DeviceField& f,
                                                 const PdaThresholdParams& p) {
  DASHI_RETURN_IF_ERROR(ValidatePdaThresholdParams(p));
  DASHI_RETURN_IF_ERROR(impl_->CheckField(f, "PDA threshold input"));
  Impl& m = *impl_;
  const uint64_t n = static_cast<uint64_t>(f.shape.size());
  DASHI_RETURN_IF_ERROR(m.CheckBinding(n * 4, "carrier " + ToString(f.shape)));
  DASHI_ASSIGN_OR_RETURN(DeviceBuffer out, m.NewBuffer(n * 4));
  DASHI_RETURN_IF_ERROR(m.BeginOp());
  DASHI_ASSIGN_OR_RETURN(VkDescriptorSet set, m.Set({B(f.values), B(out)}));
  m.FillGuard(out.buffer(), n * 4);
  m.batch->Barrier();
  const CarrierPdaParams pp{p.tau, static_cast<uint32_t>(n), 0};
  DASHI_RETURN_IF_ERROR(m.Dispatch(*m.pda, set, &pp, sizeof(pp), n));
  DASHI_RETURN_IF_ERROR(m.batch->SubmitAndWait());
  return DeviceCarrier{f.shape, std::move(out)};
}

StatusOr<DeviceCarrier> CarrierOps::Annihilate(const DeviceCarrier& s,
                                               const AnnihilationParams& p) {
  DASHI_RETURN_IF_ERROR(ValidateAnnihilationParams(p));
  DASHI_RETURN_IF_ERROR(impl_->CheckCarrier(s, "annihilation input"));
  Impl& m = *impl_;
  const uint64_t n = static_cast<uint64_t>(s.shape.size());
  DASHI_ASSIGN_OR_RETURN(DeviceBuffer out, m.NewBuffer(n * 4));
  DASHI_RETURN_IF_ERROR(m.BeginOp());
  m.FillGuard(out.buffer(), n * 4);
  m.batch->Barrier();
  DASHI_RETURN_IF_ERROR(
      m.RecordWindowKernel(B(s.cells), B(out), s.shape, p.radius, kWindowModeAnnihilation, 0));
  DASHI_RETURN_IF_ERROR(m.batch->SubmitAndWait());
  return DeviceCarrier{s.shape, std::move(out)};
}

StatusOr<DeviceCarrier> CarrierOps::Majority(const DeviceCarrier& s, const MajorityParams& p) {
  DASHI_RETURN_IF_ERROR(ValidateMajorityParams(p));
  DASHI_RETURN_IF_ERROR(impl_->CheckCarrier(s, "majority input"));
  Impl& m = *impl_;
  const uint64_t n = static_cast<uint64_t>(s.shape.size());
  DASHI_ASSIGN_OR_RETURN(DeviceBuffer out, m.NewBuffer(n * 4));
  DASHI_RETURN_IF_ERROR(m.BeginOp());
  m.FillGuard(out.buffer(), n * 4);
  m.batch->Barrier();
  DASHI_RETURN_IF_ERROR(
      m.RecordWindowKernel(B(s.cells), B(out), s.shape, p.radius, kWindowModeMajority, p.eta));
  DASHI_RETURN_IF_ERROR(m.batch->SubmitAndWait());
  return DeviceCarrier{s.shape, std::move(out)};
}

StatusOr<DeviceCarrier> CarrierOps::ClosureStep(const DeviceCarrier& s, const ClosureParams& p) {
  // As core_ref ClosureStep: the two kernels' parameters are checked, the iteration cap is not.
  DASHI_RETURN_IF_ERROR(ValidateMajorityParams(p.majority));
  DASHI_RETURN_IF_ERROR(ValidateAnnihilationParams(p.annihilation));
  DASHI_RETURN_IF_ERROR(impl_->CheckCarrier(s, "closure input"));
  Impl& m = *impl_;
  const uint64_t n = static_cast<uint64_t>(s.shape.size());
  DASHI_ASSIGN_OR_RETURN(DeviceBuffer out, m.NewBuffer(n * 4));
  DASHI_RETURN_IF_ERROR(m.BeginOp());
  m.FillGuard(out.buffer(), n * 4);
  m.batch->Barrier();
  DASHI_RETURN_IF_ERROR(m.RecordClosureStep(B(s.cells), B(out), s.shape, p));
  DASHI_RETURN_IF_ERROR(m.batch->SubmitAndWait());
  return DeviceCarrier{s.shape, std::move(out)};
}

StatusOr<CarrierOps::DeviceClosure> CarrierOps::Closure(const DeviceCarrier& s0,
                                                        const DeviceField* field,
                                                        const ClosureParams& p) {
  DASHI_RETURN_IF_ERROR(ValidateClosureParams(p));
  DASHI_RETURN_IF_ERROR(impl_->CheckCarrier(s0, "closure input"));
  if (field != nullptr) {
    DASHI_RETURN_IF_ERROR(impl_->CheckField(*field, "closure field"));
    if (!(field->shape == s0.shape)) {
      return InvalidArgumentError("closure field shape " + ToString(field->shape) +
                                  " differs from carrier shape " + ToString(s0.shape));
    }
  }
  Impl& m = *impl_;
  const GridShape shape = s0.shape;
  const uint64_t n = static_cast<uint64_t>(shape.size());
  DASHI_ASSIGN_OR_RETURN(DeviceBuffer cur, m.NewBuffer(n * 4));
  DASHI_ASSIGN_OR_RETURN(DeviceBuffer next, m.NewBuffer(n * 4));

  // Level 0: s_0 copied into `cur` (guards filled on both iterates), and its statistics.
  DASHI_RETURN_IF_ERROR(m.BeginOp());
  m.FillGuard(cur.buffer(), n * 4);
  m.FillGuard(next.buffer(), n * 4);
  m.batch->CopyBuffer(s0.cells.buffer(), cur.buffer(), n * 4);
  m.batch->Barrier();
  DASHI_RETURN_IF_ERROR(m.RecordLevelStats(B(cur), B(cur), field, shape, 0));
  m.HostBarrier();
  DASHI_RETURN_IF_ERROR(m.batch->SubmitAndWait());
  int depth = 0;
  bool reached_fixed_point = false;
  std::vector<ClosureLevelStats> levels;
  levels.push_back({static_cast<int64_t>(m.Totals(0).c0), m.Totals(0).mean});

  // One step cur → next plus the statistics of `next` and the number of cells it changed.
  struct StepResult {
    uint64_t changed;
    ClosureLevelStats stats;
  };
  auto step = [&]() -> StatusOr<StepResult> {
    DASHI_RETURN_IF_ERROR(m.BeginOp());
    DASHI_RETURN_IF_ERROR(m.RecordClosureStep(B(cur), B(next), shape, p));
    DASHI_RETURN_IF_ERROR(m.RecordLevelStats(B(cur), B(next), field, shape, 0));
    m.HostBarrier();
    DASHI_RETURN_IF_ERROR(m.batch->SubmitAndWait());
    const CarrierTotals& t = m.Totals(0);
    return StepResult{t.c1, {static_cast<int64_t>(t.c0), t.mean}};
  };

  bool done = false;
  for (int it = 0; it < p.max_iterations; ++it) {
    DASHI_ASSIGN_OR_RETURN(StepResult r, step());
    if (r.changed == 0) {
      reached_fixed_point = true;
      done = true;
      break;
    }
    std::swap(cur, next);
    ++depth;
    levels.push_back(r.stats);
  }
  if (!done) {
    // The cap was reached: s* is a fixed point only if one more step leaves it unchanged.
    DASHI_ASSIGN_OR_RETURN(StepResult r, step());
    reached_fixed_point = r.changed == 0;
  }
  return DeviceClosure{DeviceCarrier{shape, std::move(cur)}, depth, reached_fixed_point,
                       std::move(levels)};
}

StatusOr<DeviceCarrier> CarrierOps::FuseMajority(std::span<const DeviceCarrier* const> channels) {
  const int64_t k = static_cast<int64_t>(channels.size());
  if (k < 1 || k > kMaxFusionChannels) {
    return InvalidArgumentError("fusion channel count " + std::to_string(k) + " is outside [1, " +
                                std::to_string(kMaxFusionChannels) + "]");
  }
  std::vector<std::pair<VkBuffer, uint64_t>> sources;
  sources.reserve(channels.size());
  for (int64_t c = 0; c < k; ++c) {
    const DeviceCarrier* ch = channels[c];
    if (ch == nullptr) {
      return InvalidArgumentError("fusion channel " + std::to_string(c) + " is null");
    }
    DASHI_RETURN_IF_ERROR(impl_->CheckCarrier(*ch, "fusion channel"));
    if (!(ch->shape == channels[0]->shape)) {
      return InvalidArgumentError("fusion channel " + std::to_string(c) + " has shape " +
                                  ToString(ch->shape) + " but channel 0 has shape " +
                                  ToString(channels[0]->shape));
    }
    sources.emplace_back(ch->cells.buffer(), 0);
  }
  return impl_->Fuse(sources, channels[0]->shape);
}

StatusOr<DeviceCarrier> CarrierOps::FuseMajorityChannelMajor(const DeviceBuffer& channels,
                                                             int64_t k, GridShape shape) {
  DASHI_RETURN_IF_ERROR(ValidateGridShape(shape));
  if (k < 1 || k > kMaxFusionChannels) {
    return InvalidArgumentError("fusion channel count " + std::to_string(k) + " is outside [1, " +
                                std::to_string(kMaxFusionChannels) + "]");
  }
  if (channels.buffer() == VK_NULL_HANDLE) {
    return InvalidArgumentError("fusion input has no device buffer");
  }
  const uint64_t channel_bytes = static_cast<uint64_t>(shape.size()) * 4;
  const uint64_t need = static_cast<uint64_t>(k) * channel_bytes;
  if (channels.size() < need) {
    return InvalidArgumentError("fusion input buffer holds " + Bytes(channels.size()) + " but " +
                                std::to_string(k) + " channels of shape " + ToString(shape) +
                                " need " + Bytes(need));
  }
  std::vector<std::pair<VkBuffer, uint64_t>> sources;
  sources.reserve(static_cast<size_t>(k));
  for (int64_t c = 0; c < k; ++c) sources.emplace_back(channels.buffer(), c * channel_bytes);
  return impl_->Fuse(sources, shape);
}

StatusOr<int64_t> CarrierOps::Defect(const DeviceCarrier& s, Neighbourhood nbhd) {
  if (nbhd != Neighbourhood::kFour && nbhd != Neighbourhood::kEight) {
    return InvalidArgumentError("defect neighbourhood " + std::to_string(static_cast<int>(nbhd)) +
                                " is neither 4 nor 8");
  }
  DASHI_RETURN_IF_ERROR(impl_->CheckCarrier(s, "defect input"));
  Impl& m = *impl_;
  const uint32_t rows = static_cast<uint32_t>(s.shape.rows);
  DASHI_RETURN_IF_ERROR(m.CheckBinding(uint64_t{rows} * 32, "the row-partials scratch"));
  DASHI_ASSIGN_OR_RETURN(Bind partials, m.Scratch(Impl::kRowPartials, uint64_t{rows} * 32));
  DASHI_RETURN_IF_ERROR(m.BeginOp());
  DASHI_ASSIGN_OR_RETURN(VkDescriptorSet set, m.Set({B(s.cells), partials}));
  const CarrierRowParams rp{rows, static_cast<uint32_t>(s.shape.cols),
                            nbhd == Neighbourhood::kEight ? 1u : 0u, 0};
  DASHI_RETURN_IF_ERROR(m.Dispatch(*m.defect_rows, set, &rp, sizeof(rp), rows));
  m.batch->Barrier();
  DASHI_RETURN_IF_ERROR(m.RecordReduce(rows, 0, 0));
  m.HostBarrier();
  DASHI_RETURN_IF_ERROR(m.batch->SubmitAndWait());
  return static_cast<int64_t>(m.Totals(0).c0);
}

StatusOr<DeviceField> CarrierOps::Smooth(const DeviceField& f, const SmoothingParams& p) {
  DASHI_RETURN_IF_ERROR(ValidateSmoothingParams(p));
  if (p.kernel != SmoothingKernel::kBox && p.kernel != SmoothingKernel::kTriangle) {
    return InvalidArgumentError("smoothing kernel " + std::to_string(static_cast<int>(p.kernel)) +
                                " is neither box nor triangle");
  }
  DASHI_RETURN_IF_ERROR(impl_->CheckField(f, "smoothing input"));
  Impl& m = *impl_;
  const uint64_t n = static_cast<uint64_t>(f.shape.size());
  DASHI_RETURN_IF_ERROR(m.CheckBinding(n * 8, "field " + ToString(f.shape)));
  const int r = p.radius;
  const bool tri = p.kernel == SmoothingKernel::kTriangle;
  // Exactly core_ref's weight total.
  const double total = tri ? static_cast<double>(r + 1) * (r + 1) : 2.0 * r + 1.0;
  DASHI_ASSIGN_OR_RETURN(DeviceBuffer out, m.NewBuffer(n * 8));
  DASHI_ASSIGN_OR_RETURN(Bind tmp, m.Scratch(Impl::kFieldTmp, n * 8));
  DASHI_RETURN_IF_ERROR(m.BeginOp());
  DASHI_ASSIGN_OR_RETURN(VkDescriptorSet rows_set, m.Set({B(f.values), tmp}));
  DASHI_ASSIGN_OR_RETURN(VkDescriptorSet cols_set, m.Set({tmp, B(out)}));
  m.FillGuard(out.buffer(), n * 8);
  m.batch->Barrier();
  CarrierSmoothParams sp{total,
                         static_cast<uint32_t>(f.shape.rows),
                         static_cast<uint32_t>(f.shape.cols),
                         static_cast<uint32_t>(r),
                         tri ? 1u : 0u,
                         0,
                         0};
  DASHI_RETURN_IF_ERROR(m.Dispatch(*m.smooth, rows_set, &sp, sizeof(sp), n));
  m.batch->Barrier();
  sp.axis = 1;
  DASHI_RETURN_IF_ERROR(m.Dispatch(*m.smooth, cols_set, &sp, sizeof(sp), n));
  DASHI_RETURN_IF_ERROR(m.batch->SubmitAndWait());
  return DeviceField{f.shape, std::move(out)};
}

StatusOr<DeviceField> CarrierOps::NormalizeByMaxAbs(const DeviceField& f) {
  DASHI_RETURN_IF_ERROR(impl_->CheckField(f, "normalisation input"));
  Impl& m = *impl_;
  const uint64_t n = static_cast<uint64_t>(f.shape.size());
  DASHI_RETURN_IF_ERROR(m.CheckBinding(n * 8, "field " + ToString(f.shape)));
  const uint32_t rows = static_cast<uint32_t>(f.shape.rows);
  DASHI_RETURN_IF_ERROR(m.CheckBinding(uint64_t{rows} * 32, "the row-partials scratch"));
  DASHI_ASSIGN_OR_RETURN(DeviceBuffer out, m.NewBuffer(n * 8));
  DASHI_ASSIGN_OR_RETURN(Bind partials, m.Scratch(Impl::kRowPartials, uint64_t{rows} * 32));
  DASHI_RETURN_IF_ERROR(m.BeginOp());
  DASHI_ASSIGN_OR_RETURN(VkDescriptorSet rows_set, m.Set({B(f.values), partials}));
  DASHI_ASSIGN_OR_RETURN(VkDescriptorSet scale_set, m.Set({B(f.values), B(*m.totals), B(out)}));
  m.FillGuard(out.buffer(), n * 8);
  m.batch->Barrier();
  const CarrierRowParams rp{rows, static_cast<uint32_t>(f.shape.cols), 0, 0};
  DASHI_RETURN_IF_ERROR(m.Dispatch(*m.maxabs_rows, rows_set, &rp, sizeof(rp), rows));
  m.batch->Barrier();
  DASHI_RETURN_IF_ERROR(m.RecordReduce(rows, 0, 0));
  const CarrierScaleParams sp{static_cast<uint32_t>(n), 0};
  DASHI_RETURN_IF_ERROR(m.Dispatch(*m.scale, scale_set, &sp, sizeof(sp), n));
  DASHI_RETURN_IF_ERROR(m.batch->SubmitAndWait());
  return DeviceField{f.shape, std::move(out)};
}

}  // namespace dashi::vk
