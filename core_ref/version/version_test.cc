#include "core_ref/version/version.h"

#include <string>

#include <gtest/gtest.h>

namespace dashi {
namespace {

TEST(VersionTest, ReferenceVersionNamesTheReference) {
  EXPECT_EQ(std::string(kReferenceVersion).rfind("dashi-ref ", 0), 0u);
}

// The compiler string must name the compiler that built this test, with a version number in it.
TEST(VersionTest, CompilerVersionNamesThisCompiler) {
  const std::string v = CompilerVersion();
#if defined(__clang__)
  EXPECT_EQ(v.rfind("clang ", 0), 0u) << v;
#elif defined(__GNUC__)
  EXPECT_EQ(v.rfind("gcc ", 0), 0u) << v;
  EXPECT_NE(v.find(std::to_string(__GNUC__) + "."), std::string::npos) << v;
#endif
  EXPECT_NE(v.find_first_of("0123456789"), std::string::npos) << v;
}

}  // namespace
}  // namespace dashi
