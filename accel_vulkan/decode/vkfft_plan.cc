#include "accel_vulkan/decode/vkfft_plan.h"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

// VkFFT 1.2.26 is one large header of static inline functions written without -Wall in mind; its
// warnings are not ours to fix.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wunused-variable"
#pragma GCC diagnostic ignored "-Wunused-but-set-variable"
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wformat-truncation"
#pragma GCC diagnostic ignored "-Wformat-overflow"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#pragma GCC diagnostic ignored "-Wparentheses"
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#pragma GCC diagnostic ignored "-Wstringop-truncation"
#pragma GCC diagnostic ignored "-Wtype-limits"
#pragma GCC diagnostic ignored "-Wempty-body"
#pragma GCC diagnostic ignored "-Wnarrowing"
#pragma GCC diagnostic ignored "-Wdangling-pointer"
#include <vkFFT.h>
#pragma GCC diagnostic pop

#include "accel_vulkan/decode/vkfft_binary_cache.h"
#include "accel_vulkan/vk_status.h"

namespace dashi::vk {
namespace {

#define DASHI_VKFFT_CASE(name) \
  case name: return #name;

std::string_view VkFftResultName(VkFFTResult r) {
  switch (r) {
    DASHI_VKFFT_CASE(VKFFT_SUCCESS)
    DASHI_VKFFT_CASE(VKFFT_ERROR_MALLOC_FAILED)
    DASHI_VKFFT_CASE(VKFFT_ERROR_INSUFFICIENT_CODE_BUFFER)
    DASHI_VKFFT_CASE(VKFFT_ERROR_INSUFFICIENT_TEMP_BUFFER)
    DASHI_VKFFT_CASE(VKFFT_ERROR_PLAN_NOT_INITIALIZED)
    DASHI_VKFFT_CASE(VKFFT_ERROR_NULL_TEMP_PASSED)
    DASHI_VKFFT_CASE(VKFFT_ERROR_INVALID_PHYSICAL_DEVICE)
    DASHI_VKFFT_CASE(VKFFT_ERROR_INVALID_DEVICE)
    DASHI_VKFFT_CASE(VKFFT_ERROR_INVALID_QUEUE)
    DASHI_VKFFT_CASE(VKFFT_ERROR_INVALID_COMMAND_POOL)
    DASHI_VKFFT_CASE(VKFFT_ERROR_INVALID_FENCE)
    DASHI_VKFFT_CASE(VKFFT_ERROR_ONLY_FORWARD_FFT_INITIALIZED)
    DASHI_VKFFT_CASE(VKFFT_ERROR_ONLY_INVERSE_FFT_INITIALIZED)
    DASHI_VKFFT_CASE(VKFFT_ERROR_INVALID_CONTEXT)
    DASHI_VKFFT_CASE(VKFFT_ERROR_INVALID_PLATFORM)
    DASHI_VKFFT_CASE(VKFFT_ERROR_ENABLED_saveApplicationToString)
    DASHI_VKFFT_CASE(VKFFT_ERROR_EMPTY_FILE)
    DASHI_VKFFT_CASE(VKFFT_ERROR_EMPTY_FFTdim)
    DASHI_VKFFT_CASE(VKFFT_ERROR_EMPTY_size)
    DASHI_VKFFT_CASE(VKFFT_ERROR_EMPTY_bufferSize)
    DASHI_VKFFT_CASE(VKFFT_ERROR_EMPTY_buffer)
    DASHI_VKFFT_CASE(VKFFT_ERROR_EMPTY_tempBufferSize)
    DASHI_VKFFT_CASE(VKFFT_ERROR_EMPTY_tempBuffer)
    DASHI_VKFFT_CASE(VKFFT_ERROR_EMPTY_inputBufferSize)
    DASHI_VKFFT_CASE(VKFFT_ERROR_EMPTY_inputBuffer)
    DASHI_VKFFT_CASE(VKFFT_ERROR_EMPTY_outputBufferSize)
    DASHI_VKFFT_CASE(VKFFT_ERROR_EMPTY_outputBuffer)
    DASHI_VKFFT_CASE(VKFFT_ERROR_EMPTY_kernelSize)
    DASHI_VKFFT_CASE(VKFFT_ERROR_EMPTY_kernel)
    DASHI_VKFFT_CASE(VKFFT_ERROR_EMPTY_applicationString)
    DASHI_VKFFT_CASE(VKFFT_ERROR_EMPRY_useCustomBluesteinPaddingPattern_arrays)
    DASHI_VKFFT_CASE(VKFFT_ERROR_UNSUPPORTED_RADIX)
    DASHI_VKFFT_CASE(VKFFT_ERROR_UNSUPPORTED_FFT_LENGTH)
    DASHI_VKFFT_CASE(VKFFT_ERROR_UNSUPPORTED_FFT_LENGTH_R2C)
    DASHI_VKFFT_CASE(VKFFT_ERROR_UNSUPPORTED_FFT_LENGTH_DCT)
    DASHI_VKFFT_CASE(VKFFT_ERROR_UNSUPPORTED_FFT_OMIT)
    DASHI_VKFFT_CASE(VKFFT_ERROR_FAILED_TO_ALLOCATE)
    DASHI_VKFFT_CASE(VKFFT_ERROR_FAILED_TO_MAP_MEMORY)
    DASHI_VKFFT_CASE(VKFFT_ERROR_FAILED_TO_ALLOCATE_COMMAND_BUFFERS)
    DASHI_VKFFT_CASE(VKFFT_ERROR_FAILED_TO_BEGIN_COMMAND_BUFFER)
    DASHI_VKFFT_CASE(VKFFT_ERROR_FAILED_TO_END_COMMAND_BUFFER)
    DASHI_VKFFT_CASE(VKFFT_ERROR_FAILED_TO_SUBMIT_QUEUE)
    DASHI_VKFFT_CASE(VKFFT_ERROR_FAILED_TO_WAIT_FOR_FENCES)
    DASHI_VKFFT_CASE(VKFFT_ERROR_FAILED_TO_RESET_FENCES)
    DASHI_VKFFT_CASE(VKFFT_ERROR_FAILED_TO_CREATE_DESCRIPTOR_POOL)
    DASHI_VKFFT_CASE(VKFFT_ERROR_FAILED_TO_CREATE_DESCRIPTOR_SET_LAYOUT)
    DASHI_VKFFT_CASE(VKFFT_ERROR_FAILED_TO_ALLOCATE_DESCRIPTOR_SETS)
    DASHI_VKFFT_CASE(VKFFT_ERROR_FAILED_TO_CREATE_PIPELINE_LAYOUT)
    DASHI_VKFFT_CASE(VKFFT_ERROR_FAILED_SHADER_PREPROCESS)
    DASHI_VKFFT_CASE(VKFFT_ERROR_FAILED_SHADER_PARSE)
    DASHI_VKFFT_CASE(VKFFT_ERROR_FAILED_SHADER_LINK)
    DASHI_VKFFT_CASE(VKFFT_ERROR_FAILED_SPIRV_GENERATE)
    DASHI_VKFFT_CASE(VKFFT_ERROR_FAILED_TO_CREATE_SHADER_MODULE)
    DASHI_VKFFT_CASE(VKFFT_ERROR_FAILED_TO_CREATE_INSTANCE)
    DASHI_VKFFT_CASE(VKFFT_ERROR_FAILED_TO_SETUP_DEBUG_MESSENGER)
    DASHI_VKFFT_CASE(VKFFT_ERROR_FAILED_TO_FIND_PHYSICAL_DEVICE)
    DASHI_VKFFT_CASE(VKFFT_ERROR_FAILED_TO_CREATE_DEVICE)
    DASHI_VKFFT_CASE(VKFFT_ERROR_FAILED_TO_CREATE_FENCE)
    DASHI_VKFFT_CASE(VKFFT_ERROR_FAILED_TO_CREATE_COMMAND_POOL)
    DASHI_VKFFT_CASE(VKFFT_ERROR_FAILED_TO_CREATE_BUFFER)
    DASHI_VKFFT_CASE(VKFFT_ERROR_FAILED_TO_ALLOCATE_MEMORY)
    DASHI_VKFFT_CASE(VKFFT_ERROR_FAILED_TO_BIND_BUFFER_MEMORY)
    DASHI_VKFFT_CASE(VKFFT_ERROR_FAILED_TO_FIND_MEMORY)
    DASHI_VKFFT_CASE(VKFFT_ERROR_FAILED_TO_SYNCHRONIZE)
    DASHI_VKFFT_CASE(VKFFT_ERROR_FAILED_TO_COPY)
    DASHI_VKFFT_CASE(VKFFT_ERROR_FAILED_TO_CREATE_PROGRAM)
    DASHI_VKFFT_CASE(VKFFT_ERROR_FAILED_TO_COMPILE_PROGRAM)
    DASHI_VKFFT_CASE(VKFFT_ERROR_FAILED_TO_GET_CODE_SIZE)
    DASHI_VKFFT_CASE(VKFFT_ERROR_FAILED_TO_GET_CODE)
    DASHI_VKFFT_CASE(VKFFT_ERROR_FAILED_TO_DESTROY_PROGRAM)
    DASHI_VKFFT_CASE(VKFFT_ERROR_FAILED_TO_LOAD_MODULE)
    DASHI_VKFFT_CASE(VKFFT_ERROR_FAILED_TO_GET_FUNCTION)
    DASHI_VKFFT_CASE(VKFFT_ERROR_FAILED_TO_SET_DYNAMIC_SHARED_MEMORY)
    DASHI_VKFFT_CASE(VKFFT_ERROR_FAILED_TO_MODULE_GET_GLOBAL)
    DASHI_VKFFT_CASE(VKFFT_ERROR_FAILED_TO_LAUNCH_KERNEL)
    DASHI_VKFFT_CASE(VKFFT_ERROR_FAILED_TO_EVENT_RECORD)
    DASHI_VKFFT_CASE(VKFFT_ERROR_FAILED_TO_ADD_NAME_EXPRESSION)
    DASHI_VKFFT_CASE(VKFFT_ERROR_FAILED_TO_INITIALIZE)
    DASHI_VKFFT_CASE(VKFFT_ERROR_FAILED_TO_SET_DEVICE_ID)
    DASHI_VKFFT_CASE(VKFFT_ERROR_FAILED_TO_GET_DEVICE)
    DASHI_VKFFT_CASE(VKFFT_ERROR_FAILED_TO_CREATE_CONTEXT)
    DASHI_VKFFT_CASE(VKFFT_ERROR_FAILED_TO_CREATE_PIPELINE)
    DASHI_VKFFT_CASE(VKFFT_ERROR_FAILED_TO_SET_KERNEL_ARG)
    DASHI_VKFFT_CASE(VKFFT_ERROR_FAILED_TO_CREATE_COMMAND_QUEUE)
    DASHI_VKFFT_CASE(VKFFT_ERROR_FAILED_TO_RELEASE_COMMAND_QUEUE)
    DASHI_VKFFT_CASE(VKFFT_ERROR_FAILED_TO_ENUMERATE_DEVICES)
    DASHI_VKFFT_CASE(VKFFT_ERROR_FAILED_TO_GET_ATTRIBUTE)
    DASHI_VKFFT_CASE(VKFFT_ERROR_FAILED_TO_CREATE_EVENT)
    DASHI_VKFFT_CASE(VKFFT_ERROR_FAILED_TO_CREATE_COMMAND_LIST)
    DASHI_VKFFT_CASE(VKFFT_ERROR_FAILED_TO_DESTROY_COMMAND_LIST)
    DASHI_VKFFT_CASE(VKFFT_ERROR_FAILED_TO_SUBMIT_BARRIER)
  }
  return "VKFFT_ERROR_(unknown)";
}
#undef DASHI_VKFFT_CASE

// VkFFT's result as a Status: allocation failures are RESOURCE_EXHAUSTED, unsupported sizes
// UNIMPLEMENTED, everything else INTERNAL; the message names the call and the VkFFT code.
Status VkFftCheck(VkFFTResult r, std::string_view what) {
  if (r == VKFFT_SUCCESS) return OkStatus();
  std::string msg = std::string(what) + ": " + std::string(VkFftResultName(r)) + " (" +
                    std::to_string(static_cast<int>(r)) + ")";
  const std::string_view name = VkFftResultName(r);
  if (name.find("ALLOCATE") != std::string_view::npos ||
      name.find("MALLOC") != std::string_view::npos) {
    return ResourceExhaustedError(std::move(msg));
  }
  if (name.find("UNSUPPORTED") != std::string_view::npos) {
    return UnimplementedError(std::move(msg));
  }
  return InternalError(std::move(msg));
}

}  // namespace

const char* PrecisionName(Precision p) { return p == Precision::kFp64 ? "fp64" : "fp32"; }

// Everything VkFFT keeps pointers to lives here, at a stable address, for the plan's lifetime.
struct VkFftPlan::State {
  VkDevice device = VK_NULL_HANDLE;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  VkCommandPool pool = VK_NULL_HANDLE;  // VkFFT uploads its twiddle tables through these
  VkFence fence = VK_NULL_HANDLE;
  VkBuffer spectrum = VK_NULL_HANDLE;
  VkBuffer real = VK_NULL_HANDLE;
  uint64_t spectrum_bytes = 0;
  uint64_t real_bytes = 0;
  VkFFTApplication app = {};
  bool initialized = false;
  std::vector<uint8_t> cached_binaries;  // what VkFFT loaded, kept for the app's lifetime
  CacheUse cache_use = CacheUse::kOff;

  ~State() {
    if (initialized) deleteVkFFT(&app);
    if (fence != VK_NULL_HANDLE) vkDestroyFence(device, fence, nullptr);
    if (pool != VK_NULL_HANDLE) vkDestroyCommandPool(device, pool, nullptr);
  }
};

VkFftPlan::VkFftPlan(uint32_t n, Precision precision, std::unique_ptr<State> state)
    : n_(n), precision_(precision), state_(std::move(state)) {}

VkFftPlan::~VkFftPlan() = default;

StatusOr<std::unique_ptr<VkFftPlan>> VkFftPlan::Create(const VulkanContext& ctx, uint32_t n,
                                                       Precision precision,
                                                       const DeviceBuffer& spectrum,
                                                       const DeviceBuffer& real) {
  if (n < 8 || n > 4096 || (n & (n - 1)) != 0) {
    return InvalidArgumentError("VkFFT plan: N = " + std::to_string(n) +
                                " must be a power of two in [8, 4096]");
  }
  if (precision == Precision::kFp64 && !ctx.info().shader_float64) {
    return UnimplementedError("VkFFT plan: fp64 needs shaderFloat64, which " + ctx.info().name +
                              " lacks");
  }
  auto s = std::make_unique<State>();
  s->device = ctx.device();
  s->physical = ctx.physical_device();
  s->queue = ctx.queue();
  s->spectrum = spectrum.buffer();
  s->real = real.buffer();
  s->spectrum_bytes = SpectrumBytes(n, precision);
  s->real_bytes = RealBytes(n, precision);
  if (spectrum.size() < s->spectrum_bytes || real.size() < RealBufferBytes(n, precision)) {
    return InvalidArgumentError(
        "VkFFT plan N = " + std::to_string(n) + " " + PrecisionName(precision) + ": needs a " +
        std::to_string(s->spectrum_bytes) + "-byte spectrum and a " +
        std::to_string(RealBufferBytes(n, precision)) + "-byte real buffer, got " +
        std::to_string(spectrum.size()) + " and " + std::to_string(real.size()));
  }
  VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pci.queueFamilyIndex = ctx.queue_family();
  DASHI_VK_RETURN_IF_ERROR(vkCreateCommandPool(s->device, &pci, nullptr, &s->pool),
                           "vkCreateCommandPool (VkFFT)");
  VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  DASHI_VK_RETURN_IF_ERROR(vkCreateFence(s->device, &fci, nullptr, &s->fence),
                           "vkCreateFence (VkFFT)");

  VkFFTConfiguration c = {};
  c.FFTdim = 2;
  c.size[0] = n;  // x: the fast (column) axis, halved by the R2C
  c.size[1] = n;  // y: rows
  c.physicalDevice = &s->physical;
  c.device = &s->device;
  c.queue = &s->queue;
  c.commandPool = &s->pool;
  c.fence = &s->fence;
  c.doublePrecision = precision == Precision::kFp64 ? 1 : 0;
  c.performR2C = 1;
  c.normalize = 1;  // the inverse includes 1/N², as core_ref's Irfft
  c.useLUT = 1;     // twiddles from host tables (GLSL has no fp64 sin/cos); also in fp32
  // The complex half spectrum: VkFFT's "buffer".
  c.bufferNum = 1;
  c.buffer = &s->spectrum;
  c.bufferSize = &s->spectrum_bytes;
  c.bufferStride[0] = n / 2 + 1;  // complex elements
  c.bufferStride[1] = uint64_t{n} * (n / 2 + 1);
  // The dense real grid: VkFFT's "input buffer" (out of place), also the inverse's destination.
  c.isInputFormatted = 1;
  c.inverseReturnToInputBuffer = 1;
  c.inputBufferNum = 1;
  c.inputBuffer = &s->real;
  c.inputBufferSize = &s->real_bytes;
  c.inputBufferStride[0] = n;  // VkFFT's R2C default would be the in-place padding N + 2
  c.inputBufferStride[1] = uint64_t{n} * n;
  // The compiled kernels from the on-disk cache when a verified file exists for exactly this
  // plan on this device and driver; otherwise compiled here and saved for the next run.
  const std::string what =
      "initializeVkFFT (N = " + std::to_string(n) + ", " + PrecisionName(precision) + ")";
  std::optional<VkFftBinaryCache> cache;
  if (const std::optional<std::string> dir = VkFftCacheDirectory()) {
    const DeviceInfo& d = ctx.info();
    cache.emplace(*dir, "vkfft " + std::to_string(VkFFTGetVersion()) + " device " + d.uuid + " " +
                            d.name + " driver " + std::to_string(d.driver_version) + " " +
                            d.driver_info + " N " + std::to_string(n) + " " +
                            PrecisionName(precision) +
                            " FFTdim 2 R2C normalize LUT inputFormatted returnToInput"
                            " strides dense/half");
  }
  CacheUse use = CacheUse::kOff;
  if (cache) {
    if (std::optional<std::vector<uint8_t>> b = cache->Load()) {
      s->cached_binaries = std::move(*b);
      c.loadApplicationFromString = 1;
      c.loadApplicationString = s->cached_binaries.data();
      use = CacheUse::kLoaded;
    } else {
      c.saveApplicationToString = 1;
      use = CacheUse::kCompiledAndSaved;
    }
  }
  VkFFTResult r = initializeVkFFT(&s->app, c);
  if (r != VKFFT_SUCCESS && use == CacheUse::kLoaded) {
    // A file that verified but that VkFFT refused: compile instead, and replace it.
    s->app = {};
    s->cached_binaries.clear();
    c.loadApplicationFromString = 0;
    c.loadApplicationString = nullptr;
    c.saveApplicationToString = 1;
    use = CacheUse::kCompiledAndSaved;
    r = initializeVkFFT(&s->app, c);
  }
  DASHI_RETURN_IF_ERROR(VkFftCheck(r, what));
  s->initialized = true;
  if (use == CacheUse::kCompiledAndSaved && s->app.saveApplicationString != nullptr) {
    // A cache that cannot be written costs the next run its compile, nothing else.
    if (!cache->Save(s->app.saveApplicationString, s->app.applicationStringSize).ok()) {
      use = CacheUse::kCompiledNotSaved;
    }
  }
  s->cache_use = use;
  return std::unique_ptr<VkFftPlan>(new VkFftPlan(n, precision, std::move(s)));
}

VkFftPlan::CacheUse VkFftPlan::cache_use() const { return state_->cache_use; }

const char* VkFftPlan::CacheUseName(CacheUse u) {
  switch (u) {
    case CacheUse::kOff: return "off";
    case CacheUse::kLoaded: return "loaded";
    case CacheUse::kCompiledAndSaved: return "compiled, saved";
    case CacheUse::kCompiledNotSaved: return "compiled, not saved";
  }
  return "off";
}

Status VkFftPlan::RecordForward(VkCommandBuffer cb) {
  VkFFTLaunchParams lp = {};
  lp.commandBuffer = &cb;
  return VkFftCheck(VkFFTAppend(&state_->app, -1, &lp), "VkFFTAppend (forward R2C)");
}

Status VkFftPlan::RecordInverse(VkCommandBuffer cb) {
  VkFFTLaunchParams lp = {};
  lp.commandBuffer = &cb;
  return VkFftCheck(VkFFTAppend(&state_->app, 1, &lp), "VkFFTAppend (inverse C2R)");
}

}  // namespace dashi::vk
