// The strip-tiled closure (ClosureDispatch::kStrips: carrier_closure_strip.comp for each step's
// M, K_ann and row partials, carrier_closure_reduce.comp for the rows' reduction and the control)
// against core_ref Closure, bit for bit — fixed point, depth, flag, every level's active cells
// and mean |field| — with strips of 1, 2, 4 and 8 rows (the shared-memory budget picks them),
// grids whose rows are not a multiple of the strip (a last strip partly outside), grids shorter
// than the halo (rows wrapped several times), one word per row, the radii it takes (0, 1, 2, 15),
// η of both signs, caps 0 .. 64 with closures longer than a submission's steps (segments), with
// and without a field, and the edge carriers. Random inputs print the seed that replays them.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
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

class CarrierClosureStripTest : public testing::VulkanTest {
 protected:
  // Strips asked for; `max_shared_bytes` picks the strip rows (0: the device's budget).
  std::unique_ptr<CarrierOps> Ops(uint32_t max_shared_bytes = 0, int steps_per_submission = 3) {
    CarrierOps::Options o;
    o.closure_plan = ClosurePlan::kStrips;
    o.closure_max_shared_bytes = max_shared_bytes;
    o.closure_steps_per_submission = steps_per_submission;
    auto ops = CarrierOps::Create(ctx(), o);
    EXPECT_TRUE(ops.ok()) << ops.status().ToString();
    return ops.ok() ? std::move(ops).value() : nullptr;
  }

  // closure_test::ExpectSameAsReference with this path's error value.
  ClosureDispatch ExpectSameAsReference(CarrierOps& ops, const Carrier& c, const RealField* field,
                                        const ClosureParams& p) {
    return closure_test::ExpectSameAsReference(ops, c, field, p, ClosureDispatch::kSharedMemory);
  }
};

TEST_F(CarrierClosureStripTest, RandomCarriersMatchTheReference) {
  // Budgets for strips of 8 rows (the device's), and of one row of 4 words with both radii 2
  // (smaller radii or fewer words: strips of a few rows).
  auto wide = Ops();
  auto narrow = Ops(static_cast<uint32_t>(StripClosureBytes(1, 4, 2, 2)));
  ASSERT_NE(wide, nullptr);
  ASSERT_NE(narrow, nullptr);
  const std::vector<GridShape> shapes = {{1, 32},  {2, 32},   {3, 64},  {13, 32},
                                         {17, 96}, {33, 64},  {64, 96}, {100, 128}};
  uint64_t seed = 95000;
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
        const bool with_field = (p.majority.eta + p.max_iterations) % 2 == 0;
        EXPECT_EQ(ExpectSameAsReference(*wide, c, with_field ? &field : nullptr, p),
                  ClosureDispatch::kStrips);
        if (s.cols <= 128) {
          EXPECT_EQ(ExpectSameAsReference(*narrow, c, &field, p), ClosureDispatch::kStrips);
        }
        if (!HasFailure()) deepest = std::max(deepest, Closure(c, nullptr, p)->depth);
      }
    }
  }
  EXPECT_GE(deepest, 4);  // the sweep reaches closures several levels deep
}

TEST_F(CarrierClosureStripTest, EveryStripHeightMatchesTheReference) {
  const GridShape s{45, 128};  // 45 rows: no strip height divides them
  const Carrier c = BlobCarrier(s, 777, 0.3);
  const RealField field = RandomField(s, 778, 2.0);
  for (uint32_t h : {1u, 2u, 4u, 8u}) {
    SCOPED_TRACE("strips of " + std::to_string(h) + " rows");
    auto ops = Ops(static_cast<uint32_t>(StripClosureBytes(h, 4, 1, 1)));
    ASSERT_NE(ops, nullptr);
    for (const ClosureParams& p : {Params(1, 1, 3, 64), Params(1, 1, 2, 64)}) {
      EXPECT_EQ(ExpectSameAsReference(*ops, c, &field, p), ClosureDispatch::kStrips);
    }
  }
}

TEST_F(CarrierClosureStripTest, EdgeCarriersAndLargeRadii) {
  auto ops = Ops();
  ASSERT_NE(ops, nullptr);
  for (const GridShape s : {GridShape{1, 32}, GridShape{5, 64}, GridShape{40, 96}}) {
    const RealField field = RandomField(s, 555, 2.0);
    for (int kind = 0; kind < 5; ++kind) {
      SCOPED_TRACE(ToString(s) + " pattern " + std::to_string(kind));
      for (const ClosureParams& p : {Params(1, 1, 3, 64), Params(15, 1, 1, 64),
                                     Params(1, 15, 30, 64), Params(0, 0, 1, 64)}) {
        EXPECT_EQ(ExpectSameAsReference(*ops, Pattern(s, kind), &field, p),
                  ClosureDispatch::kStrips);
      }
    }
  }
}

// Majority with η = 7 on a +1 square with holes erodes it ring by ring: the cap stops it before
// the fixed point; a line of 60 cells runs 30 levels, over many submissions of 3 steps.
TEST_F(CarrierClosureStripTest, TheCapAndLongClosures) {
  auto ops = Ops();
  ASSERT_NE(ops, nullptr);
  const GridShape s{64, 64};
  std::vector<int8_t> v(static_cast<size_t>(s.size()), 0);
  for (int i = 4; i < 60; ++i) {
    for (int j = 4; j < 60; ++j) v[i * 64 + j] = ((i * j) % 17 == 0) ? 0 : 1;
  }
  const Carrier c = *Carrier::FromValues(s, std::move(v));
  const RealField field = RandomField(s, 77, 1.0);
  for (int cap : {0, 1, 2, 3, 5, 64}) {
    EXPECT_EQ(ExpectSameAsReference(*ops, c, &field, Params(1, 1, 7, cap)),
              ClosureDispatch::kStrips);
  }
  std::vector<int8_t> line(static_cast<size_t>(s.size()), 0);
  for (int j = 2; j < 62; ++j) line[10 * 64 + j] = -1;
  const Carrier deep = *Carrier::FromValues(s, std::move(line));
  for (int cap : {64, 20}) {
    EXPECT_EQ(ExpectSameAsReference(*ops, deep, &field, Params(1, 1, 3, cap)),
              ClosureDispatch::kStrips);
  }
}

// Where the strips do not apply (columns not a multiple of 32, radii above 15, a budget below
// one row's tile), asking for them gives the multi-dispatch path, with the same results.
TEST_F(CarrierClosureStripTest, FallsBackToTheMultiDispatchPath) {
  auto ops = Ops();
  auto tiny = Ops(static_cast<uint32_t>(StripClosureBytes(1, 2, 1, 1)) - 1);
  ASSERT_NE(ops, nullptr);
  ASSERT_NE(tiny, nullptr);
  const ClosureParams p = Params(1, 1, 3, 64);
  const GridShape s{32, 64};
  const Carrier c = BlobCarrier(s, 4242, 0.25);
  const RealField field = RandomField(s, 4243, 1.0);
  EXPECT_EQ(ExpectSameAsReference(*ops, BlobCarrier({33, 33}, 1, 0.25), nullptr, p),
            ClosureDispatch::kMultiDispatch);
  EXPECT_EQ(ExpectSameAsReference(*ops, c, nullptr, Params(16, 1, 3, 64)),
            ClosureDispatch::kMultiDispatch);
  EXPECT_EQ(ExpectSameAsReference(*tiny, c, &field, p), ClosureDispatch::kMultiDispatch);
}

// The recorded steps: 2 dispatches a step, gated by the control record — a segment recorded past
// the fixed point leaves its statistics slots as RecordStart filled them, and the second iterate
// untouched once the closure converged.
TEST_F(CarrierClosureStripTest, StepsPastTheFixedPointAreEmpty) {
  auto kernels = CarrierKernels::Create(ctx(), {});
  ASSERT_TRUE(kernels.ok());
  const GridShape shape{40, 64};
  auto rec = CarrierRecorder::Create(**kernels, shape);
  ASSERT_TRUE(rec.ok());
  const ClosureParams p = Params(1, 1, 3, 10);
  CarrierClosure::Options o;
  o.plan = ClosurePlan::kStrips;
  o.steps_per_submission = 11;
  auto c = CarrierClosure::Create(**rec, p, o);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ((*c)->dispatch(), ClosureDispatch::kStrips) << (*c)->dispatch_plan().note;
  EXPECT_EQ((*c)->dispatch_plan().note.rfind("strips: asked for", 0), 0u);
  auto batch = CommandBatch::Create(ctx(), 0);
  ASSERT_TRUE(batch.ok());
  const Carrier s0 = BlobCarrier(shape, 9, 0.25);
  const RealField field = RandomField(shape, 10, 1.0);
  auto in = DeviceBuffer::Create(ctx(), shape.size() * 4);
  auto f = DeviceBuffer::Create(ctx(), shape.size() * 8);
  ASSERT_TRUE(in.ok() && f.ok());
  ASSERT_TRUE(
      in->UploadValues<int32_t>(ctx(), std::vector<int32_t>(s0.values().begin(),
                                                            s0.values().end()))
          .ok());
  ASSERT_TRUE(f->UploadValues<double>(ctx(), std::vector<double>(field.values().begin(),
                                                                 field.values().end()))
                  .ok());
  ASSERT_TRUE((*batch)->Begin().ok());
  ASSERT_TRUE((*c)->RecordStart(**batch, *in, &*f, true).ok());
  EXPECT_EQ(*(*c)->RecordSteps(**batch, 11), 11);  // every step up to the cap's check step
  (*c)->RecordReadback(**batch);
  ASSERT_TRUE((*batch)->SubmitAndWait().ok());
  auto progress = (*c)->ReadSubmission();
  ASSERT_TRUE(progress.ok()) << progress.status().ToString();
  const ClosureResult ref = *Closure(s0, &field, p);
  ASSERT_TRUE(ref.reached_fixed_point);
  ASSERT_LT(ref.depth + 1, 11);  // steps recorded past the fixed point
  EXPECT_TRUE(progress->finished);
  EXPECT_EQ(progress->depth, ref.depth);
  EXPECT_EQ(progress->steps, ref.depth + 1);
  ASSERT_EQ((*c)->levels().size(), ref.levels.size());
  for (size_t l = 0; l < ref.levels.size(); ++l) {
    EXPECT_EQ((*c)->levels()[l].active_cells, ref.levels[l].active_cells) << "level " << l;
    EXPECT_EQ(0, std::memcmp(&(*c)->levels()[l].mean_abs_field, &ref.levels[l].mean_abs_field, 8))
        << "level " << l;
  }
  std::vector<CarrierTotals> stats = *(*c)->statistics().DownloadValues<CarrierTotals>(ctx(), 12);
  for (int slot = 0; slot < 12; ++slot) {
    EXPECT_EQ(stats[slot].c1 == ~uint64_t{0}, slot > progress->steps) << "slot " << slot;
  }
  EXPECT_TRUE((*c)->CheckGuards().ok());
}

}  // namespace
}  // namespace dashi::vk
