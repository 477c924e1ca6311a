#include "accel_vulkan/vk_status.h"

#include <string>

namespace dashi::vk {

std::string_view VkResultName(VkResult result) {
  switch (result) {
#define DASHI_VK_CASE(x) \
  case x:                \
    return #x;
    DASHI_VK_CASE(VK_SUCCESS)
    DASHI_VK_CASE(VK_NOT_READY)
    DASHI_VK_CASE(VK_TIMEOUT)
    DASHI_VK_CASE(VK_INCOMPLETE)
    DASHI_VK_CASE(VK_ERROR_OUT_OF_HOST_MEMORY)
    DASHI_VK_CASE(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    DASHI_VK_CASE(VK_ERROR_INITIALIZATION_FAILED)
    DASHI_VK_CASE(VK_ERROR_DEVICE_LOST)
    DASHI_VK_CASE(VK_ERROR_MEMORY_MAP_FAILED)
    DASHI_VK_CASE(VK_ERROR_LAYER_NOT_PRESENT)
    DASHI_VK_CASE(VK_ERROR_EXTENSION_NOT_PRESENT)
    DASHI_VK_CASE(VK_ERROR_FEATURE_NOT_PRESENT)
    DASHI_VK_CASE(VK_ERROR_INCOMPATIBLE_DRIVER)
    DASHI_VK_CASE(VK_ERROR_TOO_MANY_OBJECTS)
    DASHI_VK_CASE(VK_ERROR_FORMAT_NOT_SUPPORTED)
    DASHI_VK_CASE(VK_ERROR_FRAGMENTED_POOL)
    DASHI_VK_CASE(VK_ERROR_UNKNOWN)
    DASHI_VK_CASE(VK_ERROR_OUT_OF_POOL_MEMORY)
#undef DASHI_VK_CASE
    default:
      return "VK_RESULT_UNKNOWN";
  }
}

Status VkCheck(VkResult result, std::string_view what) {
  if (result == VK_SUCCESS) return OkStatus();
  std::string msg(what);
  msg += ": ";
  msg += VkResultName(result);
  if (VkResultName(result) == "VK_RESULT_UNKNOWN") msg += " (" + std::to_string(result) + ")";
  switch (result) {
    case VK_ERROR_OUT_OF_HOST_MEMORY:
    case VK_ERROR_OUT_OF_DEVICE_MEMORY:
    case VK_ERROR_OUT_OF_POOL_MEMORY:
    case VK_ERROR_TOO_MANY_OBJECTS:
      return ResourceExhaustedError(std::move(msg));
    case VK_ERROR_DEVICE_LOST:
      return UnavailableError(std::move(msg));
    case VK_ERROR_LAYER_NOT_PRESENT:
    case VK_ERROR_EXTENSION_NOT_PRESENT:
    case VK_ERROR_FEATURE_NOT_PRESENT:
    case VK_ERROR_INCOMPATIBLE_DRIVER:
    case VK_ERROR_FORMAT_NOT_SUPPORTED:
      return UnimplementedError(std::move(msg));
    case VK_TIMEOUT:
    case VK_NOT_READY:
      return UnavailableError(std::move(msg));
    default:
      return InternalError(std::move(msg));
  }
}

}  // namespace dashi::vk
