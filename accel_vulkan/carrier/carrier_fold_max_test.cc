// CarrierRecorder's smoothing with the max folded in (SmoothWithMax +
// NormalizeAndThresholdFromGroups, the decoder's mask for N ≤ 256) against core_ref's Smooth →
// NormalizeByMaxAbs → PdaThreshold, bit for bit: the normalised field and the carrier. The field's
// largest |value| is moved into every workgroup in turn (a spike of either sign; the smoothing
// keeps the max at the spike), so a fold that skips a workgroup's maximum, or a tree that drops an
// element, gives another max and fails. Shapes with a partial last workgroup and a 2-D dispatch
// (x groups capped) are included.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "accel_vulkan/carrier/carrier_kernels.h"
#include "accel_vulkan/carrier/carrier_recorder.h"
#include "accel_vulkan/command_batch.h"
#include "accel_vulkan/device_buffer.h"
#include "accel_vulkan/testing/vulkan_test.h"
#include "core_ref/carrier/carrier.h"
#include "core_ref/carrier/pda_threshold.h"
#include "core_ref/carrier/smoothing.h"

namespace dashi::vk {
namespace {

using testing::VulkanTest;

class CarrierFoldMaxTest : public VulkanTest {};

// A smooth-ish field in (−1, 1) with one spike of size `spike` at cell `at`.
std::vector<double> Field(GridShape s, int64_t at, double spike) {
  std::vector<double> v(static_cast<size_t>(s.size()));
  for (int64_t k = 0; k < s.size(); ++k) {
    v[static_cast<size_t>(k)] = 0.6 * std::sin(0.37 * static_cast<double>(k)) *
                                std::cos(0.011 * static_cast<double>(k * k % 97));
  }
  v[static_cast<size_t>(at)] = spike;
  return v;
}

void ExpectFoldedMatchesCoreRef(VulkanContext& ctx, GridShape shape,
                                const CarrierKernelOptions& options, SmoothingParams smoothing) {
  StatusOr<std::unique_ptr<CarrierKernels>> kernels = CarrierKernels::Create(ctx, options);
  ASSERT_TRUE(kernels.ok()) << kernels.status().ToString();
  StatusOr<std::unique_ptr<CarrierRecorder>> rec = CarrierRecorder::Create(**kernels, shape);
  ASSERT_TRUE(rec.ok()) << rec.status().ToString();
  ASSERT_TRUE((*rec)->FoldsMax());
  const uint64_t cells = static_cast<uint64_t>(shape.size());
  StatusOr<DeviceBuffer> in = DeviceBuffer::Create(ctx, cells * 8);
  StatusOr<DeviceBuffer> smoothed = DeviceBuffer::Create(ctx, cells * 8);
  StatusOr<DeviceBuffer> normalised = DeviceBuffer::Create(ctx, cells * 8);
  StatusOr<DeviceBuffer> carrier = DeviceBuffer::Create(ctx, cells * 4);
  StatusOr<std::unique_ptr<CommandBatch>> batch = CommandBatch::Create(ctx);
  ASSERT_TRUE(in.ok() && smoothed.ok() && normalised.ok() && carrier.ok() && batch.ok());
  const uint64_t w = options.workgroup_size;
  const uint64_t groups = (cells + w - 1) / w;
  const PdaThresholdParams threshold{0.35};
  for (uint64_t g = 0; g < groups; ++g) {
    // The spike's cell: a different lane of each workgroup (its last cell in the last group).
    const int64_t at = static_cast<int64_t>(std::min(cells - 1, g * w + (g * 7 + 3) % w));
    const double spike = g % 2 == 0 ? 50.0 : -50.0;  // the max after smoothing too
    SCOPED_TRACE("shape " + ToString(shape) + " group " + std::to_string(g) + " cell " +
                 std::to_string(at));
    const std::vector<double> values = Field(shape, at, spike);
    ASSERT_TRUE(in->UploadValues<double>(ctx, values).ok());
    ASSERT_TRUE((*batch)->Begin().ok());
    StatusOr<uint32_t> folded = (*rec)->SmoothWithMax(**batch, *in, *smoothed, smoothing);
    ASSERT_TRUE(folded.ok()) << folded.status().ToString();
    EXPECT_GE(*folded, groups);  // a 2-D dispatch's groups past the end write 0.0
    ASSERT_TRUE((*rec)->NormalizeAndThresholdFromGroups(**batch, *smoothed, *normalised, *carrier,
                                                        threshold, *folded)
                    .ok());
    ASSERT_TRUE((*batch)->SubmitAndWait().ok());
    StatusOr<std::vector<double>> got = normalised->DownloadValues<double>(ctx, cells);
    StatusOr<std::vector<int32_t>> got_cells = carrier->DownloadValues<int32_t>(ctx, cells);
    ASSERT_TRUE(got.ok() && got_cells.ok());

    StatusOr<RealField> f = RealField::FromValues(shape, values);
    ASSERT_TRUE(f.ok());
    StatusOr<RealField> s = Smooth(*f, smoothing);
    ASSERT_TRUE(s.ok());
    const RealField want = NormalizeByMaxAbs(*s);
    StatusOr<Carrier> want_cells = PdaThreshold(want, threshold);
    ASSERT_TRUE(want_cells.ok());
    ASSERT_EQ(0, std::memcmp(got->data(), want.values().data(), cells * 8));
    int mismatches = 0;
    for (uint64_t k = 0; k < cells; ++k) mismatches += (*got_cells)[k] != want_cells->values()[k];
    EXPECT_EQ(mismatches, 0);
  }
}

TEST_F(CarrierFoldMaxTest, EveryWorkgroupsMaximumCounts) {
  const SmoothingParams tri{SmoothingKernel::kTriangle, 2};
  ExpectFoldedMatchesCoreRef(ctx(), {32, 32}, {}, tri);          // 16 full workgroups of 64
  // Partial last workgroup. A triangle kernel keeps the smoothed max on the spike's cell (1/4 of
  // it against 1/8 on a neighbour); a box would spread it evenly over the 3 × 3 block, whose
  // maximum may then lie in another workgroup.
  ExpectFoldedMatchesCoreRef(ctx(), {20, 30}, {}, {SmoothingKernel::kTriangle, 1});
  ExpectFoldedMatchesCoreRef(ctx(), {12, 12}, {24, 65535}, tri);  // 6 groups of 24 (not 2^k)
  ExpectFoldedMatchesCoreRef(ctx(), {16, 16}, {16, 5}, tri);     // 16 groups as 5 × 4 (2-D)
}

TEST_F(CarrierFoldMaxTest, RefusedWhereTooManyWorkgroups) {
  StatusOr<std::unique_ptr<CarrierKernels>> kernels = CarrierKernels::Create(ctx(), {});
  ASSERT_TRUE(kernels.ok());
  StatusOr<std::unique_ptr<CarrierRecorder>> rec = CarrierRecorder::Create(**kernels, {512, 512});
  ASSERT_TRUE(rec.ok());
  EXPECT_FALSE((*rec)->FoldsMax());  // 4096 workgroups of 64
  StatusOr<DeviceBuffer> a = DeviceBuffer::Create(ctx(), 512 * 512 * 8);
  StatusOr<DeviceBuffer> b = DeviceBuffer::Create(ctx(), 512 * 512 * 8);
  StatusOr<std::unique_ptr<CommandBatch>> batch = CommandBatch::Create(ctx());
  ASSERT_TRUE(a.ok() && b.ok() && batch.ok());
  ASSERT_TRUE((*batch)->Begin().ok());
  EXPECT_EQ((*rec)->SmoothWithMax(**batch, *a, *b, {}).status().code(),
            StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace dashi::vk
