// Error paths of CarrierOps (bad parameters, shape mismatches, short or missing buffers: all
// INVALID_ARGUMENT, as core_ref reports them), the guard-word check, and the ops the tiny-workgroup
// conformance cases (carrier.dispatch.w5.*) leave out. The device-vs-reference comparison of every
// op lives in //conformance/carrier.
#include "accel_vulkan/carrier/carrier_ops.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "accel_vulkan/testing/vulkan_test.h"
#include "core_ref/carrier/annihilation.h"
#include "core_ref/carrier/closure.h"
#include "core_ref/carrier/defect.h"
#include "core_ref/carrier/fusion.h"
#include "core_ref/carrier/majority.h"
#include "core_ref/carrier/pda_threshold.h"
#include "core_ref/carrier/smoothing.h"
#include "core_ref/carrier/window_sum.h"

namespace dashi::vk {
namespace {

#define ASSERT_OK_AND_ASSIGN_IMPL(var, expr, tmp)                    \
  auto tmp = (expr);                                                 \
  ASSERT_TRUE(tmp.ok()) << #expr << ": " << tmp.status().ToString(); \
  var = std::move(tmp).value()
#define ASSERT_OK_AND_ASSIGN_CAT2(a, b) a##b
#define ASSERT_OK_AND_ASSIGN_CAT(a, b) ASSERT_OK_AND_ASSIGN_CAT2(a, b)
#define ASSERT_OK_AND_ASSIGN(var, expr) \
  ASSERT_OK_AND_ASSIGN_IMPL(var, expr, ASSERT_OK_AND_ASSIGN_CAT(status_or_, __LINE__))

template <typename T>
StatusCode CodeOf(const StatusOr<T>& s) {
  return s.status().code();
}

class CarrierOpsTest : public testing::VulkanTest {
 protected:
  void SetUp() override {
    VulkanTest::SetUp();
    if (HasFatalFailure()) return;
    StatusOr<std::unique_ptr<CarrierOps>> ops = CarrierOps::Create(ctx());
    ASSERT_TRUE(ops.ok()) << ops.status().ToString();
    ops_ = std::move(ops).value();
  }
  void TearDown() override {
    ops_.reset();  // before the context
    VulkanTest::TearDown();
  }

  Carrier TestCarrier(GridShape shape) {
    std::vector<int8_t> v(static_cast<size_t>(shape.size()));
    for (size_t k = 0; k < v.size(); ++k)
      v[k] = static_cast<int8_t>(static_cast<int>(k * 7 % 3) - 1);
    return *Carrier::FromValues(shape, std::move(v));
  }
  RealField TestField(GridShape shape) {
    std::vector<double> v(static_cast<size_t>(shape.size()));
    for (size_t k = 0; k < v.size(); ++k) v[k] = std::sin(0.37 * static_cast<double>(k)) * 1.5;
    return *RealField::FromValues(shape, std::move(v));
  }

  std::unique_ptr<CarrierOps> ops_;
};

TEST_F(CarrierOpsTest, BadOptionsAreInvalidArgument) {
  CarrierOps::Options o;
  o.workgroup_size = 0;
  EXPECT_EQ(CodeOf(CarrierOps::Create(ctx(), o)), StatusCode::kInvalidArgument);
  o.workgroup_size = 1u << 20;
  EXPECT_EQ(CodeOf(CarrierOps::Create(ctx(), o)), StatusCode::kInvalidArgument);
  o = {};
  o.max_groups_x = 0;
  EXPECT_EQ(CodeOf(CarrierOps::Create(ctx(), o)), StatusCode::kInvalidArgument);
}

TEST_F(CarrierOpsTest, BadPdaThresholdIsInvalidArgument) {
  ASSERT_OK_AND_ASSIGN(DeviceField f, ops_->Upload(TestField({4, 5})));
  for (double tau : {0.0, -0.5, std::numeric_limits<double>::quiet_NaN(),
                     std::numeric_limits<double>::infinity()}) {
    SCOPED_TRACE(tau);
    StatusOr<DeviceCarrier> r = ops_->PdaThreshold(f, {tau});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(r.status().message(), ValidatePdaThresholdParams({tau}).message());
  }
}

TEST_F(CarrierOpsTest, BadRadiiAreInvalidArgument) {
  ASSERT_OK_AND_ASSIGN(DeviceCarrier s, ops_->Upload(TestCarrier({4, 5})));
  ASSERT_OK_AND_ASSIGN(DeviceField f, ops_->Upload(TestField({4, 5})));
  for (int r : {-1, kMaxWindowRadius + 1}) {
    SCOPED_TRACE(r);
    StatusOr<DeviceCarrier> a = ops_->Annihilate(s, {r});
    ASSERT_FALSE(a.ok());
    EXPECT_EQ(a.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(a.status().message(), ValidateAnnihilationParams({r}).message());
    StatusOr<DeviceCarrier> m = ops_->Majority(s, {r, 1});
    ASSERT_FALSE(m.ok());
    EXPECT_EQ(m.status().message(), ValidateMajorityParams({r, 1}).message());
    EXPECT_EQ(CodeOf(ops_->Smooth(f, {SmoothingKernel::kBox, r})), StatusCode::kInvalidArgument);
    EXPECT_EQ(CodeOf(ops_->Smooth(f, {SmoothingKernel::kTriangle, r})),
              StatusCode::kInvalidArgument);
    ClosureParams cp;
    cp.majority.radius = r;
    EXPECT_EQ(CodeOf(ops_->ClosureStep(s, cp)), StatusCode::kInvalidArgument);
    EXPECT_EQ(CodeOf(ops_->Closure(s, nullptr, cp)), StatusCode::kInvalidArgument);
    cp = {};
    cp.annihilation.radius = r;
    EXPECT_EQ(CodeOf(ops_->ClosureStep(s, cp)), StatusCode::kInvalidArgument);
    EXPECT_EQ(CodeOf(ops_->Closure(s, nullptr, cp)), StatusCode::kInvalidArgument);
  }
  EXPECT_EQ(CodeOf(ops_->Smooth(f, {static_cast<SmoothingKernel>(7), 1})),
            StatusCode::kInvalidArgument);
}

TEST_F(CarrierOpsTest, ClosureParamsAndFieldShapeAreChecked) {
  ASSERT_OK_AND_ASSIGN(DeviceCarrier s, ops_->Upload(TestCarrier({4, 5})));
  ASSERT_OK_AND_ASSIGN(DeviceField f54, ops_->Upload(TestField({5, 4})));
  ClosureParams cp;
  cp.max_iterations = -1;
  StatusOr<CarrierOps::DeviceClosure> r = ops_->Closure(s, nullptr, cp);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(), ValidateClosureParams(cp).message());
  // ClosureStep, like core_ref's, does not look at the cap.
  EXPECT_TRUE(ops_->ClosureStep(s, cp).ok());
  cp = {};
  r = ops_->Closure(s, &f54, cp);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("differs from carrier shape"), std::string::npos)
      << r.status().message();
}

TEST_F(CarrierOpsTest, FusionArgumentsAreChecked) {
  ASSERT_OK_AND_ASSIGN(DeviceCarrier a, ops_->Upload(TestCarrier({4, 5})));
  ASSERT_OK_AND_ASSIGN(DeviceCarrier b, ops_->Upload(TestCarrier({5, 4})));
  EXPECT_EQ(CodeOf(ops_->FuseMajority({})), StatusCode::kInvalidArgument);
  const DeviceCarrier* mismatched[] = {&a, &b};
  StatusOr<DeviceCarrier> r = ops_->FuseMajority(mismatched);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("shape"), std::string::npos);
  const DeviceCarrier* with_null[] = {&a, nullptr};
  EXPECT_EQ(CodeOf(ops_->FuseMajority(with_null)), StatusCode::kInvalidArgument);

  // Channel-major: k out of range, a short buffer, and a value outside {-1, 0, +1}.
  const GridShape shape{4, 5};
  std::vector<int32_t> values(3 * 20, 1);
  values[47] = 2;
  ASSERT_OK_AND_ASSIGN(DeviceBuffer buf, DeviceBuffer::Create(ctx(), values.size() * 4));
  ASSERT_TRUE(buf.UploadValues<int32_t>(ctx(), values).ok());
  EXPECT_EQ(CodeOf(ops_->FuseMajorityChannelMajor(buf, 0, shape)), StatusCode::kInvalidArgument);
  EXPECT_EQ(CodeOf(ops_->FuseMajorityChannelMajor(buf, kMaxFusionChannels + 1, shape)),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(CodeOf(ops_->FuseMajorityChannelMajor(buf, 4, shape)), StatusCode::kInvalidArgument);
  EXPECT_EQ(CodeOf(ops_->FuseMajorityChannelMajor(buf, 1, {0, 5})), StatusCode::kInvalidArgument);
  StatusOr<DeviceCarrier> bad = ops_->FuseMajorityChannelMajor(buf, 3, shape);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("outside"), std::string::npos);
  // The first two channels are valid: fusion succeeds and every cell is +1.
  ASSERT_OK_AND_ASSIGN(DeviceCarrier good, ops_->FuseMajorityChannelMajor(buf, 2, shape));
  ASSERT_OK_AND_ASSIGN(Carrier g, ops_->Download(good));
  for (int8_t v : g.values()) EXPECT_EQ(v, 1);
}

TEST_F(CarrierOpsTest, BadNeighbourhoodIsInvalidArgument) {
  ASSERT_OK_AND_ASSIGN(DeviceCarrier s, ops_->Upload(TestCarrier({4, 5})));
  EXPECT_EQ(CodeOf(ops_->Defect(s, static_cast<Neighbourhood>(6))), StatusCode::kInvalidArgument);
  EXPECT_TRUE(ops_->Defect(s, Neighbourhood::kFour).ok());
}

TEST_F(CarrierOpsTest, MalformedDeviceOperandsAreInvalidArgument) {
  // A buffer too small for its declared shape.
  ASSERT_OK_AND_ASSIGN(DeviceBuffer small, DeviceBuffer::Create(ctx(), 16));
  DeviceCarrier short_carrier{{4, 5}, std::move(small)};
  EXPECT_EQ(CodeOf(ops_->Annihilate(short_carrier, {1})), StatusCode::kInvalidArgument);
  EXPECT_EQ(CodeOf(ops_->Majority(short_carrier, {1, 1})), StatusCode::kInvalidArgument);
  EXPECT_EQ(CodeOf(ops_->Defect(short_carrier, Neighbourhood::kFour)),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(CodeOf(ops_->Download(short_carrier)), StatusCode::kInvalidArgument);
  ASSERT_OK_AND_ASSIGN(DeviceBuffer small_f, DeviceBuffer::Create(ctx(), 16));
  DeviceField short_field{{4, 5}, std::move(small_f)};
  EXPECT_EQ(CodeOf(ops_->Smooth(short_field, {})), StatusCode::kInvalidArgument);
  EXPECT_EQ(CodeOf(ops_->NormalizeByMaxAbs(short_field)), StatusCode::kInvalidArgument);
  EXPECT_EQ(CodeOf(ops_->PdaThreshold(short_field, {0.5})), StatusCode::kInvalidArgument);

  // An invalid shape.
  ASSERT_OK_AND_ASSIGN(DeviceCarrier s, ops_->Upload(TestCarrier({4, 5})));
  s.shape = {0, 5};
  EXPECT_EQ(CodeOf(ops_->Annihilate(s, {1})), StatusCode::kInvalidArgument);
  s.shape = {-3, 5};
  EXPECT_EQ(CodeOf(ops_->Defect(s, Neighbourhood::kEight)), StatusCode::kInvalidArgument);

  // A moved-from carrier has no buffer.
  ASSERT_OK_AND_ASSIGN(DeviceCarrier t, ops_->Upload(TestCarrier({4, 5})));
  DeviceCarrier moved = std::move(t);
  EXPECT_EQ(CodeOf(ops_->Majority(t, {1, 1})),
            StatusCode::kInvalidArgument);  // NOLINT(bugprone-use-after-move)
  EXPECT_TRUE(ops_->Majority(moved, {1, 1}).ok());

  // Device values that are not a carrier / not finite are rejected on download.
  const std::vector<int32_t> five(20, 5);
  ASSERT_OK_AND_ASSIGN(DeviceBuffer b5, DeviceBuffer::Create(ctx(), 80));
  ASSERT_TRUE(b5.UploadValues<int32_t>(ctx(), five).ok());
  DeviceCarrier fives{{4, 5}, std::move(b5)};
  EXPECT_EQ(CodeOf(ops_->Download(fives)), StatusCode::kInvalidArgument);
  const std::vector<double> nans(20, std::numeric_limits<double>::quiet_NaN());
  ASSERT_OK_AND_ASSIGN(DeviceBuffer bn, DeviceBuffer::Create(ctx(), 160));
  ASSERT_TRUE(bn.UploadValues<double>(ctx(), nans).ok());
  DeviceField nan_field{{4, 5}, std::move(bn)};
  EXPECT_EQ(CodeOf(ops_->Download(nan_field)), StatusCode::kInvalidArgument);
}

TEST_F(CarrierOpsTest, GuardsAreCheckedAndCorruptionIsDetected) {
  ASSERT_OK_AND_ASSIGN(DeviceCarrier s, ops_->Upload(TestCarrier({3, 7})));
  EXPECT_TRUE(ops_->CheckGuards(s).ok());
  ASSERT_OK_AND_ASSIGN(DeviceCarrier a, ops_->Annihilate(s, {1}));
  EXPECT_TRUE(ops_->CheckGuards(a).ok());
  const int32_t junk[] = {12345};
  ASSERT_TRUE(a.cells.UploadValues<int32_t>(ctx(), junk, 21 * 4 + 40).ok());
  const Status st = ops_->CheckGuards(a);
  EXPECT_EQ(st.code(), StatusCode::kDataLoss) << st.ToString();
  // A buffer without a guard region cannot be checked.
  ASSERT_OK_AND_ASSIGN(DeviceBuffer exact, DeviceBuffer::Create(ctx(), 21 * 4));
  DeviceCarrier bare{{3, 7}, std::move(exact)};
  EXPECT_EQ(ops_->CheckGuards(bare).code(), StatusCode::kFailedPrecondition);
}

// The ops without a carrier.dispatch.* case (normalisation, the 8-neighbourhood defect, the whole
// closure with its level statistics) against core_ref with a tiny workgroup and x-group cap, so
// even this small grid takes the 2-D dispatch path. (PDA, annihilation, majority and smoothing
// with tiny workgroups: the carrier.dispatch.w5.* cases.)
TEST_F(CarrierOpsTest, TinyWorkgroupsMatchTheReference) {
  CarrierOps::Options o;
  o.workgroup_size = 4;
  o.max_groups_x = 3;
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<CarrierOps> ops, CarrierOps::Create(ctx(), o));
  const GridShape shape{9, 7};
  const Carrier c = TestCarrier(shape);
  const RealField f = TestField(shape);
  ASSERT_OK_AND_ASSIGN(DeviceCarrier s, ops->Upload(c));
  ASSERT_OK_AND_ASSIGN(DeviceField df, ops->Upload(f));
  ASSERT_OK_AND_ASSIGN(DeviceField nf, ops->NormalizeByMaxAbs(df));
  ASSERT_OK_AND_ASSIGN(RealField nf_host, ops->Download(nf));
  EXPECT_EQ(nf_host, NormalizeByMaxAbs(f));
  ASSERT_OK_AND_ASSIGN(DeviceCarrier p, ops->PdaThreshold(df, {0.4}));
  ASSERT_OK_AND_ASSIGN(Carrier p_host, ops->Download(p));
  ASSERT_OK_AND_ASSIGN(int64_t d8, ops->Defect(s, Neighbourhood::kEight));
  EXPECT_EQ(d8, Defect(c, Neighbourhood::kEight));
  ClosureParams cp;
  cp.majority = {1, 2};
  ASSERT_OK_AND_ASSIGN(CarrierOps::DeviceClosure cl, ops->Closure(p, &df, cp));
  StatusOr<ClosureResult> ref = Closure(p_host, &f, cp);
  ASSERT_TRUE(ref.ok());
  ASSERT_OK_AND_ASSIGN(Carrier fp, ops->Download(cl.fixed_point));
  EXPECT_EQ(fp, ref->fixed_point);
  EXPECT_EQ(cl.depth, ref->depth);
  EXPECT_EQ(cl.reached_fixed_point, ref->reached_fixed_point);
  ASSERT_EQ(cl.levels.size(), ref->levels.size());
  for (size_t l = 0; l < cl.levels.size(); ++l) {
    EXPECT_EQ(cl.levels[l].active_cells, ref->levels[l].active_cells) << l;
    EXPECT_EQ(cl.levels[l].mean_abs_field, ref->levels[l].mean_abs_field) << l;
  }
  EXPECT_TRUE(ops->CheckGuards(cl.fixed_point).ok());
  EXPECT_TRUE(ops->CheckGuards(nf).ok());
}

}  // namespace
}  // namespace dashi::vk
