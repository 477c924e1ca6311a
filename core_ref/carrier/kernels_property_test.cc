// Property tests of every carrier kernel over many random carriers and grid sizes:
// each kernel is a mask (K(s)(x) ∈ {0, s(x)}), so support is never created and the defect never
// grows; K_ann is idempotent; the closure reaches a fixed point with a monotone defect. Kernels
// are also compared with brute-force evaluations of their definitions. A failure prints the seed
// and shape that replay it.
#include <cstdint>
#include <cstdlib>
#include <vector>

#include <gtest/gtest.h>

#include "core_ref/carrier/annihilation.h"
#include "core_ref/carrier/carrier.h"
#include "core_ref/carrier/closure.h"
#include "core_ref/carrier/defect.h"
#include "core_ref/carrier/fusion.h"
#include "core_ref/carrier/majority.h"
#include "core_ref/prng/prng.h"
#include "core_ref/testing/random_inputs.h"

namespace dashi {
namespace {

using testing::BlobCarrier;
using testing::PropertyTestShapes;
using testing::RandomCarrier;
using testing::ReplayTag;

constexpr int kSeedsPerShape = 12;

// The carriers each property is checked on: i.i.d. at three densities and coherent blobs.
std::vector<Carrier> CarriersFor(GridShape shape, uint64_t seed) {
  return {RandomCarrier(shape, seed, 0.0), RandomCarrier(shape, seed + 1, 0.3),
          RandomCarrier(shape, seed + 2, 0.8), BlobCarrier(shape, seed + 3, 0.2)};
}

// K(s)(x) ∈ {0, s(x)} for all x: support non-creation and sign preservation at once.
::testing::AssertionResult IsMaskOf(const Carrier& out, const Carrier& in) {
  if (!(out.shape() == in.shape())) return ::testing::AssertionFailure() << "shape changed";
  for (int64_t k = 0; k < in.size(); ++k) {
    if (out.values()[k] != 0 && out.values()[k] != in.values()[k]) {
      return ::testing::AssertionFailure()
             << "cell " << k << " went from " << int(in.values()[k]) << " to "
             << int(out.values()[k]) << (in.values()[k] == 0 ? " (support created)" : "");
    }
  }
  return ::testing::AssertionSuccess();
}

void ExpectDefectNotIncreased(const Carrier& out, const Carrier& in) {
  EXPECT_LE(Defect(out, Neighbourhood::kFour), Defect(in, Neighbourhood::kFour));
  EXPECT_LE(Defect(out, Neighbourhood::kEight), Defect(in, Neighbourhood::kEight));
}

// Brute-force definitions, offset by offset, with periodic wrap and multiplicity.
Carrier AnnihilateBrute(const Carrier& s, int r) {
  std::vector<int8_t> out(s.values().begin(), s.values().end());
  for (int64_t i = 0; i < s.rows(); ++i) {
    for (int64_t j = 0; j < s.cols(); ++j) {
      bool pos = false, neg = false;
      for (int di = -r; di <= r; ++di)
        for (int dj = -r; dj <= r; ++dj) {
          pos |= s.AtWrapped(i + di, j + dj) > 0;
          neg |= s.AtWrapped(i + di, j + dj) < 0;
        }
      if (pos && neg) out[i * s.cols() + j] = 0;
    }
  }
  return *Carrier::FromValues(s.shape(), out);
}

Carrier MajorityBrute(const Carrier& s, int r, int eta) {
  std::vector<int8_t> out(s.values().begin(), s.values().end());
  for (int64_t i = 0; i < s.rows(); ++i) {
    for (int64_t j = 0; j < s.cols(); ++j) {
      int sum = 0;
      for (int di = -r; di <= r; ++di)
        for (int dj = -r; dj <= r; ++dj) sum += s.AtWrapped(i + di, j + dj);
      int8_t& v = out[i * s.cols() + j];
      if (v != 0 && v * sum < eta) v = 0;
    }
  }
  return *Carrier::FromValues(s.shape(), out);
}

TEST(KernelPropertyTest, AnnihilationIsAnIdempotentMaskMatchingItsDefinition) {
  for (GridShape shape : PropertyTestShapes()) {
    for (uint64_t seed = 1; seed <= kSeedsPerShape; ++seed) {
      SCOPED_TRACE(ReplayTag(seed, shape));
      for (const Carrier& s : CarriersFor(shape, seed * 101)) {
        for (int r : {0, 1, 2, 3}) {
          SCOPED_TRACE("radius=" + std::to_string(r));
          Carrier once = *Annihilate(s, {r});
          EXPECT_TRUE(IsMaskOf(once, s));
          ExpectDefectNotIncreased(once, s);
          EXPECT_EQ(*Annihilate(once, {r}), once) << "K_ann is not idempotent";
          EXPECT_EQ(once, AnnihilateBrute(s, r));
          if (r >= 1) {
            EXPECT_EQ(Defect(once, Neighbourhood::kEight), 0);
          }
        }
      }
    }
  }
}

TEST(KernelPropertyTest, MajorityIsAMaskMatchingItsDefinition) {
  for (GridShape shape : PropertyTestShapes()) {
    for (uint64_t seed = 1; seed <= kSeedsPerShape; ++seed) {
      SCOPED_TRACE(ReplayTag(seed, shape));
      for (const Carrier& s : CarriersFor(shape, seed * 211)) {
        for (MajorityParams p : {MajorityParams{0, 1}, MajorityParams{1, 1}, MajorityParams{1, 3},
                                 MajorityParams{2, 5}, MajorityParams{1, -100}}) {
          SCOPED_TRACE("radius=" + std::to_string(p.radius) + " eta=" + std::to_string(p.eta));
          Carrier out = *Majority(s, p);
          EXPECT_TRUE(IsMaskOf(out, s));
          ExpectDefectNotIncreased(out, s);
          EXPECT_EQ(out, MajorityBrute(s, p.radius, p.eta));
        }
      }
    }
  }
}

TEST(KernelPropertyTest, ClosureReachesAFixedPointWithMonotoneDefect) {
  for (GridShape shape : PropertyTestShapes()) {
    for (uint64_t seed = 1; seed <= kSeedsPerShape; ++seed) {
      SCOPED_TRACE(ReplayTag(seed, shape));
      for (const Carrier& s0 : CarriersFor(shape, seed * 307)) {
        for (int ann_r : {1, 2}) {
          ClosureParams p;
          p.annihilation.radius = ann_r;
          p.majority = {1, 2};
          StatusOr<ClosureResult> r = Closure(s0, nullptr, p);
          ASSERT_TRUE(r.ok()) << r.status().ToString();
          // Replay the iteration step by step and check every level.
          Carrier cur = s0;
          int64_t d4 = Defect(cur, Neighbourhood::kFour), d8 = Defect(cur, Neighbourhood::kEight);
          ASSERT_EQ(r->levels.size(), static_cast<size_t>(r->depth) + 1);
          EXPECT_EQ(r->levels[0].active_cells, s0.SupportCount());
          for (int level = 1; level <= r->depth; ++level) {
            Carrier next = *ClosureStep(cur, p);
            EXPECT_TRUE(IsMaskOf(next, cur)) << "level " << level;
            EXPECT_NE(next, cur) << "level " << level << " changed nothing";
            const int64_t n4 = Defect(next, Neighbourhood::kFour);
            const int64_t n8 = Defect(next, Neighbourhood::kEight);
            EXPECT_LE(n4, d4) << "level " << level;
            EXPECT_LE(n8, d8) << "level " << level;
            EXPECT_EQ(r->levels[level].active_cells, next.SupportCount());
            EXPECT_LT(r->levels[level].active_cells, r->levels[level - 1].active_cells);
            d4 = n4;
            d8 = n8;
            cur = next;
          }
          EXPECT_EQ(cur, r->fixed_point);
          EXPECT_TRUE(r->reached_fixed_point);
          EXPECT_EQ(*ClosureStep(r->fixed_point, p), r->fixed_point) << "not a fixed point";
          EXPECT_TRUE(IsMaskOf(r->fixed_point, s0));
          EXPECT_EQ(Defect(r->fixed_point, Neighbourhood::kEight), 0);
        }
      }
    }
  }
}

TEST(KernelPropertyTest, FusionFollowsTheSignOfTheSumAndTheTieRule) {
  for (GridShape shape : PropertyTestShapes()) {
    for (uint64_t seed = 1; seed <= kSeedsPerShape; ++seed) {
      SCOPED_TRACE(ReplayTag(seed, shape));
      for (int64_t k : {1, 2, 3, 4, 7}) {
        std::vector<int8_t> stack;
        for (int64_t c = 0; c < k; ++c) {
          Carrier ch = RandomCarrier(shape, seed * 1000 + c, 0.25);
          stack.insert(stack.end(), ch.values().begin(), ch.values().end());
        }
        Carrier out = *FuseMajority(stack, k, shape);
        const int64_t n = shape.size();
        for (int64_t x = 0; x < n; ++x) {
          int sum = 0;
          bool any_support = false;
          for (int64_t c = 0; c < k; ++c) {
            sum += stack[c * n + x];
            any_support |= stack[c * n + x] != 0;
          }
          ASSERT_EQ(out.values()[x], (sum > 0) - (sum < 0)) << "cell " << x << " k=" << k;
          if (!any_support) {
            ASSERT_EQ(out.values()[x], 0) << "support created at " << x;
          }
        }
        if (k == 1) {
          EXPECT_EQ(std::vector<int8_t>(out.values().begin(), out.values().end()), stack);
        }
      }
    }
  }
}

TEST(KernelPropertyTest, DefectOnlyFallsWhenSupportIsRemoved) {
  // Zero random cells one at a time: the defect never rises (docs/MATH.md, proposition 1).
  for (GridShape shape : PropertyTestShapes()) {
    for (uint64_t seed = 1; seed <= kSeedsPerShape; ++seed) {
      SCOPED_TRACE(ReplayTag(seed, shape));
      Carrier s = RandomCarrier(shape, seed * 17, 0.2);
      Xoshiro256ss rng(seed);
      std::vector<int8_t> v(s.values().begin(), s.values().end());
      int64_t d4 = Defect(s, Neighbourhood::kFour), d8 = Defect(s, Neighbourhood::kEight);
      for (int step = 0; step < 20; ++step) {
        v[rng.NextBelow(v.size())] = 0;
        Carrier t = *Carrier::FromValues(shape, v);
        EXPECT_LE(Defect(t, Neighbourhood::kFour), d4);
        EXPECT_LE(Defect(t, Neighbourhood::kEight), d8);
        d4 = Defect(t, Neighbourhood::kFour);
        d8 = Defect(t, Neighbourhood::kEight);
      }
    }
  }
}

}  // namespace
}  // namespace dashi
