// The per-snapshot scale-tower record with layer statistics computed elsewhere (the device
// tower): given core_ref's own layers it is the reference record; the fining depth and the
// annihilation level follow the given layers; a wrong layer count is an error.
#include "tools/scales_json.h"

#include <vector>

#include <gtest/gtest.h>

#include "core_ref/les/les_solver.h"

namespace dashi::tools {
namespace {

std::vector<double> Field(int64_t n) {
  LesParams p;
  p.n = n;
  p.seed = 4;
  StatusOr<LesSolver> les = LesSolver::Create(p);
  EXPECT_TRUE(les.ok());
  return les->Vorticity();
}

TEST(ScalesJsonTest, GivenLayersReplaceTheHostTowersStatistics) {
  const int64_t n = 32;
  const std::vector<double> w = Field(n);
  StatusOr<nlohmann::json> ref = FieldScalesJson(w, n);
  ASSERT_TRUE(ref.ok()) << ref.status().ToString();
  StatusOr<ScaleTower> tower = BuildScaleTower(w, n, ScaleTowerParams{});
  ASSERT_TRUE(tower.ok());

  LayerComparison c;
  c.integer_mismatches = -1;
  StatusOr<nlohmann::json> same = FieldScalesJson(w, n, tower->layers, &c);
  ASSERT_TRUE(same.ok()) << same.status().ToString();
  EXPECT_EQ(*same, *ref);
  EXPECT_EQ(c.integer_mismatches, 0);
  EXPECT_EQ(c.max_float_error, 0.0);

  // Layer 0 annihilated as a device might report it: the record follows the given statistics.
  std::vector<ScaleLayer> changed = tower->layers;
  changed[0].active_after = 0;
  changed[0].annihilated_fraction = 1.0;
  StatusOr<nlohmann::json> other = FieldScalesJson(w, n, changed, &c);
  ASSERT_TRUE(other.ok());
  EXPECT_EQ((*other)["annihilation_level"], 0);
  EXPECT_EQ((*other)["layers"][0]["active_after"], 0);
  EXPECT_EQ((*other)["layers"][0]["structured"], false);
  EXPECT_EQ(c.integer_mismatches, 1);

  changed.pop_back();
  EXPECT_FALSE(FieldScalesJson(w, n, changed, nullptr).ok());
}

}  // namespace
}  // namespace dashi::tools
