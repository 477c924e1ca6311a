#include "accel_vulkan/decode/vkfft_binary_cache.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <utility>

#include "core_ref/blake2b/blake2b.h"

namespace dashi::vk {
namespace {

constexpr char kMagic[8] = {'D', 'A', 'S', 'H', 'I', 'V', 'K', 'F'};
constexpr size_t kHeaderBytes = 8 + 8 + 16 + 16;

}  // namespace

std::optional<std::string> VkFftCacheDirectory() {
  if (const char* d = std::getenv("DASHI_CACHE_DIR")) {
    const std::string dir(d);
    if (dir.empty() || dir == "off") return std::nullopt;
    return dir;
  }
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x != nullptr && *x != '\0') {
    return std::string(x) + "/dashi";
  }
  if (const char* h = std::getenv("HOME"); h != nullptr && *h != '\0') {
    return std::string(h) + "/.cache/dashi";
  }
  return std::nullopt;
}

VkFftBinaryCache::VkFftBinaryCache(std::string directory, std::string key) : key_(std::move(key)) {
  const std::vector<uint8_t> h = Blake2b128(key_.data(), key_.size());
  path_ = directory + "/vkfft-" + ToHex(h) + ".bin";
}

std::optional<std::vector<uint8_t>> VkFftBinaryCache::Load(std::string* why) const {
  auto miss = [&](const std::string& reason) -> std::optional<std::vector<uint8_t>> {
    if (why != nullptr) *why = reason;
    return std::nullopt;
  };
  std::ifstream in(path_, std::ios::binary);
  if (!in) return miss("no cache file");
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  if (bytes.size() < kHeaderBytes || std::memcmp(bytes.data(), kMagic, 8) != 0) {
    return miss(path_ + ": not a dashi VkFFT cache file");
  }
  uint64_t payload_bytes = 0;
  std::memcpy(&payload_bytes, bytes.data() + 8, 8);
  if (payload_bytes != bytes.size() - kHeaderBytes || payload_bytes % 4 != 0) {
    return miss(path_ + ": truncated or padded (" + std::to_string(bytes.size()) + " bytes)");
  }
  const uint8_t* payload = bytes.data() + kHeaderBytes;
  const std::vector<uint8_t> payload_hash = Blake2b128(payload, payload_bytes);
  if (std::memcmp(payload_hash.data(), bytes.data() + 16, 16) != 0) {
    return miss(path_ + ": payload hash does not match");
  }
  const std::vector<uint8_t> key_hash = Blake2b128(key_.data(), key_.size());
  if (std::memcmp(key_hash.data(), bytes.data() + 32, 16) != 0) {
    return miss(path_ + ": written for another plan");
  }
  return std::vector<uint8_t>(payload, payload + payload_bytes);
}

Status VkFftBinaryCache::Save(const void* payload, uint64_t bytes) const {
  std::error_code ec;
  const std::filesystem::path target(path_);
  std::filesystem::create_directories(target.parent_path(), ec);
  if (ec) return UnavailableError(path_ + ": cannot create the cache directory: " + ec.message());
  const std::string tmp = path_ + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return UnavailableError(tmp + ": cannot write the cache file");
    const std::vector<uint8_t> payload_hash = Blake2b128(payload, bytes);
    const std::vector<uint8_t> key_hash = Blake2b128(key_.data(), key_.size());
    out.write(kMagic, 8);
    out.write(reinterpret_cast<const char*>(&bytes), 8);
    out.write(reinterpret_cast<const char*>(payload_hash.data()), 16);
    out.write(reinterpret_cast<const char*>(key_hash.data()), 16);
    out.write(static_cast<const char*>(payload), static_cast<std::streamsize>(bytes));
    if (!out.flush()) {
      std::filesystem::remove(tmp, ec);
      return UnavailableError(tmp + ": write failed");
    }
  }
  std::filesystem::rename(tmp, target, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    return UnavailableError(path_ + ": rename failed");
  }
  return OkStatus();
}

}  // namespace dashi::vk
