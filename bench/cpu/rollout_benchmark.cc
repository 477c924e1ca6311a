// Times dashi's canonical z·A (core_ref/rollout/vecmat.h) against OpenBLAS cblas_dgemv, single
// thread, and the ridge fit (core_ref/learner) once at a typical size.
//
//   bazel run -c opt //bench/cpu:rollout_benchmark [-- --reps N]
//
// For D = 256, 512, 1024, 2048, on random non-zero data (Xoshiro256** seed 1: A uniform in
// ±[0.5, 1) / sqrt(D), z uniform in ±[0.5, 1)), it times one product y = z·A:
//   ours:     VecMatWorkspace::Multiply (scratch reused, as in Rollout) on every available path
//   OpenBLAS: cblas_dgemv(CblasRowMajor, CblasTrans, D, D, 1, A, D, z, 1, 0, y, 1), i.e. y = Aᵀz
//             = z·A, with openblas_set_num_threads(1)
//   rollout:  Rollout(z, A, {steps = 100, hash_every = 10}) / 100 (product + finiteness check +
//             hash chain), best path.
// Each measurement is a batch of calls long enough for ~2 ms, divided by the batch size; after
// warm-up batches, the median over --reps batches (default 31) is reported. Ours and OpenBLAS
// alternate batch by batch so load changes hit both. The outputs are compared (max relative
// difference, a sanity check: the orders differ, so the bits may too).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <cblas.h>

#include "core_ref/learner/ridge.h"
#include "core_ref/prng/prng.h"
#include "core_ref/rollout/rollout.h"
#include "core_ref/rollout/vecmat.h"

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

std::string LoadAverage() {
  std::ifstream f("/proc/loadavg");
  std::string a, b, c;
  f >> a >> b >> c;
  return a + " " + b + " " + c;
}

// Values uniform in ±[0.5, 1) · scale: never zero.
std::vector<double> NonZeroValues(dashi::Xoshiro256ss& rng, size_t n, double scale) {
  std::vector<double> v(n);
  for (double& x : v) {
    const double m = 0.5 + 0.5 * rng.NextDouble();
    x = (rng.Next() & 1) ? scale * m : -scale * m;
  }
  return v;
}

// Calls per batch so one batch takes about 2 ms.
int BatchSize(const std::function<void()>& f) {
  int n = 1;
  for (;;) {
    const auto t0 = Clock::now();
    for (int i = 0; i < n; ++i) f();
    const double s = Seconds(t0, Clock::now());
    if (s >= 2e-3 || n >= (1 << 20)) return n;
    n *= 2;
  }
}

// Median µs per call of each function, batches interleaved.
std::vector<double> MedianMicros(const std::vector<std::function<void()>>& fs, int reps) {
  std::vector<int> batch(fs.size());
  for (size_t k = 0; k < fs.size(); ++k) batch[k] = BatchSize(fs[k]);
  std::vector<std::vector<double>> t(fs.size());
  for (int r = -3; r < reps; ++r) {  // 3 warm-up rounds
    for (size_t k = 0; k < fs.size(); ++k) {
      const auto t0 = Clock::now();
      for (int i = 0; i < batch[k]; ++i) fs[k]();
      const double us = Seconds(t0, Clock::now()) * 1e6 / batch[k];
      if (r >= 0) t[k].push_back(us);
    }
  }
  std::vector<double> med(fs.size());
  for (size_t k = 0; k < fs.size(); ++k) {
    std::nth_element(t[k].begin(), t[k].begin() + reps / 2, t[k].end());
    med[k] = t[k][reps / 2];
  }
  return med;
}

double MaxRelDiff(const std::vector<double>& a, const std::vector<double>& b) {
  double num = 0, den = 0;
  for (size_t k = 0; k < a.size(); ++k) {
    num = std::max(num, std::abs(a[k] - b[k]));
    den = std::max(den, std::abs(b[k]));
  }
  return den > 0 ? num / den : num;
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 31;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
      reps = std::max(1, std::atoi(argv[++i]));
    } else {
      std::fprintf(stderr, "usage: rollout_benchmark [--reps N]\n");
      return 2;
    }
  }
  openblas_set_num_threads(1);

  char date[64];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S %Z", std::localtime(&now));
  std::printf("rollout_benchmark  %s  load average %s\n", date, LoadAverage().c_str());
  std::printf("OpenBLAS: %s (core %s), 1 thread; dashi best z·A path: %s; median of %d\n\n",
              openblas_get_config(), openblas_get_corename(),
              std::string(dashi::VecMatPathName(dashi::BestVecMatPath())).c_str(), reps);

  std::vector<dashi::VecMatPath> paths;
  for (dashi::VecMatPath p : {dashi::VecMatPath::kBaseline, dashi::VecMatPath::kAvx2,
                              dashi::VecMatPath::kAvx512}) {
    if (dashi::VecMatPathAvailable(p)) paths.push_back(p);
  }

  std::printf("| D | OpenBLAS dgemv µs |");
  for (dashi::VecMatPath p : paths) {
    std::printf(" ours %s µs | ratio |", std::string(dashi::VecMatPathName(p)).c_str());
  }
  std::printf(" Rollout µs/step | max rel diff |\n|---|---|");
  for (size_t k = 0; k < paths.size(); ++k) std::printf("---|---|");
  std::printf("---|---|\n");

  dashi::Xoshiro256ss rng(1);
  for (int64_t dim : {256, 512, 1024, 2048}) {
    const std::vector<double> a = NonZeroValues(rng, dim * dim, 1.0 / std::sqrt(double(dim)));
    const std::vector<double> z = NonZeroValues(rng, dim, 1.0);
    std::vector<double> y_blas(dim), y_ours(dim);
    std::vector<dashi::VecMatWorkspace> ws;
    for (dashi::VecMatPath p : paths) ws.push_back(*dashi::VecMatWorkspace::Create(p));

    std::vector<std::function<void()>> fs;
    fs.push_back([&] {
      cblas_dgemv(CblasRowMajor, CblasTrans, dim, dim, 1.0, a.data(), dim, z.data(), 1, 0.0,
                  y_blas.data(), 1);
    });
    for (size_t k = 0; k < paths.size(); ++k) {
      fs.push_back([&, k] { ws[k].Multiply(z.data(), a.data(), dim, y_ours.data()); });
    }
    const int64_t kSteps = 100;
    fs.push_back([&] {
      dashi::StatusOr<dashi::RolloutResult> r =
          dashi::Rollout(z, a, {.steps = kSteps, .hash_every = 10});
      if (!r.ok()) std::fprintf(stderr, "%s\n", r.status().ToString().c_str());
    });
    const std::vector<double> us = MedianMicros(fs, reps);

    fs[0]();
    fs[1]();
    std::printf("| %lld | %.1f |", static_cast<long long>(dim), us[0]);
    for (size_t k = 0; k < paths.size(); ++k) std::printf(" %.1f | %.2f |", us[1 + k], us[1 + k] / us[0]);
    std::printf(" %.1f | %.1e |\n", us.back() / kSteps, MaxRelDiff(y_ours, y_blas));
    std::fflush(stdout);
  }

  // Ridge fit, samples 400 × D 400, λ = 1e-3, random data: median of 3 runs after one warm-up.
  {
    const int64_t samples = 400, dim = 400;
    const std::vector<double> zs = NonZeroValues(rng, samples * dim, 1.0);
    const std::vector<double> ys = NonZeroValues(rng, samples * dim, 1.0);
    std::vector<double> t;
    for (int r = 0; r < 4; ++r) {
      const auto t0 = Clock::now();
      dashi::StatusOr<std::vector<double>> fit = dashi::FitRidge(zs, ys, samples, dim, 1e-3);
      const double ms = Seconds(t0, Clock::now()) * 1e3;
      if (!fit.ok()) {
        std::fprintf(stderr, "FitRidge failed: %s\n", fit.status().ToString().c_str());
        return 1;
      }
      if (r > 0) t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    std::printf("\nFitRidge samples=%lld D=%lld lambda=1e-3: %.1f ms (median of 3; min %.1f)\n",
                static_cast<long long>(samples), static_cast<long long>(dim), t[1], t[0]);
  }
  std::printf("load average after: %s\n", LoadAverage().c_str());
  return 0;
}
