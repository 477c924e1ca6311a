// One GoogleTest per registered conformance case, run on the default device (lavapipe in CI) with
// the validation layer on. NOT_SUPPORTED fails here: CI's driver must support every op.
#include <cstdio>
#include <memory>

#include <gtest/gtest.h>

#include "conformance/framework/conformance_case.h"

namespace dashi::conformance {
namespace {

vk::VulkanContext* SharedContext() {
  static std::unique_ptr<vk::VulkanContext> ctx = [] {
    vk::ContextOptions opts;
    opts.enable_validation = true;
    StatusOr<std::unique_ptr<vk::VulkanContext>> c = vk::VulkanContext::Create(opts);
    if (!c.ok()) {
      std::fprintf(stderr, "cannot create a validated Vulkan device: %s\n",
                   c.status().ToString().c_str());
      return std::unique_ptr<vk::VulkanContext>();
    }
    return std::move(c).value();
  }();
  return ctx.get();
}

class ConformanceCaseTest : public ::testing::Test {
 public:
  explicit ConformanceCaseTest(ConformanceCase c) : case_(std::move(c)) {}
  void TestBody() override {
    vk::VulkanContext* ctx = SharedContext();
    ASSERT_NE(ctx, nullptr) << "no Vulkan device: conformance never skips";
    const CaseResult r = RunCase(case_, *ctx);
    std::printf("%-48s %-13s measured %-12.4g tolerance %-10.3g %s\n", case_.name.c_str(),
                VerdictName(r.verdict), r.measured, case_.tolerance, r.detail.c_str());
    EXPECT_EQ(r.verdict, Verdict::kPass)
        << case_.name << " (" << case_.measure << "): " << VerdictName(r.verdict) << ", measured "
        << r.measured << " vs tolerance " << case_.tolerance << ": " << r.detail;
  }

 private:
  ConformanceCase case_;
};

}  // namespace
}  // namespace dashi::conformance

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  for (const auto& c : dashi::conformance::AllCases()) {
    ::testing::RegisterTest("Conformance", c.name.c_str(), nullptr, nullptr, __FILE__, __LINE__,
                            [c]() -> ::testing::Test* {
                              return new dashi::conformance::ConformanceCaseTest(c);
                            });
  }
  if (dashi::conformance::AllCases().empty()) {
    std::fprintf(stderr, "no conformance cases are linked in\n");
    return 1;
  }
  return RUN_ALL_TESTS();
}
