// DigestFile against one-shot Blake2b128 of the bytes, at chunk boundaries where an off-by-one
// would hide (sizes 0, 1, 2^16 - 1, 2^16, 2^16 + 1, 3·2^16 + 5) and tail offsets on both sides.
#include "core_ref/fileio/file_digest.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "core_ref/blake2b/blake2b.h"
#include "core_ref/fileio/atomic_file.h"
#include "core_ref/testing/scratch_dirs.h"

namespace dashi {
namespace {

std::string Hex(const std::vector<uint8_t>& v, size_t from = 0) {
  return ToHex(Blake2b128(v.data() + from, v.size() - from));
}

TEST(FileDigest, MatchesOneShotHashAtChunkBoundaries) {
  const std::string dir = testing::FreshScratchDir("file_digest");
  for (int64_t size : {0, 1, 65535, 65536, 65537, 3 * 65536 + 5}) {
    std::vector<uint8_t> bytes(static_cast<size_t>(size));
    for (int64_t i = 0; i < size; ++i) bytes[i] = static_cast<uint8_t>((i * 131 + 7) >> 3);
    const std::string path = dir + "/f" + std::to_string(size);
    ASSERT_TRUE(WriteFileAtomically(path, bytes).ok());
    for (int64_t off : {int64_t{0}, int64_t{1}, int64_t{128}, int64_t{65536}, size, size + 1}) {
      SCOPED_TRACE("size " + std::to_string(size) + " offset " + std::to_string(off));
      StatusOr<FileDigest> d = DigestFile(path, off, 128);
      ASSERT_TRUE(d.ok()) << d.status().ToString();
      EXPECT_EQ(d->size, size);
      EXPECT_EQ(d->file_blake2b128, Hex(bytes));
      if (off <= size) {
        EXPECT_EQ(d->tail_blake2b128, Hex(bytes, static_cast<size_t>(off)));
      } else {
        EXPECT_EQ(d->tail_blake2b128, "");
      }
      const size_t head = std::min<size_t>(128, bytes.size());
      EXPECT_EQ(d->head, std::vector<uint8_t>(bytes.begin(), bytes.begin() + head));
    }
  }
}

TEST(FileDigest, MissingFileAndDirectoryNameThePath) {
  const std::string dir = testing::FreshScratchDir("file_digest_err");
  StatusOr<FileDigest> d = DigestFile(dir + "/absent");
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), StatusCode::kNotFound);
  EXPECT_NE(d.status().message().find("absent"), std::string::npos);
  d = DigestFile(dir);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace dashi
