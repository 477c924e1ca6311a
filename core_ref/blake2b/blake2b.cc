#include "core_ref/blake2b/blake2b.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace dashi {
namespace {

// RFC 7693 section 2.6: the SHA-512 initialization vector.
constexpr uint64_t kIv[8] = {
    0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL, 0x3c6ef372fe94f82bULL, 0xa54ff53a5f1d36f1ULL,
    0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL, 0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL,
};

// RFC 7693 section 2.7: message word schedule; rounds 10 and 11 reuse rows 0 and 1.
constexpr uint8_t kSigma[12][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4},
    {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13},
    {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11},
    {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5},
    {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
};

inline uint64_t RotR64(uint64_t x, unsigned n) { return (x >> n) | (x << (64 - n)); }

// Little-endian load by bytes: independent of the host's byte order and alignment.
inline uint64_t Load64Le(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<uint64_t>(p[i]);
  return v;
}

inline void G(uint64_t v[16], int a, int b, int c, int d, uint64_t x, uint64_t y) {
  v[a] = v[a] + v[b] + x;
  v[d] = RotR64(v[d] ^ v[a], 32);
  v[c] = v[c] + v[d];
  v[b] = RotR64(v[b] ^ v[c], 24);
  v[a] = v[a] + v[b] + y;
  v[d] = RotR64(v[d] ^ v[a], 16);
  v[c] = v[c] + v[d];
  v[b] = RotR64(v[b] ^ v[c], 63);
}

// RFC 7693 section 3.2: compression function F.
void Compress(uint64_t h[8], const uint64_t t[2], const uint8_t block[Blake2b::kBlockBytes],
              bool last) {
  uint64_t m[16];
  for (int i = 0; i < 16; ++i) m[i] = Load64Le(block + 8 * i);
  uint64_t v[16];
  for (int i = 0; i < 8; ++i) {
    v[i] = h[i];
    v[i + 8] = kIv[i];
  }
  v[12] ^= t[0];
  v[13] ^= t[1];
  if (last) v[14] = ~v[14];
  for (int r = 0; r < 12; ++r) {
    const uint8_t* s = kSigma[r];
    G(v, 0, 4, 8, 12, m[s[0]], m[s[1]]);
    G(v, 1, 5, 9, 13, m[s[2]], m[s[3]]);
    G(v, 2, 6, 10, 14, m[s[4]], m[s[5]]);
    G(v, 3, 7, 11, 15, m[s[6]], m[s[7]]);
    G(v, 0, 5, 10, 15, m[s[8]], m[s[9]]);
    G(v, 1, 6, 11, 12, m[s[10]], m[s[11]]);
    G(v, 2, 7, 8, 13, m[s[12]], m[s[13]]);
    G(v, 3, 4, 9, 14, m[s[14]], m[s[15]]);
  }
  for (int i = 0; i < 8; ++i) h[i] ^= v[i] ^ v[i + 8];
}

// Adds n (at most one block) to the 128-bit byte counter.
inline void AddToCounter(uint64_t t[2], size_t n) {
  t[0] += static_cast<uint64_t>(n);
  if (t[0] < static_cast<uint64_t>(n)) ++t[1];
}

}  // namespace

StatusOr<Blake2b> Blake2b::Create(size_t digest_bytes, std::span<const uint8_t> key) {
  if (digest_bytes == 0 || digest_bytes > kMaxDigestBytes) {
    return InvalidArgumentError("BLAKE2b: digest length " + std::to_string(digest_bytes) +
                                " bytes is not in 1..64");
  }
  if (key.size() > kMaxKeyBytes) {
    return InvalidArgumentError("BLAKE2b: key length " + std::to_string(key.size()) +
                                " bytes is not in 0..64");
  }
  Blake2b b(digest_bytes);
  for (int i = 0; i < 8; ++i) b.h_[i] = kIv[i];
  // Parameter block word 0: digest length, key length, fanout 1, depth 1.
  b.h_[0] ^= 0x01010000ULL ^ (static_cast<uint64_t>(key.size()) << 8) ^
             static_cast<uint64_t>(digest_bytes);
  if (!key.empty()) {
    // The key, zero-padded to a full block, is the first block of the message.
    std::memcpy(b.buf_, key.data(), key.size());
    b.buf_len_ = kBlockBytes;
  }
  return b;
}

void Blake2b::Update(std::span<const uint8_t> data) {
  const uint8_t* p = data.data();
  size_t n = data.size();
  while (n > 0) {
    // The final block must be compressed with the "last" flag, so a full buffer is only
    // compressed once more input is known to follow.
    if (buf_len_ == kBlockBytes) {
      AddToCounter(t_, kBlockBytes);
      Compress(h_, t_, buf_, false);
      buf_len_ = 0;
    }
    if (buf_len_ == 0 && n > kBlockBytes) {
      AddToCounter(t_, kBlockBytes);
      Compress(h_, t_, p, false);
      p += kBlockBytes;
      n -= kBlockBytes;
      continue;
    }
    const size_t take = std::min(kBlockBytes - buf_len_, n);
    std::memcpy(buf_ + buf_len_, p, take);
    buf_len_ += take;
    p += take;
    n -= take;
  }
}

void Blake2b::Update(const void* data, size_t n) {
  if (n == 0) return;
  Update(std::span<const uint8_t>(static_cast<const uint8_t*>(data), n));
}

std::vector<uint8_t> Blake2b::Finalize() const {
  uint64_t h[8];
  uint64_t t[2] = {t_[0], t_[1]};
  uint8_t block[kBlockBytes] = {};
  std::memcpy(h, h_, sizeof(h));
  if (buf_len_ > 0) std::memcpy(block, buf_, buf_len_);
  AddToCounter(t, buf_len_);
  Compress(h, t, block, true);
  std::vector<uint8_t> out(digest_bytes_);
  for (size_t i = 0; i < digest_bytes_; ++i) {
    out[i] = static_cast<uint8_t>(h[i / 8] >> (8 * (i % 8)));  // little-endian store
  }
  return out;
}

std::vector<uint8_t> Blake2b128(const void* data, size_t n) {
  StatusOr<Blake2b> b = Blake2b::Create(16);  // 16 is always valid
  b->Update(data, n);
  return b->Finalize();
}

StatusOr<std::vector<uint8_t>> Blake2bDigest(size_t digest_bytes, std::span<const uint8_t> data,
                                             std::span<const uint8_t> key) {
  DASHI_ASSIGN_OR_RETURN(Blake2b b, Blake2b::Create(digest_bytes, key));
  b.Update(data);
  return b.Finalize();
}

std::string ToHex(std::span<const uint8_t> bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  s.reserve(2 * bytes.size());
  for (uint8_t byte : bytes) {
    s.push_back(kDigits[byte >> 4]);
    s.push_back(kDigits[byte & 0xf]);
  }
  return s;
}

}  // namespace dashi
