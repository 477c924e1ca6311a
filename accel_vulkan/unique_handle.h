// UniqueHandle: the one move-only owner of a Vulkan object made from a VkDevice (a buffer, its
// memory, a pipeline, a pool, a fence, ...), destroyed with its vkDestroy*/vkFree* function when
// the owner is reset, reassigned or destroyed. Every RAII type of the accelerator holds its
// handles in these, so none writes its own move or reset code.
//
// Lifetime order: the VulkanContext (its VkDevice) outlives every UniqueHandle made from it; an
// object that holds several declares them in creation order, so they are destroyed in reverse:
// a buffer before the memory bound to it, a pipeline and its descriptor pool before the pipeline
// layout and the set layout, a command pool's fence and query pool before the pool.
//
//   UniqueHandle<VkFence, vkDestroyFence> fence;
//   DASHI_VK_RETURN_IF_ERROR(vkCreateFence(dev, &info, nullptr, fence.Receive(dev)), "...");
//   vkWaitForFences(dev, 1, fence.ptr(), VK_TRUE, timeout);
#ifndef DASHI_ACCEL_VULKAN_UNIQUE_HANDLE_H_
#define DASHI_ACCEL_VULKAN_UNIQUE_HANDLE_H_

#include <utility>

#include <vulkan/vulkan.h>

namespace dashi::vk {

template <typename Handle, void (*Destroy)(VkDevice, Handle, const VkAllocationCallbacks*)>
class UniqueHandle {
 public:
  UniqueHandle() = default;
  UniqueHandle(VkDevice device, Handle handle) : device_(device), handle_(handle) {}
  UniqueHandle(UniqueHandle&& other) noexcept
      : device_(other.device_), handle_(std::exchange(other.handle_, VK_NULL_HANDLE)) {}
  UniqueHandle& operator=(UniqueHandle&& other) noexcept {
    if (this != &other) {
      reset();
      device_ = other.device_;
      handle_ = std::exchange(other.handle_, VK_NULL_HANDLE);
    }
    return *this;
  }
  UniqueHandle(const UniqueHandle&) = delete;
  UniqueHandle& operator=(const UniqueHandle&) = delete;
  ~UniqueHandle() { reset(); }

  Handle get() const { return handle_; }
  const Handle* ptr() const { return &handle_; }
  VkDevice device() const { return device_; }
  explicit operator bool() const { return handle_ != VK_NULL_HANDLE; }

  // Destroys the object (if any); the owner is empty afterwards.
  void reset() {
    if (handle_ != VK_NULL_HANDLE) Destroy(device_, handle_, nullptr);
    handle_ = VK_NULL_HANDLE;
  }
  // Destroys the object (if any) and returns the slot a vkCreate*/vkAllocate* call on `device`
  // writes the new handle to; the owner then owns what the call wrote there.
  Handle* Receive(VkDevice device) {
    reset();
    device_ = device;
    return &handle_;
  }

 private:
  VkDevice device_ = VK_NULL_HANDLE;
  Handle handle_ = VK_NULL_HANDLE;
};

}  // namespace dashi::vk

#endif  // DASHI_ACCEL_VULKAN_UNIQUE_HANDLE_H_
