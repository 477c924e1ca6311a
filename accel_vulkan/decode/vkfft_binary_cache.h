// VkFftBinaryCache: VkFFT's compiled kernels kept on disk across runs, so that a plan's one-time
// set-up (VkFFT generates GLSL and compiles it with glslang at initializeVkFFT: about 0.1–0.3 s a
// plan) is paid once per device, driver, VkFFT version and plan configuration.
//
// Directory: $DASHI_CACHE_DIR, else $XDG_CACHE_HOME/dashi, else $HOME/.cache/dashi; the value
// "off" (or no directory at all) disables the cache. One file per plan,
// vkfft-<BLAKE2b-128 of the key>.bin:
//   "DASHIVKF" | u64 payload bytes | BLAKE2b-128(payload) | BLAKE2b-128(key) | payload
// A file that is truncated, whose hash does not match, or whose key differs is ignored (the plan
// is compiled and the file rewritten), never handed to VkFFT. Files are written to a temporary
// name and renamed, so a concurrent or killed writer never leaves a half file under the name.
// The payload is VkFFT's own saveApplicationString; the results of a cached plan are those of a
// compiled one (tested bit for bit).
#ifndef DASHI_ACCEL_VULKAN_DECODE_VKFFT_BINARY_CACHE_H_
#define DASHI_ACCEL_VULKAN_DECODE_VKFFT_BINARY_CACHE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core_ref/status/status.h"

namespace dashi::vk {

// The cache directory from the environment; nullopt when disabled.
std::optional<std::string> VkFftCacheDirectory();

class VkFftBinaryCache {
 public:
  // `key`: every input the binaries depend on, as text.
  VkFftBinaryCache(std::string directory, std::string key);

  const std::string& path() const { return path_; }
  // The payload when the file exists and verifies; nullopt otherwise (`why` says why, when set).
  std::optional<std::vector<uint8_t>> Load(std::string* why = nullptr) const;
  // Writes the payload atomically (temporary file, rename); the directory is created.
  Status Save(const void* payload, uint64_t bytes) const;

 private:
  std::string key_;
  std::string path_;
};

}  // namespace dashi::vk

#endif  // DASHI_ACCEL_VULKAN_DECODE_VKFFT_BINARY_CACHE_H_
