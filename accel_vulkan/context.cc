#include "accel_vulkan/context.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "accel_vulkan/vk_status.h"

namespace dashi::vk {
namespace {

VKAPI_ATTR VkBool32 VKAPI_CALL OnDebugMessage(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                              VkDebugUtilsMessageTypeFlagsEXT /*types*/,
                                              const VkDebugUtilsMessengerCallbackDataEXT* data,
                                              void* user) {
  const char* level =
      (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) ? "ERROR" : "WARNING";
  std::string msg = std::string("[") + level + "] " +
                    (data->pMessageIdName ? data->pMessageIdName : "") + ": " +
                    (data->pMessage ? data->pMessage : "");
  static_cast<VulkanContext*>(user)->RecordValidationMessage(std::move(msg));
  return VK_FALSE;
}

std::string UuidToString(const uint8_t uuid[VK_UUID_SIZE]) {
  char buf[40];
  int pos = 0;
  for (int i = 0; i < static_cast<int>(VK_UUID_SIZE); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) buf[pos++] = '-';
    std::snprintf(buf + pos, sizeof(buf) - pos, "%02x", uuid[i]);
    pos += 2;
  }
  return std::string(buf, pos);
}

std::string ToLower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string StripDashes(std::string s) {
  s.erase(std::remove(s.begin(), s.end(), '-'), s.end());
  return s;
}

const char* DeviceTypeName(VkPhysicalDeviceType t) {
  switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated-gpu";
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete-gpu";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual-gpu";
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return "cpu";
    default: return "other";
  }
}

DeviceInfo Describe(VkPhysicalDevice pd, uint32_t index) {
  VkPhysicalDeviceDriverProperties driver{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
  VkPhysicalDeviceIDProperties ids{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES, &driver};
  VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &ids};
  vkGetPhysicalDeviceProperties2(pd, &props);
  VkPhysicalDeviceFeatures features;
  vkGetPhysicalDeviceFeatures(pd, &features);
  const auto& p = props.properties;
  DeviceInfo info;
  info.index = index;
  info.name = p.deviceName;
  info.uuid = UuidToString(ids.deviceUUID);
  info.driver_name = driver.driverName;
  info.driver_info = driver.driverInfo;
  info.driver_version = p.driverVersion;
  info.api_version = std::to_string(VK_API_VERSION_MAJOR(p.apiVersion)) + "." +
                     std::to_string(VK_API_VERSION_MINOR(p.apiVersion)) + "." +
                     std::to_string(VK_API_VERSION_PATCH(p.apiVersion));
  info.device_type = DeviceTypeName(p.deviceType);
  info.shader_float64 = features.shaderFloat64 == VK_TRUE;
  info.shader_int64 = features.shaderInt64 == VK_TRUE;
  info.timestamp_period_ns = p.limits.timestampPeriod;
  info.max_workgroup_size_x = p.limits.maxComputeWorkGroupSize[0];
  return info;
}

bool DeviceHasExtension(VkPhysicalDevice pd, const char* name) {
  uint32_t n = 0;
  if (vkEnumerateDeviceExtensionProperties(pd, nullptr, &n, nullptr) != VK_SUCCESS) return false;
  std::vector<VkExtensionProperties> exts(n);
  if (vkEnumerateDeviceExtensionProperties(pd, nullptr, &n, exts.data()) != VK_SUCCESS) {
    return false;
  }
  for (const auto& e : exts) {
    if (std::strcmp(e.extensionName, name) == 0) return true;
  }
  return false;
}

bool LayerAvailable(const char* name) {
  uint32_t n = 0;
  if (vkEnumerateInstanceLayerProperties(&n, nullptr) != VK_SUCCESS) return false;
  std::vector<VkLayerProperties> layers(n);
  if (vkEnumerateInstanceLayerProperties(&n, layers.data()) != VK_SUCCESS) return false;
  for (const auto& l : layers) {
    if (std::strcmp(l.layerName, name) == 0) return true;
  }
  return false;
}

Status CreateInstance(bool validation, VkInstance* out) {
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "dashi";
  app.apiVersion = VK_API_VERSION_1_2;
  std::vector<const char*> layers, extensions;
  if (validation) {
    if (!LayerAvailable(kValidationLayerName)) {
      return FailedPreconditionError(std::string("validation was requested but ") +
                                     kValidationLayerName +
                                     " is not installed (Debian: vulkan-validationlayers)");
    }
    layers.push_back(kValidationLayerName);
    extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    extensions.push_back(VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
  }
  // Synchronisation validation is on whenever validation is: a missing barrier between two
  // dispatches is a SYNC-HAZARD message, which fails the test or conformance case that caused it
  // (lavapipe executes in order, so such a bug would otherwise pass there).
  static constexpr VkValidationFeatureEnableEXT kEnabled[] = {
      VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
  VkValidationFeaturesEXT features{VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT};
  features.enabledValidationFeatureCount = 1;
  features.pEnabledValidationFeatures = kEnabled;
  VkInstanceCreateInfo ci{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  if (validation) ci.pNext = &features;
  ci.pApplicationInfo = &app;
  ci.enabledLayerCount = static_cast<uint32_t>(layers.size());
  ci.ppEnabledLayerNames = layers.data();
  ci.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  ci.ppEnabledExtensionNames = extensions.data();
  return VkCheck(vkCreateInstance(&ci, nullptr, out),
                 "vkCreateInstance (is a Vulkan driver installed? Debian: mesa-vulkan-drivers)");
}

StatusOr<std::vector<VkPhysicalDevice>> PhysicalDevices(VkInstance instance) {
  uint32_t n = 0;
  DASHI_VK_RETURN_IF_ERROR(vkEnumeratePhysicalDevices(instance, &n, nullptr),
                           "vkEnumeratePhysicalDevices");
  std::vector<VkPhysicalDevice> pds(n);
  DASHI_VK_RETURN_IF_ERROR(vkEnumeratePhysicalDevices(instance, &n, pds.data()),
                           "vkEnumeratePhysicalDevices");
  pds.resize(n);
  if (pds.empty()) {
    return NotFoundError("no Vulkan physical device found (is a driver installed? "
                         "Debian: mesa-vulkan-drivers provides lavapipe)");
  }
  return pds;
}

// Returns the index of the device the selector names.
StatusOr<uint32_t> SelectDevice(const std::vector<DeviceInfo>& devices, std::string selector) {
  if (selector.empty()) {
    const char* env = std::getenv(kDeviceEnvVar);
    if (env != nullptr) selector = env;
  }
  if (selector.empty()) return 0u;
  if (std::all_of(selector.begin(), selector.end(), ::isdigit) && selector.size() < 6) {
    const uint32_t idx = static_cast<uint32_t>(std::stoul(selector));
    if (idx >= devices.size()) {
      return NotFoundError("device index " + selector + " is out of range: " +
                           std::to_string(devices.size()) + " device(s) present");
    }
    return idx;
  }
  const std::string want = ToLower(selector);
  for (const DeviceInfo& d : devices) {
    if (StripDashes(d.uuid) == StripDashes(want)) return d.index;
  }
  for (const DeviceInfo& d : devices) {
    if (ToLower(d.name).find(want) != std::string::npos) return d.index;
  }
  std::string names;
  for (const DeviceInfo& d : devices) names += "\n  " + std::to_string(d.index) + ": " + d.name;
  return NotFoundError("no Vulkan device matches '" + selector + "'; devices present:" + names);
}

}  // namespace

StatusOr<std::vector<DeviceInfo>> EnumerateDevices() {
  VkInstance instance = VK_NULL_HANDLE;
  DASHI_RETURN_IF_ERROR(CreateInstance(false, &instance));
  StatusOr<std::vector<VkPhysicalDevice>> pds = PhysicalDevices(instance);
  std::vector<DeviceInfo> out;
  if (pds.ok()) {
    for (uint32_t i = 0; i < pds->size(); ++i) out.push_back(Describe((*pds)[i], i));
  }
  vkDestroyInstance(instance, nullptr);
  if (!pds.ok()) return pds.status();
  return out;
}

StatusOr<std::unique_ptr<VulkanContext>> VulkanContext::Create(const ContextOptions& options) {
  std::unique_ptr<VulkanContext> ctx(new VulkanContext());
  DASHI_RETURN_IF_ERROR(ctx->Init(options));
  return ctx;
}

Status VulkanContext::Init(const ContextOptions& options) {
  DASHI_RETURN_IF_ERROR(CreateInstance(options.enable_validation, &instance_));
  validation_enabled_ = options.enable_validation;
  if (validation_enabled_) {
    auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance_, "vkCreateDebugUtilsMessengerEXT"));
    if (create == nullptr) return UnimplementedError("vkCreateDebugUtilsMessengerEXT not found");
    VkDebugUtilsMessengerCreateInfoEXT ci{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
    ci.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                         VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    ci.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    ci.pfnUserCallback = &OnDebugMessage;
    ci.pUserData = this;
    DASHI_VK_RETURN_IF_ERROR(create(instance_, &ci, nullptr, &messenger_),
                             "vkCreateDebugUtilsMessengerEXT");
  }

  DASHI_ASSIGN_OR_RETURN(std::vector<VkPhysicalDevice> pds, PhysicalDevices(instance_));
  std::vector<DeviceInfo> infos;
  for (uint32_t i = 0; i < pds.size(); ++i) infos.push_back(Describe(pds[i], i));
  DASHI_ASSIGN_OR_RETURN(uint32_t index, SelectDevice(infos, options.device_selector));
  physical_ = pds[index];
  info_ = infos[index];

  if (options.require_float64) {
    std::string missing;
    if (!info_.shader_float64) missing += " shaderFloat64";
    if (!info_.shader_int64) missing += " shaderInt64";
    if (!missing.empty()) {
      return UnimplementedError("device '" + info_.name + "' lacks feature(s)" + missing +
                                ", which the fp64 paths need");
    }
  }

  uint32_t nq = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physical_, &nq, nullptr);
  std::vector<VkQueueFamilyProperties> families(nq);
  vkGetPhysicalDeviceQueueFamilyProperties(physical_, &nq, families.data());
  bool found = false;
  for (uint32_t q = 0; q < nq && !found; ++q) {
    if (families[q].queueFlags & VK_QUEUE_COMPUTE_BIT) {
      queue_family_ = q;
      timestamp_valid_bits_ = families[q].timestampValidBits;
      found = true;
    }
  }
  if (!found) return UnimplementedError("device '" + info_.name + "' has no compute queue");

  const float priority = 1.0f;
  VkDeviceQueueCreateInfo qci{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  qci.queueFamilyIndex = queue_family_;
  qci.queueCount = 1;
  qci.pQueuePriorities = &priority;
  VkPhysicalDeviceFeatures enabled{};
  // Enable the 64-bit features whenever the device has them; require_float64 only decides whether
  // their absence is an error here (conform reports NOT_SUPPORTED per case instead).
  enabled.shaderFloat64 = info_.shader_float64 ? VK_TRUE : VK_FALSE;
  enabled.shaderInt64 = info_.shader_int64 ? VK_TRUE : VK_FALSE;
  VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  std::vector<const char*> device_extensions;
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR exec_props{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
  if (options.capture_pipeline_statistics &&
      DeviceHasExtension(physical_, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME)) {
    device_extensions.push_back(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
    exec_props.pipelineExecutableInfo = VK_TRUE;
    dci.pNext = &exec_props;
    pipeline_statistics_ = true;
  }
  dci.enabledExtensionCount = static_cast<uint32_t>(device_extensions.size());
  dci.ppEnabledExtensionNames = device_extensions.data();
  dci.queueCreateInfoCount = 1;
  dci.pQueueCreateInfos = &qci;
  dci.pEnabledFeatures = &enabled;
  DASHI_VK_RETURN_IF_ERROR(vkCreateDevice(physical_, &dci, nullptr, &device_),
                           "vkCreateDevice on '" + info_.name + "'");
  vkGetDeviceQueue(device_, queue_family_, 0, &queue_);
  return OkStatus();
}

VulkanContext::~VulkanContext() {
  if (device_ != VK_NULL_HANDLE) {
    vkDeviceWaitIdle(device_);
    vkDestroyDevice(device_, nullptr);
  }
  if (messenger_ != VK_NULL_HANDLE) {
    auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance_, "vkDestroyDebugUtilsMessengerEXT"));
    if (destroy != nullptr) destroy(instance_, messenger_, nullptr);
  }
  if (instance_ != VK_NULL_HANDLE) vkDestroyInstance(instance_, nullptr);
}

std::vector<std::string> VulkanContext::validation_messages() const {
  std::lock_guard<std::mutex> lock(messages_mu_);
  return messages_;
}

void VulkanContext::RecordValidationMessage(std::string message) {
  std::lock_guard<std::mutex> lock(messages_mu_);
  messages_.push_back(std::move(message));
}

StatusOr<uint32_t> VulkanContext::FindMemoryType(uint32_t type_bits,
                                                 VkMemoryPropertyFlags required) const {
  VkPhysicalDeviceMemoryProperties mem;
  vkGetPhysicalDeviceMemoryProperties(physical_, &mem);
  for (uint32_t i = 0; i < mem.memoryTypeCount; ++i) {
    if ((type_bits & (1u << i)) && (mem.memoryTypes[i].propertyFlags & required) == required) {
      return i;
    }
  }
  return NotFoundError("no memory type with flags " + std::to_string(required) + " on '" +
                       info_.name + "'");
}

VkMemoryPropertyFlags VulkanContext::MemoryTypeFlags(uint32_t type) const {
  VkPhysicalDeviceMemoryProperties mem;
  vkGetPhysicalDeviceMemoryProperties(physical_, &mem);
  return type < mem.memoryTypeCount ? mem.memoryTypes[type].propertyFlags : 0;
}

}  // namespace dashi::vk
