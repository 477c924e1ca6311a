// BLAKE2b (RFC 7693), portable and endian-independent: digests of 1..64 bytes, optional key of
// 0..64 bytes, streaming (Blake2b) or one-shot (Blake2bDigest, Blake2b128), plus lowercase ToHex.
// Blake2b128 (16-byte digest) is dashi's hash of an array's raw little-endian bytes in C order.
//
//   std::string h = ToHex(Blake2b128(values.data(), values.size() * sizeof(double)));
//
//   StatusOr<Blake2b> b = Blake2b::Create(32, key);
//   if (!b.ok()) return b.status();
//   b->Update(header); b->Update(payload.data(), payload.size());
//   std::vector<uint8_t> digest = b->Finalize();
#ifndef DASHI_CORE_REF_BLAKE2B_BLAKE2B_H_
#define DASHI_CORE_REF_BLAKE2B_BLAKE2B_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core_ref/status/status.h"

namespace dashi {

// Streaming BLAKE2b hasher (sequential mode: fanout 1, depth 1, no salt or personalization).
class Blake2b {
 public:
  static constexpr size_t kBlockBytes = 128;
  static constexpr size_t kMaxDigestBytes = 64;
  static constexpr size_t kMaxKeyBytes = 64;

  // InvalidArgumentError when digest_bytes is 0 or > 64, or key.size() > 64.
  static StatusOr<Blake2b> Create(size_t digest_bytes, std::span<const uint8_t> key = {});

  // Appends message bytes; any split of a message into Update calls gives the same digest.
  void Update(std::span<const uint8_t> data);
  // Same as above; `data` may be null when n == 0.
  void Update(const void* data, size_t n);

  // Returns the digest (digest_bytes() bytes) of everything appended so far. Does not change the
  // state: calling it again returns the same digest, and further Updates continue the message.
  std::vector<uint8_t> Finalize() const;

  size_t digest_bytes() const { return digest_bytes_; }

 private:
  explicit Blake2b(size_t digest_bytes) : digest_bytes_(digest_bytes) {}

  uint64_t h_[8] = {};              // chain value
  uint64_t t_[2] = {};              // 128-bit byte counter (low, high) of compressed input
  uint8_t buf_[kBlockBytes] = {};   // pending input, not yet compressed (up to one full block)
  size_t buf_len_ = 0;
  size_t digest_bytes_ = 0;
};

// BLAKE2b with a 16-byte digest, unkeyed: dashi's hash of arrays and of the rollout hash chain.
// `data` may be null when n == 0.
std::vector<uint8_t> Blake2b128(const void* data, size_t n);

// One-shot BLAKE2b; same argument checks as Blake2b::Create.
StatusOr<std::vector<uint8_t>> Blake2bDigest(size_t digest_bytes, std::span<const uint8_t> data,
                                             std::span<const uint8_t> key = {});

// Lowercase hexadecimal, two characters per byte ("" for no bytes).
std::string ToHex(std::span<const uint8_t> bytes);

}  // namespace dashi

#endif  // DASHI_CORE_REF_BLAKE2B_BLAKE2B_H_
