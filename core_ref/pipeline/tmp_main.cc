#include <cstdio>
#include <cstdlib>
#include "core_ref/pipeline/pipeline.h"
int main(int argc, char** argv) {
  dashi::PipelineParams p;
  p.snapshots = 0;
  if (argc > 1) p.les.n = std::atoi(argv[1]);
  if (argc > 2) p.k_mid = std::atoi(argv[2]);
  auto r = dashi::RunPipeline(p, [](const dashi::PipelineProgress& pr) {
    if (pr.stage != "simulate" || pr.done == pr.total) std::fprintf(stderr, "%s %lld/%lld\n", pr.stage.c_str(), (long long)pr.done, (long long)pr.total);
  });
  if (!r.ok()) { std::printf("%s\n", r.status().ToString().c_str()); return 1; }
  const auto& e = r->evaluation;
  std::printf("learner %s\n", dashi::LearnerConfigText(r->learner.chosen).c_str());
  for (auto& c : r->learner.candidates) std::printf("  cand %s score %.4f max<10 %.4f E %.4f elig %d\n", dashi::LearnerConfigText(c.config).c_str(), c.score, c.max_ratio_before_10, c.energy_ratio_last, c.eligible);
  for (int64_t h : e.horizons) std::printf("h %3lld ratio %.4f [%.4f %.4f] skill %.4f relL2 %.4f pers %.4f damped %.4f E %.4f Z %.3f\n", (long long)h, e.ratio.mean[h], e.ratio.min[h], e.ratio.max[h], e.skill.mean[h], e.rel_l2_rollout.mean[h], e.rel_l2_persistence.mean[h], e.rel_l2_damped.mean[h], e.energy_ratio.mean[h], e.enstrophy_ratio.mean[h]);
  std::printf("%s\n", e.verdict.c_str());
  for (auto& t : r->eval) std::printf("seed %llu final link %02x%02x...\n", (unsigned long long)t.seed, t.chain.back().link[0], t.chain.back().link[1]);
  std::printf("timings anchors %.0f sim %.0f fit %.0f ms\n", r->timings.anchors_ms, r->timings.simulate_ms, r->timings.fit_ms);
}
