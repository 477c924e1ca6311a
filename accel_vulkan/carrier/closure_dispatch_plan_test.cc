// PlanClosureDispatch: the shared-memory closure is chosen exactly where its shader's restrictions
// hold (cols a multiple of 32, radii ≤ 15 and ≤ rows, the cap's slots, the shared memory), with
// one word per invocation up to the device's workgroup limit; otherwise the strip-tiled steps where
// their restrictions hold (cols a multiple of 32, radii ≤ 15, a strip's tile in shared memory),
// with the largest strip that fits; otherwise the multi-dispatch path, with the reason in the note.
#include "accel_vulkan/carrier/closure_dispatch_plan.h"

#include <gtest/gtest.h>

namespace dashi::vk {
namespace {

ClosureParams Params(int r_ann, int r_maj, int cap = 64) {
  ClosureParams p;
  p.annihilation.radius = r_ann;
  p.majority = {r_maj, 3};
  p.max_iterations = cap;
  return p;
}

constexpr ClosureDeviceLimits kNvidia{49152, 1024};
constexpr ClosureDeviceLimits kLavapipe{32768, 1024};

TEST(ClosureDispatchPlanTest, DecoderGridsOnTheDevicesWeKnow) {
  // N = 128: 512 words per plane, 8 KiB of planes + 1 KiB of row sums.
  ClosureDispatchPlan p = PlanClosureDispatch({128, 128}, Params(1, 1), kLavapipe,
                                              ClosurePlan::kAuto);
  EXPECT_EQ(p.dispatch, ClosureDispatch::kSharedMemory) << p.note;
  EXPECT_EQ(p.words, 512u);
  EXPECT_EQ(p.rows, 128u);
  EXPECT_EQ(p.workgroup, 512u);
  EXPECT_EQ(p.shared_bytes, SharedClosureBytes(512, 128));
  // N = 256 fits 48 KiB but not 32 KiB; N = 512 fits neither.
  EXPECT_EQ(PlanClosureDispatch({256, 256}, Params(1, 1), kNvidia, ClosurePlan::kAuto).dispatch,
            ClosureDispatch::kSharedMemory);
  p = PlanClosureDispatch({256, 256}, Params(1, 1), kLavapipe, ClosurePlan::kAuto);
  EXPECT_EQ(p.dispatch, ClosureDispatch::kStrips);
  EXPECT_NE(p.note.find("shared memory"), std::string::npos) << p.note;
  EXPECT_EQ(PlanClosureDispatch({512, 512}, Params(1, 1), kNvidia, ClosurePlan::kAuto).dispatch,
            ClosureDispatch::kStrips);
  // N = 1024 and 2048 on NVIDIA's 48 KiB: strips of 4 and 2 rows (the field rows take 32 KiB).
  p = PlanClosureDispatch({1024, 1024}, Params(1, 1), kNvidia, ClosurePlan::kAuto);
  EXPECT_EQ(p.dispatch, ClosureDispatch::kStrips) << p.note;
  EXPECT_EQ(p.rows, 4u);
  EXPECT_EQ(p.words, 32u);
  EXPECT_EQ(p.strips, 256u);
  EXPECT_EQ(p.workgroup, kStripClosureWorkgroup);
  EXPECT_EQ(p.shared_bytes, StripClosureBytes(4, 32, 1, 1));
  p = PlanClosureDispatch({2048, 2048}, Params(1, 1), kNvidia, ClosurePlan::kAuto);
  EXPECT_EQ(p.dispatch, ClosureDispatch::kStrips) << p.note;
  EXPECT_EQ(p.rows, 2u);
  EXPECT_EQ(p.strips, 1024u);
  // Strips asked for: never the one-dispatch closure; a strip count rounded up.
  p = PlanClosureDispatch({100, 128}, Params(1, 1), kNvidia, ClosurePlan::kStrips);
  EXPECT_EQ(p.dispatch, ClosureDispatch::kStrips) << p.note;
  EXPECT_EQ(p.rows, 8u);
  EXPECT_EQ(p.strips, 13u);
  EXPECT_EQ(p.note.rfind("strips: asked for", 0), 0u) << p.note;
  // Asked for.
  p = PlanClosureDispatch({128, 128}, Params(1, 1), kNvidia, ClosurePlan::kMultiDispatch);
  EXPECT_EQ(p.dispatch, ClosureDispatch::kMultiDispatch);
  EXPECT_EQ(p.note, "multi_dispatch: asked for");
}

TEST(ClosureDispatchPlanTest, ShaderRestrictions) {
  auto dispatch = [](GridShape s, const ClosureParams& p) {
    return PlanClosureDispatch(s, p, kNvidia, ClosurePlan::kAuto).dispatch;
  };
  constexpr ClosureDispatch kShared = ClosureDispatch::kSharedMemory;
  constexpr ClosureDispatch kMulti = ClosureDispatch::kMultiDispatch;
  constexpr ClosureDispatch kStrips = ClosureDispatch::kStrips;
  EXPECT_EQ(dispatch({1, 32}, Params(1, 1)), kShared);  // one row: radius 1 ≤ rows
  EXPECT_EQ(dispatch({1, 32}, Params(2, 1)), kStrips);  // radius 2 > rows: strips wrap any rows
  EXPECT_EQ(dispatch({3, 64}, Params(0, 0)), kShared);
  EXPECT_EQ(dispatch({15, 96}, Params(15, 15)), kShared);
  EXPECT_EQ(dispatch({16, 96}, Params(16, 1)), kMulti);
  EXPECT_EQ(dispatch({16, 96}, Params(1, 16)), kMulti);
  EXPECT_EQ(dispatch({32, 31}, Params(1, 1)), kMulti);
  EXPECT_EQ(dispatch({32, 33}, Params(1, 1)), kMulti);
  EXPECT_EQ(dispatch({32, 48}, Params(1, 1)), kMulti);
  EXPECT_EQ(dispatch({32, 32}, Params(1, 1, kSharedClosureMaxIterations)), kShared);
  EXPECT_EQ(dispatch({32, 32}, Params(1, 1, kSharedClosureMaxIterations + 1)), kStrips);
  // The shared-memory budget is inclusive.
  const uint32_t need = static_cast<uint32_t>(SharedClosureBytes(64, 64));
  EXPECT_EQ(PlanClosureDispatch({64, 32}, Params(1, 1), {need, 1024}, ClosurePlan::kAuto).dispatch,
            kShared);
  EXPECT_EQ(
      PlanClosureDispatch({64, 32}, Params(1, 1), {need - 1, 1024}, ClosurePlan::kAuto).dispatch,
      kStrips);
  // The strips' budget too; below a one-row strip, the multi-dispatch path.
  const uint32_t strip1 = static_cast<uint32_t>(StripClosureBytes(1, 1, 1, 1));
  EXPECT_EQ(PlanClosureDispatch({64, 32}, Params(1, 1), {strip1, 1024}, ClosurePlan::kStrips).rows,
            1u);
  EXPECT_EQ(
      PlanClosureDispatch({64, 32}, Params(1, 1), {strip1 - 1, 1024}, ClosurePlan::kStrips)
          .dispatch,
      kMulti);
  EXPECT_EQ(PlanClosureDispatch({64, 32}, Params(1, 1), {1u << 20, 128}, ClosurePlan::kStrips)
                .dispatch,
            kMulti);  // the strip workgroup exceeds the device's
}

TEST(ClosureDispatchPlanTest, WorkgroupIsOneWordPerInvocationWithinTheLimit) {
  auto wg = [](GridShape s, uint32_t max_invocations) {
    return PlanClosureDispatch(s, Params(1, 1), {1u << 20, max_invocations}, ClosurePlan::kAuto)
        .workgroup;
  };
  EXPECT_EQ(wg({1, 32}, 1024), 32u);      // 1 word: one subgroup
  EXPECT_EQ(wg({33, 32}, 1024), 64u);     // 33 words
  EXPECT_EQ(wg({64, 512}, 1024), 1024u);  // 1024 words
  EXPECT_EQ(wg({128, 512}, 1024), 1024u);
  EXPECT_EQ(wg({128, 512}, 256), 256u);
  EXPECT_EQ(wg({128, 512}, 100), 96u);
  EXPECT_EQ(PlanClosureDispatch({32, 32}, Params(1, 1), {1u << 20, 31}, ClosurePlan::kAuto)
                .dispatch,
            ClosureDispatch::kMultiDispatch);
}

}  // namespace
}  // namespace dashi::vk
