// RunDecodeProbe (declared in vulkan_decoder.h): one dispatch of a probe shader over its inputs,
// the output followed by guard words.
#include <memory>

#include "accel_vulkan/command_batch.h"
#include "accel_vulkan/compute_pipeline.h"
#include "shaders/decode/decode_params.h"
#include "accel_vulkan/decode/vulkan_decoder.h"
#include "accel_vulkan/device_buffer.h"
#include "accel_vulkan/guard_words.h"
#include "shaders/decode/counter_hash_test.h"
#include "accel_vulkan/device_caps/device_caps.h"
#include "shaders/decode/sincospi_test.h"

namespace dashi::vk {

StatusOr<DecodeProbeResult> RunDecodeProbe(VulkanContext& ctx, DecodeProbe probe,
                                           std::span<const std::byte> input, uint32_t count) {
  constexpr uint32_t kWorkgroup = 64;
  // The sin/cos probe in the float-controls variant the device supports (as the rollout kernels).
  const uint32_t variant = SupportedFloatControlsVariant(QueryFloat64Controls(ctx));
  const std::span<const uint32_t> spirv =
      probe == DecodeProbe::kCounterHash
          ? std::span<const uint32_t>(spirv::kCounterHashTest)
          : std::span<const uint32_t>(spirv::kSinCosPiTestVariants[variant]);
  const uint64_t out_bytes = uint64_t{count} * 16;
  DASHI_ASSIGN_OR_RETURN(
      std::unique_ptr<ComputePipeline> pipe,
      ComputePipeline::Create(ctx, {spirv, 2, sizeof(CountParams), {kWorkgroup}, 1}));
  DASHI_ASSIGN_OR_RETURN(DeviceBuffer in, DeviceBuffer::Create(ctx, input.size()));
  DASHI_RETURN_IF_ERROR(in.Upload(ctx, input));
  DASHI_ASSIGN_OR_RETURN(DeviceBuffer out, CreateGuardedBuffer(ctx, out_bytes));
  const VkBuffer bufs[] = {in.buffer(), out.buffer()};
  DASHI_ASSIGN_OR_RETURN(VkDescriptorSet set, pipe->Bindings(bufs));
  DASHI_ASSIGN_OR_RETURN(std::unique_ptr<CommandBatch> batch, CommandBatch::Create(ctx));
  DASHI_RETURN_IF_ERROR(batch->Begin());
  const CountParams cp{count};
  batch->Dispatch(*pipe, set, &cp, sizeof(cp), (count + kWorkgroup - 1) / kWorkgroup);
  DASHI_RETURN_IF_ERROR(batch->SubmitAndWait());
  DecodeProbeResult result;
  DASHI_ASSIGN_OR_RETURN(result.output, out.DownloadValues<uint8_t>(ctx, out_bytes));
  DASHI_ASSIGN_OR_RETURN(result.damaged_guard_words,
                         CountCorruptedGuardWords(ctx, out, out_bytes, "decode probe output"));
  return result;
}

}  // namespace dashi::vk
