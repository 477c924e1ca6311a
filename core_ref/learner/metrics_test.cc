#include "core_ref/learner/metrics.h"

#include <cmath>
#include <limits>
#include <vector>

#include "gtest/gtest.h"

namespace dashi {
namespace {

TEST(MetricsTest, RelativeL2ErrorPerStep) {
  // Step 0 exact, step 1 predicted zero (error 1), step 2 off by (0, 5) on (3, 4) → 5/5 = 1,
  // step 3 off by (0.3, 0.4) on (3, 4) → 0.5/5.
  const std::vector<double> truth = {3, 4, 3, 4, 3, 4, 3, 4};
  const std::vector<double> pred = {3, 4, 0, 0, 3, 9, 3.3, 4.4};
  StatusOr<std::vector<double>> e = RelativeL2ErrorPerStep(pred, truth, 4, 2);
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  ASSERT_EQ(e->size(), 4u);
  EXPECT_EQ((*e)[0], 0.0);
  EXPECT_EQ((*e)[1], 1.0);
  EXPECT_EQ((*e)[2], 1.0);
  EXPECT_NEAR((*e)[3], 0.1, 1e-15);
}

TEST(MetricsTest, RelativeErrorRejects) {
  const std::vector<double> t = {0, 0, 1, 1}, p = {1, 1, 1, 1};
  Status s = RelativeL2ErrorPerStep(p, t, 2, 2).status();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("step 0"), std::string::npos) << s.ToString();
  EXPECT_EQ(RelativeL2ErrorPerStep(p, t, 3, 2).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RelativeL2ErrorPerStep(p, std::vector<double>{1, 1, 1}, 2, 2).status().code(),
            StatusCode::kInvalidArgument);
  std::vector<double> bad = p;
  bad[1] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(RelativeL2ErrorPerStep(bad, p, 2, 2).status().code(), StatusCode::kInvalidArgument);
}

TEST(MetricsTest, PearsonExactCases) {
  const std::vector<double> x = {1, 2, 3};
  StatusOr<double> r = PearsonCorrelation(x, std::vector<double>{2, 4, 6});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, 1.0);
  r = PearsonCorrelation(x, std::vector<double>{-1, -2, -3});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, -1.0);
  // x = (1, 2, 3, 4), y = (1, 3, 2, 4): sxy = 4, sxx = syy = 5 → r = 0.8.
  r = PearsonCorrelation(std::vector<double>{1, 2, 3, 4}, std::vector<double>{1, 3, 2, 4});
  ASSERT_TRUE(r.ok());
  EXPECT_NEAR(*r, 0.8, 1e-15);
}

TEST(MetricsTest, PearsonRejects) {
  const std::vector<double> x = {1, 2, 3};
  EXPECT_EQ(PearsonCorrelation(x, std::vector<double>{5, 5, 5}).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(PearsonCorrelation(x, std::vector<double>{1, 2}).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(PearsonCorrelation(std::vector<double>{1}, std::vector<double>{1}).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(MetricsTest, PearsonPerStep) {
  const std::vector<double> truth = {1, 2, 3, 1, 2, 3};
  const std::vector<double> pred = {2, 4, 6, 3, 2, 1};
  StatusOr<std::vector<double>> r = PearsonCorrelationPerStep(pred, truth, 2, 3);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, (std::vector<double>{1.0, -1.0}));
  EXPECT_EQ(PearsonCorrelationPerStep(pred, truth, 6, 1).status().code(),
            StatusCode::kInvalidArgument);
  const std::vector<double> flat = {1, 2, 3, 7, 7, 7};
  Status s = PearsonCorrelationPerStep(flat, truth, 2, 3).status();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("step 1"), std::string::npos) << s.ToString();
}

}  // namespace
}  // namespace dashi
