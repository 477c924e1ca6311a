// CarrierClosure: steps recorded ahead of the fixed point are skipped by the device (the control
// record counts only the steps that ran), a closure deeper than one submission continues in more
// submissions, caps stop it where core_ref stops, the readback holds only what was asked for,
// and misuse is an error. Results are compared with core_ref Closure bit for bit (the full sweep
// is //conformance/carrier). Every test fails on any validation message (VulkanTest).
#include "accel_vulkan/carrier/carrier_closure.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "accel_vulkan/carrier/carrier_closure_control.h"
#include "accel_vulkan/carrier/carrier_kernels.h"
#include "accel_vulkan/carrier/carrier_ops.h"
#include "accel_vulkan/carrier/carrier_recorder.h"
#include "accel_vulkan/command_batch.h"
#include "accel_vulkan/testing/vulkan_test.h"
#include "core_ref/carrier/closure.h"
#include "shaders/carrier/carrier_params.h"

namespace dashi::vk {
namespace {

// A 12×12 square of +1 and a 5×5 square of −1 touching it on a 24×20 grid: with majority (1, 6)
// the square's edges erode from the corners one cell per step, so the closure runs several
// levels deep; annihilation (r = 1) removes the contact zone.
Carrier ErodingSquares() {
  const GridShape shape{24, 20};
  std::vector<int8_t> v(static_cast<size_t>(shape.size()), 0);
  for (int i = 4; i < 16; ++i) {
    for (int j = 2; j < 14; ++j) v[i * 20 + j] = 1;
  }
  for (int i = 16; i < 21; ++i) {
    for (int j = 10; j < 15; ++j) v[i * 20 + j] = -1;
  }
  return *Carrier::FromValues(shape, std::move(v));
}

RealField Ramp(GridShape shape) {
  std::vector<double> v(static_cast<size_t>(shape.size()));
  for (size_t k = 0; k < v.size(); ++k) v[k] = 0.25 + 0.001 * static_cast<double>(k % 97);
  return *RealField::FromValues(shape, std::move(v));
}

ClosureParams ErosionParams(int cap) {
  ClosureParams p;
  p.annihilation.radius = 1;
  p.majority = {1, 6};
  p.max_iterations = cap;
  return p;
}

void ExpectSameLevels(const std::vector<ClosureLevelStats>& got,
                      const std::vector<ClosureLevelStats>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t l = 0; l < want.size(); ++l) {
    EXPECT_EQ(got[l].active_cells, want[l].active_cells) << "level " << l;
    EXPECT_EQ(got[l].mean_abs_field, want[l].mean_abs_field) << "level " << l;
  }
}

class CarrierClosureTest : public testing::VulkanTest {
 protected:
  void SetUp() override {
    VulkanTest::SetUp();
    if (HasFatalFailure()) return;
    auto kernels = CarrierKernels::Create(ctx(), {});
    ASSERT_TRUE(kernels.ok()) << kernels.status().ToString();
    kernels_ = std::move(kernels).value();
    auto rec = CarrierRecorder::Create(*kernels_, carrier_.shape());
    ASSERT_TRUE(rec.ok()) << rec.status().ToString();
    recorder_ = std::move(rec).value();
    auto batch = CommandBatch::Create(ctx(), 0);
    ASSERT_TRUE(batch.ok());
    batch_ = std::move(batch).value();
    s0_ = Upload<int32_t>(std::vector<int32_t>(carrier_.values().begin(), carrier_.values().end()));
    field_ = Upload<double>(std::vector<double>(field_host_.values().begin(),
                                                field_host_.values().end()));
  }
  void TearDown() override {
    s0_.reset();
    field_.reset();
    batch_.reset();
    recorder_.reset();
    kernels_.reset();
    VulkanTest::TearDown();
  }

  template <typename T>
  std::unique_ptr<DeviceBuffer> Upload(const std::vector<T>& values) {
    auto b = DeviceBuffer::Create(ctx(), values.size() * sizeof(T));
    EXPECT_TRUE(b.ok());
    EXPECT_TRUE(b->template UploadValues<T>(ctx(), values).ok());
    return std::make_unique<DeviceBuffer>(std::move(b).value());
  }

  Carrier Fetch(const DeviceBuffer& b) {
    std::vector<int32_t> w = *b.DownloadValues<int32_t>(ctx(), carrier_.values().size());
    std::vector<int8_t> v(w.begin(), w.end());
    return *Carrier::FromValues(carrier_.shape(), std::move(v));
  }

  // Runs the closure in submissions of `per_submission` steps, as CarrierOps and the decoder do;
  // counts the submissions.
  CarrierClosure::Progress Run(CarrierClosure& c, bool read_levels, int* submissions) {
    CarrierClosure::Progress p;
    *submissions = 0;
    EXPECT_TRUE(batch_->Begin().ok());
    EXPECT_TRUE(c.RecordStart(*batch_, *s0_, field_.get(), read_levels).ok());
    while (!p.finished && *submissions < 1000) {
      if (*submissions > 0) {
        EXPECT_TRUE(batch_->Begin().ok());
      }
      EXPECT_TRUE(c.RecordSteps(*batch_, c.steps_per_submission()).ok());
      c.RecordReadback(*batch_);
      EXPECT_TRUE(batch_->SubmitAndWait().ok());
      ++*submissions;
      StatusOr<CarrierClosure::Progress> r = c.ReadSubmission();
      EXPECT_TRUE(r.ok()) << r.status().ToString();
      if (!r.ok()) break;
      p = *r;
    }
    return p;
  }

  const Carrier carrier_ = ErodingSquares();
  const RealField field_host_ = Ramp(carrier_.shape());
  std::unique_ptr<CarrierKernels> kernels_;
  std::unique_ptr<CarrierRecorder> recorder_;
  std::unique_ptr<CommandBatch> batch_;
  std::unique_ptr<DeviceBuffer> s0_, field_;
};

TEST_F(CarrierClosureTest, TheInputIsDeepEnough) {
  StatusOr<ClosureResult> ref = Closure(carrier_, &field_host_, ErosionParams(64));
  ASSERT_TRUE(ref.ok());
  EXPECT_TRUE(ref->reached_fixed_point);
  EXPECT_GE(ref->depth, 4);  // the tests below need closures deeper than their submissions
}

TEST_F(CarrierClosureTest, StepsPastTheFixedPointAreSkippedByTheDevice) {
  const ClosureParams p = ErosionParams(64);
  StatusOr<ClosureResult> ref = Closure(carrier_, &field_host_, p);
  ASSERT_TRUE(ref.ok());
  const int per_submission = ref->depth + 5;
  auto c = CarrierClosure::Create(*recorder_, p, per_submission);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  int submissions = 0;
  const CarrierClosure::Progress progress = Run(**c, true, &submissions);
  EXPECT_EQ(submissions, 1);
  EXPECT_EQ((*c)->steps_recorded(), per_submission);
  EXPECT_TRUE(progress.finished);
  EXPECT_TRUE(progress.reached_fixed_point);
  EXPECT_EQ(progress.depth, ref->depth);
  EXPECT_EQ(progress.steps, ref->depth + 1);
  // The 4 steps after the converging one were empty dispatches: their statistics slots keep
  // RecordStart's all-ones fill, while every step that ran wrote its own.
  std::vector<CarrierTotals> stats =
      *(*c)->statistics().DownloadValues<CarrierTotals>(ctx(), per_submission + 1);
  for (int slot = 0; slot <= per_submission; ++slot) {
    const bool ran = slot <= ref->depth + 1;
    EXPECT_EQ(stats[slot].c1 == ~uint64_t{0}, !ran) << "slot " << slot;
  }
  EXPECT_EQ(Fetch((*c)->fixed_point()), ref->fixed_point);
  ExpectSameLevels((*c)->levels(), ref->levels);
  EXPECT_TRUE((*c)->CheckGuards().ok()) << (*c)->CheckGuards().ToString();
}

TEST_F(CarrierClosureTest, ContinuesAcrossSubmissionsAndStopsAtTheCap) {
  for (int cap : {64, 0, 1, 2, 3}) {
    for (int per_submission : {1, 2, 3}) {
      SCOPED_TRACE("cap " + std::to_string(cap) + ", steps per submission " +
                   std::to_string(per_submission));
      const ClosureParams p = ErosionParams(cap);
      StatusOr<ClosureResult> ref = Closure(carrier_, &field_host_, p);
      ASSERT_TRUE(ref.ok());
      auto c = CarrierClosure::Create(*recorder_, p, per_submission);
      ASSERT_TRUE(c.ok()) << c.status().ToString();
      int submissions = 0;
      const CarrierClosure::Progress progress = Run(**c, true, &submissions);
      // Every step up to the converging one (or the cap's check step) ran, in order.
      const int steps = ref->reached_fixed_point ? ref->depth + 1 : cap + 1;
      EXPECT_EQ(progress.steps, steps);
      EXPECT_EQ(submissions, (steps + per_submission - 1) / per_submission);
      EXPECT_EQ(progress.depth, ref->depth);
      EXPECT_EQ(progress.reached_fixed_point, ref->reached_fixed_point);
      EXPECT_EQ(Fetch((*c)->fixed_point()), ref->fixed_point);
      ExpectSameLevels((*c)->levels(), ref->levels);
    }
  }
}

TEST_F(CarrierClosureTest, ReadsBackOnlyWhatIsAskedFor) {
  const ClosureParams p = ErosionParams(64);
  StatusOr<ClosureResult> ref = Closure(carrier_, &field_host_, p);
  ASSERT_TRUE(ref.ok());
  auto c = CarrierClosure::Create(*recorder_, p, 3);
  ASSERT_TRUE(c.ok());
  int submissions = 0;
  CarrierClosure::Progress progress = Run(**c, false, &submissions);
  EXPECT_EQ(progress.depth, ref->depth);
  EXPECT_TRUE((*c)->levels().empty());
  EXPECT_EQ((*c)->last_readback_bytes(), sizeof(CarrierClosureControl));
  progress = Run(**c, true, &submissions);  // the same closure object, started again
  EXPECT_EQ(progress.depth, ref->depth);
  ExpectSameLevels((*c)->levels(), ref->levels);
  // The last submission's segment: the statistics slots of the steps it recorded, and slot 0
  // (level 0 in the first segment).
  const int64_t last_segment_steps = (*c)->steps_recorded() - 3 * (submissions - 1);
  EXPECT_EQ((*c)->last_readback_bytes(),
            sizeof(CarrierClosureControl) + (last_segment_steps + 1) * sizeof(CarrierTotals));
}

TEST_F(CarrierClosureTest, MisuseIsAnError) {
  ClosureParams bad = ErosionParams(-1);
  StatusOr<std::unique_ptr<CarrierClosure>> c = CarrierClosure::Create(*recorder_, bad, 4);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(c.status().message(), ValidateClosureParams(bad).message());
  EXPECT_EQ(CarrierClosure::Create(*recorder_, ErosionParams(4), 0).status().code(),
            StatusCode::kInvalidArgument);

  c = CarrierClosure::Create(*recorder_, ErosionParams(4), 4);
  ASSERT_TRUE(c.ok());
  ASSERT_TRUE(batch_->Begin().ok());
  EXPECT_EQ((*c)->RecordSteps(*batch_, 1).status().code(), StatusCode::kFailedPrecondition);
  auto small = DeviceBuffer::Create(ctx(), 16);
  ASSERT_TRUE(small.ok());
  EXPECT_EQ((*c)->RecordStart(*batch_, *small, nullptr, false).code(),
            StatusCode::kInvalidArgument);
  DeviceBuffer taken = (*c)->TakeFixedPoint();
  EXPECT_NE(taken.buffer(), VK_NULL_HANDLE);
  EXPECT_EQ((*c)->RecordStart(*batch_, *s0_, nullptr, false).code(),
            StatusCode::kFailedPrecondition);
  ASSERT_TRUE(batch_->SubmitAndWait().ok());  // what was recorded is valid and runs
}

// CarrierOps::Closure with one step per submission equals core_ref (the submit-and-wait API runs
// the same CarrierClosure).
TEST_F(CarrierClosureTest, CarrierOpsClosureInOneStepSubmissions) {
  CarrierOps::Options o;
  o.closure_steps_per_submission = 1;
  auto ops = CarrierOps::Create(ctx(), o);
  ASSERT_TRUE(ops.ok()) << ops.status().ToString();
  o.closure_steps_per_submission = 0;
  EXPECT_EQ(CarrierOps::Create(ctx(), o).status().code(), StatusCode::kInvalidArgument);
  auto dc = (*ops)->Upload(carrier_);
  auto df = (*ops)->Upload(field_host_);
  ASSERT_TRUE(dc.ok() && df.ok());
  StatusOr<ClosureResult> ref = Closure(carrier_, &field_host_, ErosionParams(64));
  auto got = (*ops)->Closure(*dc, &*df, ErosionParams(64));
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->depth, ref->depth);
  EXPECT_TRUE(got->reached_fixed_point);
  EXPECT_EQ(*(*ops)->Download(got->fixed_point), ref->fixed_point);
  ExpectSameLevels(got->levels, ref->levels);
  EXPECT_TRUE((*ops)->CheckGuards(got->fixed_point).ok());
}

}  // namespace
}  // namespace dashi::vk
