// --max-memory's size parser and the memory check (issue 12 #6).
#include "tools/cli_util.h"

#include <gtest/gtest.h>

namespace dashi::tools {
namespace {

TEST(ParseByteSize, DecimalWithBinaryUnits) {
  EXPECT_EQ(*ParseByteSize("", "--max-memory"), 0);
  EXPECT_EQ(*ParseByteSize("1000", "--max-memory"), 1000);
  EXPECT_EQ(*ParseByteSize("512M", "--max-memory"), int64_t{512} << 20);
  EXPECT_EQ(*ParseByteSize("8GiB", "--max-memory"), int64_t{8} << 30);
  EXPECT_EQ(*ParseByteSize("2T", "--max-memory"), int64_t{2} << 40);
  for (const char* bad : {"G", "-1", "1.5G", "0x10", "8 G", "8g", "10X", "9223372036854775808",
                          "9000000T"}) {
    StatusOr<int64_t> r = ParseByteSize(bad, "--max-memory");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("--max-memory"), std::string_view::npos);
  }
}

// `--max-disk 0` silently meant "no limit" (the value of an absent flag): a zero limit is refused.
TEST(ParseByteSize, ZeroIsRefusedNotNoLimit) {
  for (const char* zero : {"0", "0G", "000KiB"}) {
    StatusOr<int64_t> r = ParseByteSize(zero, "--max-disk");
    ASSERT_FALSE(r.ok()) << zero;
    EXPECT_NE(r.status().message().find("--max-disk '" + std::string(zero) +
                                        "': a limit of 0 bytes"),
              std::string_view::npos)
        << r.status().ToString();
  }
  EXPECT_EQ(*ParseByteSize("1", "--max-disk"), 1);
}

TEST(CheckMemoryEstimate, TheFlagIsTheLimitWhenGiven) {
  EXPECT_TRUE(CheckMemoryEstimate(100, "the x", 100).ok());
  Status st = CheckMemoryEstimate(int64_t{3} << 30, "the x", int64_t{1} << 30);
  EXPECT_EQ(st.code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(CheckMemoryEstimate(int64_t{1} << 62, "the x").code(),
            StatusCode::kResourceExhausted) << "more than any machine has";
  // The caller's hint closes the message; none without one.
  EXPECT_EQ(st.message(), "the x needs an estimated 3.0 GiB, more than --max-memory 1.0 GiB");
  st = CheckMemoryEstimate(int64_t{3} << 30, "the x", int64_t{1} << 30, "reduce --n");
  EXPECT_EQ(st.message(),
            "the x needs an estimated 3.0 GiB, more than --max-memory 1.0 GiB (reduce --n)");
  // --max-memory 1K read "0.00 GiB": each size in the unit that fits it.
  st = CheckMemoryEstimate(int64_t{43} << 20, "the x", 1024);
  EXPECT_EQ(st.message(), "the x needs an estimated 43.0 MiB, more than --max-memory 1.0 KiB");
  EXPECT_EQ(CheckMemoryEstimate(2000, "the x", 1000).message(),
            "the x needs an estimated 2.0 KiB, more than --max-memory 1000 B");
}

}  // namespace
}  // namespace dashi::tools
