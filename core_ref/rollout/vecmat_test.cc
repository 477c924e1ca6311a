#include "core_ref/rollout/vecmat.h"

#include <cmath>
#include <cstring>
#include <iostream>
#include <span>
#include <vector>

#include "core_ref/prng/prng.h"
#include "gtest/gtest.h"

namespace dashi {
namespace {

constexpr VecMatPath kAllPaths[] = {VecMatPath::kBaseline, VecMatPath::kAvx2, VecMatPath::kAvx512};

// Uniform in [-scale, scale) with a spread of exponents, so rounding differences would show.
std::vector<double> RandomValues(Xoshiro256ss& rng, size_t n, double scale) {
  std::vector<double> v(n);
  for (double& x : v) {
    const double u = 2.0 * rng.NextDouble() - 1.0;
    const double e = std::ldexp(1.0, static_cast<int>(rng.NextBelow(21)) - 10);
    x = scale * u * e;
  }
  return v;
}

// A flat left-to-right sum over all i (not the contract): used to show that the order matters.
double FlatSum(std::span<const double> z, std::span<const double> a, int64_t dim, int64_t j) {
  double acc = z[0] * a[j];
  for (int64_t i = 1; i < dim; ++i) acc = acc + z[i] * a[i * dim + j];
  return acc;
}

TEST(VecMatTest, PathNames) {
  EXPECT_EQ(VecMatPathName(VecMatPath::kBaseline), "baseline");
  EXPECT_EQ(VecMatPathName(VecMatPath::kAvx2), "avx2");
  EXPECT_EQ(VecMatPathName(VecMatPath::kAvx512), "avx512f");
  EXPECT_TRUE(VecMatPathAvailable(VecMatPath::kBaseline));
  EXPECT_TRUE(VecMatPathAvailable(BestVecMatPath()));
  std::cout << "best z·A path on this machine: " << VecMatPathName(BestVecMatPath()) << "\n";
}

// The fast kernel on every available path equals the literal contract bit for bit.
TEST(VecMatTest, FastKernelMatchesScalarContractBitForBit) {
  const int64_t dims[] = {1,   2,   3,   7,   8,   9,   63,  64,  65,   127,  128,  129,
                          191, 192, 200, 320, 420, 512, 700, 832, 1000, 1024, 1025, 2049};
  Xoshiro256ss rng(20240601);
  for (int64_t dim : dims) {
    const std::vector<double> z = RandomValues(rng, dim, 3.0);
    const std::vector<double> a = RandomValues(rng, dim * dim, 1.0);
    std::vector<double> want(dim);
    ASSERT_TRUE(CanonicalVecMatScalar(z, a, want).ok());
    for (VecMatPath path : kAllPaths) {
      if (!VecMatPathAvailable(path)) continue;
      std::vector<double> got(dim, -7.0);
      ASSERT_TRUE(CanonicalVecMat(z, a, got, path).ok());
      EXPECT_EQ(std::memcmp(got.data(), want.data(), dim * sizeof(double)), 0)
          << "D = " << dim << ", path " << VecMatPathName(path);
    }
    std::vector<double> best(dim);
    ASSERT_TRUE(CanonicalVecMat(z, a, best).ok());
    EXPECT_EQ(std::memcmp(best.data(), want.data(), dim * sizeof(double)), 0) << "D = " << dim;
  }
}

// A reused workspace (scratch grown and shrunk in use) gives the same bits.
TEST(VecMatTest, WorkspaceReuseAcrossDimensions) {
  Xoshiro256ss rng(7);
  for (VecMatPath path : kAllPaths) {
    if (!VecMatPathAvailable(path)) continue;
    StatusOr<VecMatWorkspace> ws = VecMatWorkspace::Create(path);
    ASSERT_TRUE(ws.ok());
    for (int64_t dim : {2049, 5, 300, 64, 1100}) {
      const std::vector<double> z = RandomValues(rng, dim, 1.0);
      const std::vector<double> a = RandomValues(rng, dim * dim, 1.0);
      std::vector<double> want(dim), got(dim);
      ASSERT_TRUE(CanonicalVecMatScalar(z, a, want).ok());
      ws->Multiply(z.data(), a.data(), dim, got.data());
      EXPECT_EQ(std::memcmp(got.data(), want.data(), dim * sizeof(double)), 0)
          << "D = " << dim << ", path " << VecMatPathName(path);
    }
  }
}

TEST(VecMatTest, HandCheckedPermutationAndDiagonal) {
  // A[0][1] = A[1][2] = A[2][0] = 1: y = (z2, z0, z1) exactly.
  const std::vector<double> perm = {0, 1, 0,  //
                                    0, 0, 1,  //
                                    1, 0, 0};
  const std::vector<double> z = {0.1, -2.5, 1e300};
  std::vector<double> y(3);
  ASSERT_TRUE(CanonicalVecMat(z, perm, y).ok());
  EXPECT_EQ(y, (std::vector<double>{1e300, 0.1, -2.5}));
  ASSERT_TRUE(CanonicalVecMatScalar(z, perm, y).ok());
  EXPECT_EQ(y, (std::vector<double>{1e300, 0.1, -2.5}));

  const std::vector<double> diag = {2, 0, 0,  //
                                    0, -0.5, 0,  //
                                    0, 0, 0.25};
  ASSERT_TRUE(CanonicalVecMat(z, diag, y).ok());
  EXPECT_EQ(y, (std::vector<double>{0.2, 1.25, 2.5e299}));

  // D = 1: a single product.
  const std::vector<double> z1 = {3.0}, a1 = {-0.5};
  std::vector<double> y1(1);
  ASSERT_TRUE(CanonicalVecMat(z1, a1, y1).ok());
  EXPECT_EQ(y1[0], -1.5);
}

// The accumulator starts from the first product, not from +0: a column of products that are all
// −0 sums to −0 (starting from +0 would give +0).
TEST(VecMatTest, NegativeZeroIsKept) {
  for (int64_t dim : {1, 5, 64, 130}) {
    std::vector<double> z(dim, -1.0), a(dim * dim, 0.0), y(dim, 1.0);
    ASSERT_TRUE(CanonicalVecMat(z, a, y).ok());
    for (int64_t j = 0; j < dim; ++j) EXPECT_TRUE(std::signbit(y[j])) << dim << " " << j;
  }
}

// Four chunks (D = 256) with partials p = (1e16, 1, −1e16, 1) in column 0. The contract's tree
// gives (1e16 + 1) + (−1e16 + 1) = 1e16 + (−1e16) = 0 (each "+ 1" rounds away, ties to even);
// a flat left-to-right sum gives ((1e16 + 1) − 1e16) + 1 = 1; the exact value is 2.
TEST(VecMatTest, PairwiseTreeOrderIsTheContract) {
  const int64_t dim = 4 * kRolloutChunk;
  std::vector<double> z(dim, 1.0), a(dim * dim, 0.0), y(dim);
  a[(0 * kRolloutChunk) * dim + 0] = 1e16;
  a[(1 * kRolloutChunk) * dim + 0] = 1.0;
  a[(2 * kRolloutChunk) * dim + 0] = -1e16;
  a[(3 * kRolloutChunk) * dim + 0] = 1.0;
  ASSERT_TRUE(CanonicalVecMat(z, a, y).ok());
  EXPECT_EQ(y[0], 0.0);
  EXPECT_EQ(FlatSum(z, a, dim, 0), 1.0);
  ASSERT_TRUE(CanonicalVecMatScalar(z, a, y).ok());
  EXPECT_EQ(y[0], 0.0);
  for (VecMatPath path : kAllPaths) {
    if (!VecMatPathAvailable(path)) continue;
    ASSERT_TRUE(CanonicalVecMat(z, a, y, path).ok());
    EXPECT_EQ(y[0], 0.0) << VecMatPathName(path);
  }
}

// Three chunks (D = 192) with p = (1, 1e16, −1e16): the odd last partial is carried, so the
// contract computes (1 + 1e16) + (−1e16) = 0, while pairing the last two first would give
// 1 + (1e16 − 1e16) = 1.
TEST(VecMatTest, OddPartialIsCarriedNotPairedEarly) {
  const int64_t dim = 3 * kRolloutChunk;
  std::vector<double> z(dim, 1.0), a(dim * dim, 0.0), y(dim);
  a[(0 * kRolloutChunk) * dim + 5] = 1.0;
  a[(1 * kRolloutChunk) * dim + 5] = 1e16;
  a[(2 * kRolloutChunk) * dim + 5] = -1e16;
  ASSERT_TRUE(CanonicalVecMat(z, a, y).ok());
  EXPECT_EQ(y[5], 0.0);
  const double right_first = 1.0 + (1e16 + -1e16);
  EXPECT_EQ(right_first, 1.0);
}

// The chunk boundary sits between i = 63 and i = 64, and inside a chunk the sum is sequential.
// Column 0: 1e16, 1, 1, −1e16 at i = 0..3 (one chunk): ((1e16 + 1) + 1) − 1e16 = 0, each + 1
//   rounding away (ties to even).
// Column 1: 1e16 at i = 0, ones at i = 62, 63 (still chunk 0), −1e16 at i = 64: p = (1e16, −1e16),
//   total 0.
// Column 2: 1e16 at i = 0, ones at i = 64, 65 and −1e16 at i = 66 (chunk 1): p_1 = 2 − 1e16
//   (exact), total 1e16 + (2 − 1e16) = 2, whereas a flat sum over i gives 0.
TEST(VecMatTest, ChunkBoundaryAtSixtyFour) {
  const int64_t dim = 2 * kRolloutChunk;
  std::vector<double> z(dim, 1.0), a(dim * dim, 0.0), y(dim);
  a[0 * dim + 0] = 1e16;
  a[1 * dim + 0] = 1.0;
  a[2 * dim + 0] = 1.0;
  a[3 * dim + 0] = -1e16;
  a[0 * dim + 1] = 1e16;
  a[62 * dim + 1] = 1.0;
  a[63 * dim + 1] = 1.0;
  a[64 * dim + 1] = -1e16;
  a[0 * dim + 2] = 1e16;
  a[64 * dim + 2] = 1.0;
  a[65 * dim + 2] = 1.0;
  a[66 * dim + 2] = -1e16;
  ASSERT_TRUE(CanonicalVecMat(z, a, y).ok());
  EXPECT_EQ(y[0], 0.0);
  EXPECT_EQ(y[1], 0.0);
  EXPECT_EQ(y[2], 2.0);
  EXPECT_EQ(FlatSum(z, a, dim, 2), 0.0);
  std::vector<double> want(dim);
  ASSERT_TRUE(CanonicalVecMatScalar(z, a, want).ok());
  EXPECT_EQ(std::memcmp(y.data(), want.data(), dim * sizeof(double)), 0);
}

TEST(VecMatTest, RejectsBadShapes) {
  std::vector<double> z(3), a(9), y(3), empty;
  EXPECT_EQ(CanonicalVecMat(empty, empty, empty).code(), StatusCode::kInvalidArgument);
  std::vector<double> a8(8);
  Status s = CanonicalVecMat(z, a8, y);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("8 entries"), std::string::npos) << s.ToString();
  std::vector<double> y2(2);
  EXPECT_EQ(CanonicalVecMat(z, a, y2).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(CanonicalVecMatScalar(z, a8, y).code(), StatusCode::kInvalidArgument);
  // In-place is rejected.
  std::vector<double> buf(3 + 9);
  EXPECT_EQ(CanonicalVecMat(std::span<const double>(buf.data(), 3),
                            std::span<const double>(buf.data() + 3, 9),
                            std::span<double>(buf.data(), 3))
                .code(),
            StatusCode::kInvalidArgument);
}

TEST(VecMatTest, UnavailablePathIsUnimplemented) {
  for (VecMatPath path : kAllPaths) {
    StatusOr<VecMatWorkspace> ws = VecMatWorkspace::Create(path);
    EXPECT_EQ(ws.ok(), VecMatPathAvailable(path));
    if (!ws.ok()) {
      EXPECT_EQ(ws.status().code(), StatusCode::kUnimplemented);
    }
  }
}

}  // namespace
}  // namespace dashi
