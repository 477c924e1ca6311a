#include "tools/evaluation_options.h"

#include "gtest/gtest.h"

namespace dashi::tools {
namespace {

TEST(EvaluationOptionsTest, SeedLists) {
  EXPECT_EQ(*ParseSeedList("1,2,3", "--eval-seeds"), (std::vector<uint64_t>{1, 2, 3}));
  EXPECT_EQ(*ParseSeedList("18446744073709551615", "--eval-seeds"),
            (std::vector<uint64_t>{UINT64_MAX}));
  EXPECT_TRUE(ParseSeedList("", "--val-seeds")->empty());
  for (const char* bad : {"1,,2", "1,", "-1", "0x10", "1 2", "18446744073709551616", "1e3"}) {
    StatusOr<std::vector<uint64_t>> r = ParseSeedList(bad, "--eval-seeds");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("--eval-seeds"), std::string::npos);
  }
}

TEST(EvaluationOptionsTest, EvalShift) {
  StatusOr<LesShift> s = ParseEvalShift("nu=1.5e-3,dt=0.004");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(*s->nu0, 1.5e-3);
  EXPECT_EQ(*s->dt, 0.004);
  EXPECT_FALSE(s->cs.has_value());
  EXPECT_FALSE(ParseEvalShift("")->any());
  for (const char* bad : {"nu", "nu=", "nu=abc", "nu=1,nu=2", "re=5", "cs=-1", "dt=inf", "nu=1x"}) {
    EXPECT_FALSE(ParseEvalShift(bad).ok()) << bad;
  }
}

TEST(EvaluationOptionsTest, AppliesLearnerChoices) {
  EvaluationCliOptions o;
  PipelineParams p;
  ASSERT_TRUE(ApplyEvaluationOptions(o, p).ok());
  EXPECT_EQ(p.learner.kind, LearnerKind::kShell);
  EXPECT_TRUE(p.choose_k);
  EXPECT_TRUE(p.learner.energy_constraint);
  EXPECT_EQ(p.eval_seeds, (std::vector<uint64_t>{21, 22, 23}));
  o.learner = "ridge";
  ASSERT_TRUE(ApplyEvaluationOptions(o, p).ok());
  EXPECT_EQ(p.learner.k, 1);
  EXPECT_FALSE(p.choose_k);
  EXPECT_TRUE(p.choose_lambda);
  EXPECT_FALSE(p.learner.energy_constraint);
  o.lambda_given = true;
  ASSERT_TRUE(ApplyEvaluationOptions(o, p).ok());
  EXPECT_FALSE(p.choose_lambda);
  o.k_step = "5";
  EXPECT_FALSE(ApplyEvaluationOptions(o, p).ok());  // ridge has a one-step loss only
  o = EvaluationCliOptions{};
  o.k_step = "7";
  ASSERT_TRUE(ApplyEvaluationOptions(o, p).ok());
  EXPECT_EQ(p.learner.k, 7);
  EXPECT_FALSE(p.choose_k);
  o.k_step = "0";
  EXPECT_FALSE(ApplyEvaluationOptions(o, p).ok());
  o = EvaluationCliOptions{};
  o.no_train = true;  // without --a
  EXPECT_FALSE(ApplyEvaluationOptions(o, p).ok());
}

}  // namespace
}  // namespace dashi::tools
