// Issue 12 #9: a FIFO given as an input hung forever in open(). Every reader now goes through
// InputFile::Open, which never blocks and refuses anything but a regular file.
#include "core_ref/fileio/input_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "core_ref/fileio/atomic_file.h"
#include "core_ref/npy/npy.h"

namespace dashi {
namespace {

std::string TempDir() {
  const char* t = std::getenv("TEST_TMPDIR");
  return t != nullptr ? t : "/tmp";
}

TEST(InputFile, AFifoIsRefusedWithoutBlocking) {
  const std::string fifo = TempDir() + "/input.fifo";
  ::unlink(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // No writer ever opens the FIFO: a blocking open would hang here (the test's timeout).
  StatusOr<InputFile> f = InputFile::Open(fifo);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(f.status().message().find("not a regular file"), std::string::npos);
  StatusOr<std::vector<uint8_t>> bytes = ReadFileBytes(fifo);
  ASSERT_FALSE(bytes.ok());
  EXPECT_NE(bytes.status().message().find(fifo), std::string::npos);
  StatusOr<NpyArray> npy = ReadNpy(fifo);
  ASSERT_FALSE(npy.ok());
  EXPECT_NE(npy.status().message().find("not a regular file"), std::string::npos);
  ::unlink(fifo.c_str());
}

TEST(InputFile, RegularFilesDirectoriesAndMissingOnes) {
  const std::string path = TempDir() + "/input.bin";
  ASSERT_TRUE(WriteFileAtomically(path, std::string_view("abc")).ok());
  StatusOr<InputFile> f = InputFile::Open(path);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->size(), 3);
  StatusOr<std::vector<uint8_t>> bytes = ReadFileBytes(path);
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(bytes->size(), 3u);
  EXPECT_EQ(InputFile::Open(TempDir()).status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(InputFile::Open(TempDir() + "/missing").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(InputFile::Open("/dev/null").status().code(), StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace dashi
