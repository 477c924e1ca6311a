// Guard words: every buffer a kernel or FFT writes carries kGuardBytes after its payload (inside
// the range bound to the shader), filled with kGuardWord before the work runs; a write past the
// payload lands there and is found afterwards (ggml's sentinels). The one definition of the value,
// the placement and the check, for the ops, the Vulkan tests and the conformance cases.
//
//   DASHI_ASSIGN_OR_RETURN(DeviceBuffer out, CreateGuardedBuffer(ctx, payload_bytes));
//   ... kernels write out[0, payload_bytes) ...
//   DASHI_RETURN_IF_ERROR(CheckGuardWords(ctx, out, payload_bytes, "smoothed field"));
#ifndef DASHI_ACCEL_VULKAN_GUARD_WORDS_H_
#define DASHI_ACCEL_VULKAN_GUARD_WORDS_H_

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>

#include "accel_vulkan/command_batch.h"
#include "accel_vulkan/context.h"
#include "accel_vulkan/device_buffer.h"
#include "core_ref/status/status.h"

namespace dashi::vk {

inline constexpr uint64_t kGuardBytes = 256;
inline constexpr uint32_t kGuardWord = 0xCAFEF00Du;

// A device buffer of payload_bytes + kGuardBytes, every word of it kGuardWord.
StatusOr<DeviceBuffer> CreateGuardedBuffer(const VulkanContext& ctx, uint64_t payload_bytes);
// The same into `out`, for objects that keep their buffers behind pointers.
Status CreateGuardedBuffer(const VulkanContext& ctx, uint64_t payload_bytes,
                           std::unique_ptr<DeviceBuffer>& out);

// Writes kGuardWord over [payload_bytes, payload_bytes + kGuardBytes) of `buffer` and waits
// (FAILED_PRECONDITION when the buffer has no room for them).
Status WriteGuardWords(const VulkanContext& ctx, DeviceBuffer& buffer, uint64_t payload_bytes);

// Records the same fill for each buffer into `batch`, then one barrier (so a later out-of-bounds
// write lands after the fill and shows).
void RecordGuardFill(CommandBatch& batch, std::initializer_list<const DeviceBuffer*> buffers,
                     uint64_t payload_bytes);

// How many of the kGuardBytes / 4 words after payload_bytes no longer hold kGuardWord
// (FAILED_PRECONDITION naming `what` when the buffer has no guard region).
StatusOr<int64_t> CountCorruptedGuardWords(const VulkanContext& ctx, const DeviceBuffer& buffer,
                                           uint64_t payload_bytes, const std::string& what);

// OK while the guard words after payload_bytes are intact; DATA_LOSS naming `what` and the first
// overwritten word otherwise; FAILED_PRECONDITION when the buffer has no guard region.
Status CheckGuardWords(const VulkanContext& ctx, const DeviceBuffer& buffer, uint64_t payload_bytes,
                       const std::string& what);

// One buffer of an object's CheckGuards list: its payload, and its name in the message.
struct GuardedPayload {
  const char* name;
  const DeviceBuffer* buffer;
  uint64_t payload_bytes;
};
// CheckGuardWords on each in order, naming each `name + suffix`; the first failure is returned.
Status CheckGuardWords(const VulkanContext& ctx, std::span<const GuardedPayload> payloads,
                       const std::string& suffix);

}  // namespace dashi::vk

#endif  // DASHI_ACCEL_VULKAN_GUARD_WORDS_H_
