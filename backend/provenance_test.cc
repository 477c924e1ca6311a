#include "backend/provenance.h"

#include <gtest/gtest.h>

#include "core_ref/version/version.h"

namespace dashi::backend {
namespace {

// Every output's provenance names the reference version and the compiler beside the backend.
TEST(ProvenanceTest, NamesBackendsReferenceVersionAndCompiler) {
  const nlohmann::json p = Provenance("vulkan", "vulkan", "gpu", "driver 1");
  EXPECT_EQ(p["backend_requested"], "vulkan");
  EXPECT_EQ(p["backend_used"], "vulkan");
  EXPECT_EQ(p["device"], "gpu");
  EXPECT_EQ(p["driver"], "driver 1");
  EXPECT_EQ(p["reference_version"], kReferenceVersion);
  EXPECT_EQ(p["compiler"], CompilerVersion());
}

TEST(ProvenanceTest, ReferenceWorkIsUsedOnTheReferenceWhateverWasRequested) {
  const nlohmann::json p = ReferenceProvenance("vulkan");
  EXPECT_EQ(p["backend_requested"], "vulkan");
  EXPECT_EQ(p["backend_used"], "ref");
  EXPECT_EQ(p["compiler"], CompilerVersion());
}

}  // namespace
}  // namespace dashi::backend
