// Times one LES step (IF-RK4, Smagorinsky on) of the fp64 reference at N = 128, 256, 512, single
// thread: median over repetitions after a warm-up, on the default random initial condition.
//   bazel run -c opt //bench/cpu:les_benchmark
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "core_ref/les/les_solver.h"

int main() {
  std::printf("%-6s %-8s %-14s %-14s %s\n", "N", "steps", "median ms", "min ms", "per cell ns");
  for (int64_t n : {128, 256, 512}) {
    dashi::LesParams p;
    p.n = n;
    p.dt = 0.005 * 128.0 / static_cast<double>(n);
    dashi::StatusOr<dashi::LesSolver> les = dashi::LesSolver::Create(p);
    if (!les.ok()) {
      std::fprintf(stderr, "%s\n", les.status().ToString().c_str());
      return 1;
    }
    const int reps = n <= 128 ? 40 : n <= 256 ? 12 : 5;
    for (int w = 0; w < 2; ++w) (void)les->Step();
    std::vector<double> ms;
    for (int r = 0; r < reps; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      dashi::Status st = les->Step();
      ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                       .count());
      if (!st.ok()) {
        std::fprintf(stderr, "%s\n", st.ToString().c_str());
        return 1;
      }
    }
    std::sort(ms.begin(), ms.end());
    const double med = ms[ms.size() / 2];
    std::printf("%-6lld %-8d %-14.3f %-14.3f %.1f\n", static_cast<long long>(n), reps, med, ms[0],
                med * 1e6 / static_cast<double>(n * n));
  }
  return 0;
}
