// The one-dispatch closure (ClosureDispatch::kSharedMemory, carrier_closure_shared.comp) against
// core_ref Closure, bit for bit — fixed point, depth, flag, every level's active cells and mean
// |field| — over the shapes where its bugs live (one row, rows = radius, one word per row, 2^k ± 1
// rows, several words per row, N = 128), the radii it takes (0, 1, 2, 15), η of both signs, caps
// 0, 1, 2, 64, with and without a field, and the edge carriers (empty, full, all +1, a
// checkerboard that annihilates completely, a carrier that does not converge before the cap).
// The same closures through the multi-dispatch path (asked for, or taken because the columns
// are not a multiple of 32) and the strip-tiled steps (the grid does not fit the shared memory
// allowed) give the same results. Random inputs print the seed that replays them (ReplayTag).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "accel_vulkan/carrier/carrier_closure.h"
#include "accel_vulkan/carrier/carrier_ops.h"
#include "accel_vulkan/carrier/closure_dispatch_plan.h"
#include "accel_vulkan/carrier/closure_test_inputs.h"
#include "accel_vulkan/testing/vulkan_test.h"
#include "core_ref/carrier/closure.h"
#include "core_ref/testing/random_inputs.h"

namespace dashi::vk {
namespace {

using dashi::testing::BlobCarrier;
using dashi::testing::RandomCarrier;
using dashi::testing::RandomField;
using dashi::testing::ReplayTag;

using closure_test::Describe;
using closure_test::Params;
using closure_test::Pattern;

class CarrierClosureSharedTest : public testing::VulkanTest {
 protected:
  std::unique_ptr<CarrierOps> Ops(ClosurePlan plan, uint32_t max_shared_bytes = 0,
                                  uint32_t max_invocations = 0) {
    CarrierOps::Options o;
    o.closure_plan = plan;
    o.closure_max_shared_bytes = max_shared_bytes;
    o.closure_max_invocations = max_invocations;
    o.closure_steps_per_submission = 3;
    auto ops = CarrierOps::Create(ctx(), o);
    EXPECT_TRUE(ops.ok()) << ops.status().ToString();
    return ops.ok() ? std::move(ops).value() : nullptr;
  }

  // closure_test::ExpectSameAsReference with this path's error value.
  ClosureDispatch ExpectSameAsReference(CarrierOps& ops, const Carrier& c, const RealField* field,
                                        const ClosureParams& p) {
    return closure_test::ExpectSameAsReference(ops, c, field, p, ClosureDispatch::kMultiDispatch);
  }
};

TEST_F(CarrierClosureSharedTest, RandomCarriersMatchTheReference) {
  auto ops = Ops(ClosurePlan::kAuto);
  ASSERT_NE(ops, nullptr);
  const std::vector<GridShape> shapes = {{1, 32},  {2, 32},  {3, 64},  {15, 32},  {31, 32},
                                         {32, 32}, {33, 64}, {17, 160}, {64, 96}, {128, 128}};
  uint64_t seed = 91000;
  int deepest = 0;
  for (const GridShape s : shapes) {
    for (int kind = 0; kind < 2; ++kind) {
      ++seed;
      SCOPED_TRACE(ReplayTag(seed, s) + (kind == 0 ? " blob" : " noise"));
      const Carrier c = kind == 0 ? BlobCarrier(s, seed, 0.25) : RandomCarrier(s, seed, 0.3);
      const RealField field = RandomField(s, seed + 7, 3.0);
      for (const ClosureParams& p :
           {Params(1, 1, 3, 64), Params(1, 1, 2, 64), Params(1, 1, 4, 2), Params(0, 1, 1, 64),
            Params(2, 1, 5, 64), Params(1, 2, 6, 64), Params(1, 1, -1, 1), Params(1, 0, 1, 0)}) {
        if (std::max(p.annihilation.radius, p.majority.radius) > s.rows) continue;
        const bool with_field = (p.majority.eta + p.max_iterations) % 2 == 0;
        EXPECT_EQ(ExpectSameAsReference(*ops, c, with_field ? &field : nullptr, p),
                  ClosureDispatch::kSharedMemory);
        if (!HasFailure()) deepest = std::max(deepest, Closure(c, nullptr, p)->depth);
      }
    }
  }
  EXPECT_GE(deepest, 4);  // the sweep reaches closures several levels deep
}

// r_m = 1 takes the bit-parallel majority (window counts as bit planes, v·S ≥ η as a comparison
// of bit-plane sums with η + 15): every margin from below −9 (every cell kept) to above 9 (none),
// on one-word rows (the word is its own left and right neighbour), rows = 1 and 2 (the row is its
// own neighbour above and below) and several words per row.
TEST_F(CarrierClosureSharedTest, BitParallelMajorityOverEveryMargin) {
  auto ops = Ops(ClosurePlan::kAuto);
  ASSERT_NE(ops, nullptr);
  const std::vector<GridShape> shapes = {{1, 32}, {2, 64}, {9, 32}, {24, 96}, {40, 128}};
  uint64_t seed = 93000;
  for (const GridShape s : shapes) {
    ++seed;
    SCOPED_TRACE(ReplayTag(seed, s));
    const Carrier dense = RandomCarrier(s, seed, 0.1);
    const Carrier blobs = BlobCarrier(s, seed + 1, 0.4);
    const RealField field = RandomField(s, seed + 7, 3.0);
    for (int eta : {-12, -10, -9, -8, -3, 0, 1, 2, 5, 7, 8, 9, 10, 1000}) {
      for (int r_ann : {0, 1}) {
        const ClosureParams p = Params(r_ann, 1, eta, 6);
        EXPECT_EQ(ExpectSameAsReference(*ops, dense, &field, p), ClosureDispatch::kSharedMemory);
        EXPECT_EQ(ExpectSameAsReference(*ops, blobs, nullptr, p), ClosureDispatch::kSharedMemory);
      }
    }
  }
}

TEST_F(CarrierClosureSharedTest, SeveralWordsPerInvocationMatchTheReference) {
  // A 32-invocation workgroup: every grid below has more words than invocations, so the shader
  // takes the path whose row sums read the field each step (not the register-held values).
  auto ops = Ops(ClosurePlan::kAuto, 0, 32);
  ASSERT_NE(ops, nullptr);
  const std::vector<GridShape> shapes = {{2, 32 * 17}, {33, 64}, {64, 96}, {128, 128}};
  uint64_t seed = 93000;
  for (const GridShape s : shapes) {
    ++seed;
    SCOPED_TRACE(ReplayTag(seed, s));
    const Carrier c = BlobCarrier(s, seed, 0.25);
    const RealField field = RandomField(s, seed + 7, 3.0);
    for (const ClosureParams& p : {Params(1, 1, 3, 64), Params(1, 1, 2, 64), Params(2, 1, 5, 64)}) {
      if (std::max(p.annihilation.radius, p.majority.radius) > s.rows) continue;
      EXPECT_EQ(ExpectSameAsReference(*ops, c, &field, p), ClosureDispatch::kSharedMemory);
    }
  }
}

TEST_F(CarrierClosureSharedTest, EdgeCarriersAndLargeRadii) {
  auto ops = Ops(ClosurePlan::kAuto);
  ASSERT_NE(ops, nullptr);
  for (const GridShape s : {GridShape{1, 32}, GridShape{15, 64}, GridShape{40, 96}}) {
    const RealField field = RandomField(s, 555, 2.0);
    for (int kind = 0; kind < 5; ++kind) {
      SCOPED_TRACE(ToString(s) + " pattern " + std::to_string(kind));
      for (const ClosureParams& p : {Params(1, 1, 3, 64), Params(15, 1, 1, 64),
                                     Params(1, 15, 30, 64), Params(0, 0, 1, 64)}) {
        if (std::max(p.annihilation.radius, p.majority.radius) > s.rows) continue;
        EXPECT_EQ(ExpectSameAsReference(*ops, Pattern(s, kind), &field, p),
                  ClosureDispatch::kSharedMemory);
      }
    }
  }
}

// Majority with η = 7 on a +1 square with holes erodes it ring by ring: the cap stops it before
// the fixed point, the check step runs and the last iterate is s*. A long line runs deeper than
// the levels read back with the submission.
TEST_F(CarrierClosureSharedTest, TheCapStopsALongClosure) {
  auto ops = Ops(ClosurePlan::kAuto);
  ASSERT_NE(ops, nullptr);
  const GridShape s{64, 64};
  std::vector<int8_t> v(static_cast<size_t>(s.size()), 0);
  for (int i = 4; i < 60; ++i) {
    for (int j = 4; j < 60; ++j) v[i * 64 + j] = ((i * j) % 17 == 0) ? 0 : 1;
  }
  const Carrier c = *Carrier::FromValues(s, std::move(v));
  const RealField field = RandomField(s, 77, 1.0);
  for (int cap : {0, 1, 2, 3, 5, 64}) {
    const ClosureParams p = Params(1, 1, 7, cap);
    EXPECT_EQ(ExpectSameAsReference(*ops, c, &field, p), ClosureDispatch::kSharedMemory);
  }
  // A line of 60 cells loses its two end cells per step under M(1, 3): 30 levels, deeper than
  // the levels the readback copies (CarrierClosure::kSharedReadbackSlots); the rest are
  // downloaded by ReadSubmission.
  std::vector<int8_t> line(static_cast<size_t>(s.size()), 0);
  for (int j = 2; j < 62; ++j) line[10 * 64 + j] = -1;
  const Carrier deep = *Carrier::FromValues(s, std::move(line));
  for (int cap : {64, 20}) {
    EXPECT_EQ(ExpectSameAsReference(*ops, deep, &field, Params(1, 1, 3, cap)),
              ClosureDispatch::kSharedMemory);
  }
  EXPECT_GE(Closure(deep, nullptr, Params(1, 1, 3, 64))->depth,
            CarrierClosure::kSharedReadbackSlots);
}

TEST_F(CarrierClosureSharedTest, FallbackPathsGiveTheSameResults) {
  const GridShape s{32, 64};
  const Carrier c = BlobCarrier(s, 4242, 0.25);
  const RealField field = RandomField(s, 4243, 1.0);
  const ClosureParams p = Params(1, 1, 3, 64);
  auto asked = Ops(ClosurePlan::kMultiDispatch);
  auto small = Ops(ClosurePlan::kAuto, /*max_shared_bytes=*/1024);
  ASSERT_NE(asked, nullptr);
  ASSERT_NE(small, nullptr);
  EXPECT_EQ(ExpectSameAsReference(*asked, c, &field, p), ClosureDispatch::kMultiDispatch);
  // The grid past the budget: the strip-tiled steps (carrier_closure_strip_test.cc).
  EXPECT_EQ(ExpectSameAsReference(*small, c, &field, p), ClosureDispatch::kStrips);
  // Columns that are not a multiple of 32, radii above 15: the multi-dispatch path.
  auto ops = Ops(ClosurePlan::kAuto);
  ASSERT_NE(ops, nullptr);
  const GridShape odd{33, 33};
  EXPECT_EQ(ExpectSameAsReference(*ops, BlobCarrier(odd, 1, 0.25), nullptr, p),
            ClosureDispatch::kMultiDispatch);
  EXPECT_EQ(ExpectSameAsReference(*ops, c, nullptr, Params(16, 1, 3, 64)),
            ClosureDispatch::kMultiDispatch);
}

// The recorded plan: one dispatch covering every step, its note, the readback of every slot.
TEST_F(CarrierClosureSharedTest, RecordsOneDispatchForTheWholeClosure) {
  auto kernels = CarrierKernels::Create(ctx(), {});
  ASSERT_TRUE(kernels.ok());
  auto rec = CarrierRecorder::Create(**kernels, {32, 32});
  ASSERT_TRUE(rec.ok());
  const ClosureParams p = Params(1, 1, 3, 10);
  auto c = CarrierClosure::Create(**rec, p, 4);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ((*c)->dispatch(), ClosureDispatch::kSharedMemory) << (*c)->dispatch_plan().note;
  EXPECT_NE((*c)->dispatch_plan().note.find("shared_memory"), std::string::npos);
  auto batch = CommandBatch::Create(ctx(), 0);
  ASSERT_TRUE(batch.ok());
  const Carrier s0 = BlobCarrier({32, 32}, 9, 0.25);
  auto in = DeviceBuffer::Create(ctx(), 32 * 32 * 4);
  ASSERT_TRUE(in.ok());
  ASSERT_TRUE(
      in->UploadValues<int32_t>(ctx(), std::vector<int32_t>(s0.values().begin(),
                                                            s0.values().end()))
          .ok());
  ASSERT_TRUE((*batch)->Begin().ok());
  ASSERT_TRUE((*c)->RecordStart(**batch, *in, nullptr, true).ok());
  EXPECT_EQ(*(*c)->RecordSteps(**batch, 1), 11);  // every step up to the cap's check step
  EXPECT_EQ(*(*c)->RecordSteps(**batch, 1), 0);   // nothing more to record
  (*c)->RecordReadback(**batch);
  EXPECT_EQ((*c)->last_readback_bytes(),
            sizeof(CarrierClosureControl) + 12 * sizeof(CarrierTotals));
  ASSERT_TRUE((*batch)->SubmitAndWait().ok());
  auto progress = (*c)->ReadSubmission();
  ASSERT_TRUE(progress.ok()) << progress.status().ToString();
  const ClosureResult ref = *Closure(s0, nullptr, p);
  EXPECT_TRUE(progress->finished);
  EXPECT_EQ(progress->depth, ref.depth);
  EXPECT_EQ(progress->steps, ref.reached_fixed_point ? ref.depth + 1 : 11);
  // Slots past the last step run keep RecordStart's all-ones fill.
  std::vector<CarrierTotals> stats = *(*c)->statistics().DownloadValues<CarrierTotals>(ctx(), 12);
  for (int slot = 0; slot < 12; ++slot) {
    EXPECT_EQ(stats[slot].c1 == ~uint64_t{0}, slot > progress->steps) << "slot " << slot;
  }
  EXPECT_TRUE((*c)->CheckGuards().ok());
}

}  // namespace
}  // namespace dashi::vk
