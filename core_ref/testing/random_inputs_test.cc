// The generators replay: the same seed gives the same bits, every value is drawn by the stated
// formula from Xoshiro256** (so seeds printed before the generators moved here still replay), and
// the ranges and the never-zero promise hold.
#include "core_ref/testing/random_inputs.h"

#include <cmath>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "core_ref/prng/prng.h"

namespace dashi::testing {
namespace {

bool SameBits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

TEST(RandomInputsTest, UniformValuesFollowTheFormulaAndReplay) {
  Xoshiro256ss rng(42);
  const std::vector<double> v = UniformValues(1000, 42, 3.5);
  for (double x : v) {
    const double u = rng.NextDouble();
    ASSERT_EQ(x, (2.0 * u - 1.0) * 3.5);
    ASSERT_GE(x, -3.5);
    ASSERT_LT(x, 3.5);
  }
  EXPECT_TRUE(SameBits(v, UniformValues(1000, 42, 3.5)));
  EXPECT_FALSE(SameBits(v, UniformValues(1000, 43, 3.5)));
  // The rng overload continues the sequence: two halves equal one draw of the whole.
  Xoshiro256ss halves(42);
  std::vector<double> first = UniformValues(halves, 400, 3.5);
  const std::vector<double> second = UniformValues(halves, 600, 3.5);
  first.insert(first.end(), second.begin(), second.end());
  EXPECT_TRUE(SameBits(first, v));
}

TEST(RandomInputsTest, NonZeroUniformIsNeverZeroAndHasBothSigns) {
  const std::vector<double> v = NonZeroUniform(4096, 7, 2.0);
  int negative = 0;
  for (double x : v) {
    ASSERT_GE(std::fabs(x), 1.0);
    ASSERT_LT(std::fabs(x), 2.0);
    negative += x < 0;
  }
  EXPECT_GT(negative, 1800);
  EXPECT_LT(negative, 2300);
  EXPECT_TRUE(SameBits(v, NonZeroUniform(4096, 7, 2.0)));
}

TEST(RandomInputsTest, MatricesAreScaledByTheirDimension) {
  const double scale = 0.9 / std::sqrt(10.0);  // D = 10: 100 entries
  EXPECT_TRUE(SameBits(StableMatrix(10, 5), UniformValues(100, 5, scale)));
  EXPECT_TRUE(SameBits(DecayingMatrix(10, 5), NonZeroUniform(100, 5, scale)));
}

TEST(RandomInputsTest, CarriersAndFieldsReplay) {
  const GridShape shape{17, 33};
  const Carrier a = RandomCarrier(shape, 9, 0.3);
  EXPECT_EQ(a, RandomCarrier(shape, 9, 0.3));
  EXPECT_EQ(RandomCarrier(shape, 9, 1.0).SupportCount(), 0);
  EXPECT_EQ(RandomCarrier(shape, 9, 0.0).SupportCount(), shape.size());
  const RealField f = RandomField(shape, 9, 2.0);
  EXPECT_TRUE(SameBits({f.values().begin(), f.values().end()},
                       UniformValues(static_cast<size_t>(shape.size()), 9, 2.0)));
  const Carrier blob = BlobCarrier(shape, 9, 0.2);
  EXPECT_EQ(blob, BlobCarrier(shape, 9, 0.2));
  EXPECT_GT(blob.SupportCount(), 0);
  EXPECT_EQ(ReplayTag(9, shape), "seed=9 shape=" + ToString(shape));
}

}  // namespace
}  // namespace dashi::testing
