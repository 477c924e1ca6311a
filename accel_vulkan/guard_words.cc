#include "accel_vulkan/guard_words.h"

#include <memory>
#include <utility>
#include <vector>

namespace dashi::vk {
namespace {

Status CheckRoom(const DeviceBuffer& buffer, uint64_t payload_bytes, const std::string& what) {
  if (buffer.size() < payload_bytes + kGuardBytes) {
    return FailedPreconditionError(what + " buffer has no guard region");
  }
  return OkStatus();
}

// The guard words as they are now on the device.
StatusOr<std::vector<uint32_t>> ReadGuardWords(const VulkanContext& ctx,
                                               const DeviceBuffer& buffer, uint64_t payload_bytes,
                                               const std::string& what) {
  DASHI_RETURN_IF_ERROR(CheckRoom(buffer, payload_bytes, what));
  return buffer.DownloadValues<uint32_t>(ctx, kGuardBytes / 4, payload_bytes);
}

}  // namespace

StatusOr<DeviceBuffer> CreateGuardedBuffer(const VulkanContext& ctx, uint64_t payload_bytes) {
  DASHI_ASSIGN_OR_RETURN(DeviceBuffer b, DeviceBuffer::Create(ctx, payload_bytes + kGuardBytes));
  DASHI_RETURN_IF_ERROR(b.Fill(ctx, kGuardWord));
  return b;
}

Status CreateGuardedBuffer(const VulkanContext& ctx, uint64_t payload_bytes,
                           std::unique_ptr<DeviceBuffer>& out) {
  DASHI_ASSIGN_OR_RETURN(DeviceBuffer b, CreateGuardedBuffer(ctx, payload_bytes));
  out = std::make_unique<DeviceBuffer>(std::move(b));
  return OkStatus();
}

Status WriteGuardWords(const VulkanContext& ctx, DeviceBuffer& buffer, uint64_t payload_bytes) {
  DASHI_RETURN_IF_ERROR(CheckRoom(buffer, payload_bytes, "guarded"));
  return buffer.Fill(ctx, kGuardWord, payload_bytes, kGuardBytes);
}

void RecordGuardFill(CommandBatch& batch, std::initializer_list<const DeviceBuffer*> buffers,
                     uint64_t payload_bytes) {
  for (const DeviceBuffer* b : buffers) {
    vkCmdFillBuffer(batch.command_buffer(), b->buffer(), payload_bytes, kGuardBytes, kGuardWord);
  }
  batch.Barrier();
}

StatusOr<int64_t> CountCorruptedGuardWords(const VulkanContext& ctx, const DeviceBuffer& buffer,
                                           uint64_t payload_bytes, const std::string& what) {
  DASHI_ASSIGN_OR_RETURN(std::vector<uint32_t> g,
                         ReadGuardWords(ctx, buffer, payload_bytes, what));
  int64_t corrupted = 0;
  for (uint32_t w : g) corrupted += w != kGuardWord ? 1 : 0;
  return corrupted;
}

Status CheckGuardWords(const VulkanContext& ctx, const DeviceBuffer& buffer, uint64_t payload_bytes,
                       const std::string& what) {
  DASHI_ASSIGN_OR_RETURN(std::vector<uint32_t> g,
                         ReadGuardWords(ctx, buffer, payload_bytes, what));
  for (size_t i = 0; i < g.size(); ++i) {
    if (g[i] != kGuardWord) {
      return DataLossError("guard word " + std::to_string(i) + " after the " + what +
                           " was overwritten (out-of-bounds write)");
    }
  }
  return OkStatus();
}

Status CheckGuardWords(const VulkanContext& ctx, std::span<const GuardedPayload> payloads,
                       const std::string& suffix) {
  for (const GuardedPayload& p : payloads) {
    DASHI_RETURN_IF_ERROR(CheckGuardWords(ctx, *p.buffer, p.payload_bytes, p.name + suffix));
  }
  return OkStatus();
}

}  // namespace dashi::vk
