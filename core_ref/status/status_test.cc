#include "core_ref/status/status.h"

#include <memory>
#include <string>

#include <gtest/gtest.h>

namespace dashi {
namespace {

TEST(StatusTest, DefaultIsOk) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.ToString(), "OK");
  EXPECT_EQ(s, OkStatus());
}

TEST(StatusTest, ErrorCarriesCodeAndMessage) {
  Status s = InvalidArgumentError("A.npy: shape (10, 12) is not square");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.ToString(), "INVALID_ARGUMENT: A.npy: shape (10, 12) is not square");
}

TEST(StatusTest, OkCodeDropsMessage) {
  Status s(StatusCode::kOk, "ignored");
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.message(), "");
}

TEST(StatusTest, WithPrefixNamesTheInput) {
  Status s = DataLossError("hash mismatch").WithPrefix("golden/a.npy");
  EXPECT_EQ(s.message(), "golden/a.npy: hash mismatch");
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  EXPECT_TRUE(OkStatus().WithPrefix("x").ok());
}

TEST(StatusTest, EveryCodeHasAName) {
  for (StatusCode c : {StatusCode::kOk, StatusCode::kInvalidArgument, StatusCode::kNotFound,
                       StatusCode::kAlreadyExists, StatusCode::kFailedPrecondition,
                       StatusCode::kOutOfRange, StatusCode::kUnimplemented, StatusCode::kInternal,
                       StatusCode::kUnavailable, StatusCode::kDataLoss,
                       StatusCode::kResourceExhausted}) {
    EXPECT_NE(StatusCodeName(c), "UNKNOWN");
  }
}

StatusOr<int> Half(int x) {
  if (x % 2 != 0) return InvalidArgumentError("odd: " + std::to_string(x));
  return x / 2;
}

StatusOr<int> Quarter(int x) {
  DASHI_ASSIGN_OR_RETURN(int h, Half(x));
  DASHI_ASSIGN_OR_RETURN(int q, Half(h));
  return q;
}

Status CheckEven(int x) {
  DASHI_RETURN_IF_ERROR(Half(x).status());
  return OkStatus();
}

TEST(StatusOrTest, ValueAndError) {
  StatusOr<int> a = Half(8);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(*a, 4);
  StatusOr<int> b = Half(3);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().message(), "odd: 3");
}

TEST(StatusOrTest, MacrosPropagate) {
  EXPECT_EQ(*Quarter(8), 2);
  EXPECT_EQ(Quarter(6).status().message(), "odd: 3");
  EXPECT_TRUE(CheckEven(2).ok());
  EXPECT_FALSE(CheckEven(1).ok());
}

TEST(StatusOrTest, OkStatusIsNotAValue) {
  StatusOr<int> s = OkStatus();
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kInternal);
}

TEST(StatusOrTest, MoveOnlyValue) {
  StatusOr<std::unique_ptr<int>> p = std::make_unique<int>(7);
  ASSERT_TRUE(p.ok());
  std::unique_ptr<int> v = std::move(p).value();
  EXPECT_EQ(*v, 7);
}

// Reading the value of an error is a bug that must stop the process with the status in view,
// never return garbage from an empty optional.
TEST(StatusOrDeathTest, ValueOfAnErrorAbortsWithTheStatus) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  StatusOr<int> b = Half(3);
  ASSERT_FALSE(b.ok());
  EXPECT_DEATH((void)b.value(), "StatusOr accessed without a value: INVALID_ARGUMENT: odd: 3");
  EXPECT_DEATH((void)*b, "INVALID_ARGUMENT: odd: 3");
  StatusOr<std::string> s = NotFoundError("x.npy: no such file");
  EXPECT_DEATH((void)s->size(), "NOT_FOUND: x.npy: no such file");
  EXPECT_DEATH((void)std::move(s).value(), "NOT_FOUND: x.npy: no such file");
}

}  // namespace
}  // namespace dashi

#include "core_ref/status/checked_arithmetic.h"

namespace dashi {
namespace {

TEST(CheckedArithmetic, ProductsAndSumsThatWrapAreErrorsNamingWhat) {
  EXPECT_EQ(*CheckedMul(3, 4, "x"), 12);
  EXPECT_EQ(*CheckedMul(-3, 4, "x"), -12);
  StatusOr<int64_t> r = CheckedMul(int64_t{1} << 62, 4, "eval LES steps");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("eval LES steps"), std::string::npos);
  EXPECT_FALSE(CheckedMul(INT64_MIN, -1, "x").ok());
  EXPECT_FALSE(CheckedAdd(INT64_MAX, 1, "x").ok());
  EXPECT_EQ(*CheckedAdd(INT64_MAX - 1, 1, "x"), INT64_MAX);
  EXPECT_EQ(*CheckedBytes(10, 8, 80, "x"), 80);
  StatusOr<int64_t> big = CheckedBytes(11, 8, 80, "frames");
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(big.status().message().find("88 bytes"), std::string::npos);
}

}  // namespace
}  // namespace dashi
