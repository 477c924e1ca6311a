// Unit tests of the carrier types and of each kernel on small hand-made inputs.
#include "core_ref/carrier/carrier.h"

#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "core_ref/carrier/annihilation.h"
#include "core_ref/carrier/closure.h"
#include "core_ref/carrier/defect.h"
#include "core_ref/carrier/fusion.h"
#include "core_ref/carrier/majority.h"
#include "core_ref/carrier/pda_threshold.h"
#include "core_ref/carrier/smoothing.h"
#include "core_ref/carrier/window_sum.h"

namespace dashi {
namespace {

Carrier Make(GridShape shape, std::vector<int8_t> v) {
  StatusOr<Carrier> c = Carrier::FromValues(shape, std::move(v));
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  return *c;
}

TEST(CarrierTest, FactorsAsSupportTimesSign) {
  Carrier c = Make({2, 3}, {1, 0, -1, -1, 0, 1});
  EXPECT_EQ(c.SupportMask(), (std::vector<uint8_t>{1, 0, 1, 1, 0, 1}));
  EXPECT_EQ(c.Signs(), (std::vector<int8_t>{1, 1, -1, -1, 1, 1}));
  EXPECT_EQ(c.SupportCount(), 4);
  StatusOr<Carrier> back = Carrier::FromSupportSign(c.shape(), c.SupportMask(), c.Signs());
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, c);
  EXPECT_EQ(c.AtWrapped(-1, -1), 1);
  EXPECT_EQ(c.AtWrapped(2, 5), -1);
}

TEST(CarrierTest, RejectsBadValuesAndShapes) {
  StatusOr<Carrier> a = Carrier::FromValues({1, 2}, {1, 2});
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(a.status().message().find("index 1"), std::string::npos) << a.status().message();
  EXPECT_FALSE(Carrier::FromValues({2, 2}, {1, 0, 0}).ok());
  EXPECT_FALSE(Carrier::FromValues({0, 2}, {}).ok());
  EXPECT_FALSE(Carrier::FromValues({-1, -2}, {1, 1}).ok());
  EXPECT_FALSE(Carrier::Zeros({int64_t{1} << 20, int64_t{1} << 20}).ok());
  const std::vector<uint8_t> sup{1, 2};
  const std::vector<int8_t> sgn{1, 1};
  EXPECT_FALSE(Carrier::FromSupportSign({1, 2}, sup, sgn).ok());
  const std::vector<uint8_t> sup2{1, 0};
  const std::vector<int8_t> sgn2{1, 0};
  EXPECT_FALSE(Carrier::FromSupportSign({1, 2}, sup2, sgn2).ok());
}

TEST(RealFieldTest, RejectsNonFinite) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  StatusOr<RealField> f = RealField::FromValues({2, 2}, {0, 0, nan, 0});
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("row 1, col 0"), std::string::npos) << f.status().message();
  EXPECT_FALSE(RealField::FromValues({1, 1}, {inf}).ok());
  EXPECT_FALSE(RealField::FromValues({1, 1}, {-inf}).ok());
}

TEST(PdaThresholdTest, AcceptProjectReject) {
  const double tau = 0.25;
  RealField f = *RealField::FromValues(
      {1, 7}, {tau, -tau, std::nextafter(tau, 0.0), std::nextafter(-tau, 0.0), 0.0, 5.0, -5.0});
  StatusOr<Carrier> c = PdaThreshold(f, {tau});
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(std::vector<int8_t>(c->values().begin(), c->values().end()),
            (std::vector<int8_t>{1, -1, 0, 0, 0, 1, -1}));
  EXPECT_FALSE(PdaThreshold(f, {0.0}).ok());
  EXPECT_FALSE(PdaThreshold(f, {-1.0}).ok());
  EXPECT_FALSE(PdaThreshold(f, {std::numeric_limits<double>::quiet_NaN()}).ok());
}

TEST(AnnihilationTest, ZeroesMixedWindowsOnly) {
  // Row: + + 0 - 0 0 0 +  (periodic). r = 1 windows: cell 2 sees {+,0,-} but is 0 already;
  // cell 3 (-) sees {0,-,0} → kept; cell 1 (+) sees {+,+,0} → kept; cell 7 (+) sees {0,+,+}.
  Carrier s = Make({1, 8}, {1, 1, 0, -1, 0, 0, 0, 1});
  EXPECT_EQ(*Annihilate(s, {1}), s);
  // Move the - next to the +: cells 1 and 2 annihilate.
  Carrier t = Make({1, 8}, {1, 1, -1, 0, 0, 0, 0, 1});
  EXPECT_EQ(*Annihilate(t, {1}), Make({1, 8}, {1, 0, 0, 0, 0, 0, 0, 1}));
  EXPECT_EQ(*Annihilate(t, {0}), t);
  EXPECT_FALSE(Annihilate(t, {-1}).ok());
  EXPECT_FALSE(Annihilate(t, {kMaxWindowRadius + 1}).ok());
}

TEST(MajorityTest, KeepsAgreeingCells) {
  // 3×3 torus, r = 1: every window is the whole grid. Sum = 3 − 1 = 2.
  Carrier s = Make({3, 3}, {1, 1, 1, -1, 0, 0, 0, 0, 0});
  EXPECT_EQ(*Majority(s, {1, 1}), Make({3, 3}, {1, 1, 1, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(*Majority(s, {1, 2}), Make({3, 3}, {1, 1, 1, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(*Majority(s, {1, 3}), *Carrier::Zeros({3, 3}));
  // η ≤ −(2r+1)^2 keeps everything.
  EXPECT_EQ(*Majority(s, {1, -9}), s);
}

TEST(DefectTest, CountsOppositeSignEdges) {
  // 2×3:  + - 0
  //       - + +
  Carrier s = Make({2, 3}, {1, -1, 0, -1, 1, 1});
  // Horizontal forward edges (wrap): (+,-)1 (-,0)0 (0,+)0 | (-,+)1 (+,+)0 (+,-)1 → 3.
  // Vertical forward edges (2 rows: down and wrap both hit the other row): each column's pair is
  // counted from both rows: (+,-)×2 (-,+)×2 (0,+)×2 → 4.
  EXPECT_EQ(Defect(s, Neighbourhood::kFour), 7);
  EXPECT_EQ(Defect(*Carrier::Zeros({4, 4})), 0);
  // A checkerboard on a 4×4 torus: every 4-edge is defective, no diagonal one is.
  std::vector<int8_t> cb(16);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) cb[i * 4 + j] = ((i + j) % 2) ? 1 : -1;
  EXPECT_EQ(Defect(Make({4, 4}, cb), Neighbourhood::kFour), 32);
  EXPECT_EQ(Defect(Make({4, 4}, cb), Neighbourhood::kEight), 32);
  // 1×1: the self-loops never count.
  EXPECT_EQ(Defect(Make({1, 1}, {-1}), Neighbourhood::kEight), 0);
}

TEST(FusionTest, MajorityAndTieRule) {
  // 3 channels × 4 cells, channel-major.
  const std::vector<int8_t> ch = {1, 1, -1, 0,    //
                                  1, -1, -1, 0,   //
                                  -1, 0, 1, 0};
  StatusOr<Carrier> f = FuseMajority(ch, 3, {1, 4});
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  // sums: 1, 0 (tie), -1, 0
  EXPECT_EQ(*f, Make({1, 4}, {1, 0, -1, 0}));
  EXPECT_FALSE(FuseMajority(ch, 2, {1, 4}).ok());
  EXPECT_FALSE(FuseMajority(ch, 0, {1, 4}).ok());
  const std::vector<int8_t> bad = {1, 2};
  EXPECT_FALSE(FuseMajority(bad, 1, {1, 2}).ok());
}

TEST(SmoothingTest, IdentityConstantAndMass) {
  RealField f = *RealField::FromValues({3, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  EXPECT_EQ(*Smooth(f, {SmoothingKernel::kBox, 0}), f);
  EXPECT_EQ(*Smooth(f, {SmoothingKernel::kTriangle, 0}), f);
  RealField c = *RealField::FromValues({5, 3}, std::vector<double>(15, 0.75));
  for (auto k : {SmoothingKernel::kBox, SmoothingKernel::kTriangle}) {
    for (int r : {1, 2, 7}) {
      RealField s = *Smooth(c, {k, r});
      for (double x : s.values()) EXPECT_NEAR(x, 0.75, 1e-15);
      // Periodic smoothing preserves the total.
      RealField g = *Smooth(f, {k, r});
      double a = 0, b = 0;
      for (double x : f.values()) a += x;
      for (double x : g.values()) b += x;
      EXPECT_NEAR(a, b, 1e-12);
    }
  }
}

TEST(SmoothingTest, MatchesDirectTwoDimensionalSum) {
  RealField f = *RealField::FromValues({4, 5}, {0.3, -1, 2, 0.5, 7, 1, 1, -3, 2, 0.25,
                                                4, -2, 0, 1, 1, 9, -0.5, 0.125, 3, -1});
  for (auto k : {SmoothingKernel::kBox, SmoothingKernel::kTriangle}) {
    for (int r : {1, 2, 3}) {
      RealField s = *Smooth(f, {k, r});
      auto w = [&](int d) { return k == SmoothingKernel::kBox ? 1.0 : double(r + 1 - std::abs(d)); };
      const double total = k == SmoothingKernel::kBox ? 2.0 * r + 1 : double(r + 1) * (r + 1);
      for (int i = 0; i < 4; ++i) {
        for (int j = 0; j < 5; ++j) {
          long double acc = 0;
          for (int di = -r; di <= r; ++di)
            for (int dj = -r; dj <= r; ++dj)
              acc += (long double)w(di) * w(dj) * f.at(WrapIndex(i + di, 4), WrapIndex(j + dj, 5));
          EXPECT_NEAR(s.at(i, j), static_cast<double>(acc / (total * total)), 1e-14);
        }
      }
    }
  }
}

TEST(SmoothingTest, NormalizeByMaxAbs) {
  RealField f = *RealField::FromValues({1, 3}, {-4, 2, 1});
  RealField n = NormalizeByMaxAbs(f);
  EXPECT_EQ(n.at(0, 0), -1.0);
  EXPECT_EQ(n.at(0, 1), 0.5);
  RealField z = *RealField::FromValues({1, 2}, {0, 0});
  EXPECT_EQ(NormalizeByMaxAbs(z), z);
}

TEST(ClosureTest, ReportsDepthAndLevels) {
  // A + blob with one − intruder; r_ann = 1, majority r = 1 η = 1.
  Carrier s = Make({5, 5}, {0, 0, 0, 0, 0,   //
                            0, 1, 1, 1, 0,   //
                            0, 1, -1, 1, 0,  //
                            0, 1, 1, 1, 0,   //
                            0, 0, 0, 0, 0});
  RealField f = *RealField::FromValues({5, 5}, std::vector<double>(25, -0.5));
  ClosureParams p;
  p.annihilation.radius = 1;
  p.majority = {1, 1};
  StatusOr<ClosureResult> r = Closure(s, &f, p);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->reached_fixed_point);
  ASSERT_EQ(r->levels.size(), static_cast<size_t>(r->depth) + 1);
  EXPECT_EQ(r->levels[0].active_cells, 9);
  EXPECT_EQ(r->levels[0].mean_abs_field, 0.5);
  // Majority removes the − (its window sums to +7); then nothing is mixed: depth 1, 8 cells.
  EXPECT_EQ(r->depth, 1);
  EXPECT_EQ(r->levels[1].active_cells, 8);
  EXPECT_EQ(*ClosureStep(r->fixed_point, p), r->fixed_point);

  RealField wrong = *RealField::FromValues({5, 4}, std::vector<double>(20, 0.0));
  EXPECT_FALSE(Closure(s, &wrong, p).ok());
  p.max_iterations = -1;
  EXPECT_FALSE(Closure(s, nullptr, p).ok());
}

TEST(ClosureTest, CapIsReported) {
  // A carrier that needs at least one change, with a cap of 0 iterations.
  Carrier s = Make({1, 3}, {1, -1, 0});
  ClosureParams p;
  p.max_iterations = 0;
  StatusOr<ClosureResult> r = Closure(s, nullptr, p);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->reached_fixed_point);
  EXPECT_EQ(r->depth, 0);
  EXPECT_EQ(r->fixed_point, s);
}

}  // namespace
}  // namespace dashi
