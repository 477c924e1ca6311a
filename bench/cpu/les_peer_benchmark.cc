// dashi's LES step and 2D real FFTs against the FFTW peer (bench/cpu/les_fftw_peer.h: the same
// IF-RK4 / 2/3-rule / Smagorinsky scheme on FFTW_MEASURE plans), in one run, for each N and each
// thread count: dashi with LesSolver::Create(p, T) / Fft2d::set_thread_pool, FFTW with
// fftw_plan_with_nthreads(T). Median (and minimum) of the repetitions after two warm-up steps;
// the two sides alternate step by step so that load on a shared machine hits both alike.
// Before timing, the peer's state after 3 steps is compared with dashi's (relative L2): they must
// agree to rounding, or the peer is not the same scheme and the run stops. The "back-to-back"
// column is the mean of 2·R dashi steps in a row with no peer step between them (as in `dashi
// simulate`: the pool's workers stay awake, their caches warm). The "dashi rfft+irfft" column
// times RfftMany + IrfftManyDestroying into preallocated, cache-line-aligned arrays (what the
// solver does); the FFTW column the peer's r2c + c2r with its buffer copies and scaling.
//
// `--peer 0` times dashi alone (no FFTW peer, no FFTW plans: its columns print as 0), for
// thread-scaling runs with more repetitions on little machine time. The "empty section µs"
// column is the mean cost of one ParallelFor with T one-unit chunks and an empty body on the
// step's pool size (the fork and join alone).
//
// `--rows fused|separate|auto` (default auto) picks LesSolver's row sections (the bits are the
// same; the "rows" column says which ran).
//
// `--paired T` (instead of the table above) measures the speed-up of T threads over one as pairs
// taken at the same moment: for each N, a one-thread solver and a T-thread one step in turn —
// one step of the first, then 4 steps of the second back to back (its workers awake, as in
// `dashi simulate`; their mean is the pair's T-thread step) — R times (--reps; default 40 / 20 /
// 10 at N ≤ 128 / 256 / larger). A shared machine whose speed drifts during the run moves both
// halves of a pair alike, so the median of the pairs' ratios holds still where the ratio of
// separately timed medians does not. Both solvers' states are checked equal bit for bit at the
// end (the thread count does not change the bits).
//
// `--pin 1` pins the main thread to the first CPU the process may run on and worker w of every
// dashi pool to the w-th (ThreadPool::SetWorkerStartHook), so a worker keeps its core, and its
// caches, from one section to the next; FFTW's threads are not pinned. Default 0: the kernel
// places the threads.
//
// `--sections T` (instead of the table) times every parallel section of a step at one thread and
// at T (ThreadPool's section timing hook) and prints, per section, its units, both medians, their
// ratio and the best ratio a balanced split of equal units allows — where a T-thread step loses.
//
//   bazel run -c opt //bench/cpu:les_peer_benchmark -- --n 128,256,512 --threads 1,2 [--reps R]
//       [--peer 0] [--rows auto] [--paired T] [--sections T] [--pin 0]
#include <pthread.h>
#include <sched.h>

#include <fftw3.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <memory>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "bench/cpu/les_fftw_peer.h"
#include "core_ref/fft/aligned_vector.h"
#include "core_ref/fft/fft.h"
#include "core_ref/les/les_solver.h"
#include "core_ref/parallel/thread_pool.h"

namespace {

using Clock = std::chrono::steady_clock;

std::vector<int> ParseList(const char* text) {
  std::vector<int> out;
  for (const char* p = text; *p != '\0';) {
    out.push_back(std::atoi(p));
    while (*p != '\0' && *p != ',') ++p;
    if (*p == ',') ++p;
  }
  return out;
}

double Ms(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

struct Stat {
  double median = 0, min = 0;
};
Stat Summarise(std::vector<double> v) {
  if (v.empty()) return {};
  std::sort(v.begin(), v.end());
  return {v[v.size() / 2], v.front()};
}

double RelL2(const std::vector<dashi::Complex>& a, const std::vector<dashi::Complex>& b) {
  double num = 0, den = 0;
  for (size_t k = 0; k < a.size(); ++k) {
    num += std::norm(a[k] - b[k]);
    den += std::norm(a[k]);
  }
  return std::sqrt(num / den);
}

// --pin 1: the CPUs of the process's affinity mask, in order; worker w goes to cpus[w mod size].
std::vector<int>& PinCpus() {
  static std::vector<int> cpus;
  return cpus;
}

bool PinTo(pthread_t thread, int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(thread, sizeof set, &set) == 0;
}

void PinWorker(int worker) {
  const std::vector<int>& cpus = PinCpus();
  if (!cpus.empty()) (void)PinTo(pthread_self(), cpus[static_cast<size_t>(worker) % cpus.size()]);
}

// Fills PinCpus, pins the calling thread to the first and installs PinWorker. False (with a
// message) when the mask cannot be read or the thread cannot be pinned.
bool EnablePinning() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) {
    std::fprintf(stderr, "--pin: sched_getaffinity failed\n");
    return false;
  }
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &set)) PinCpus().push_back(c);
  }
  if (PinCpus().empty() || !PinTo(pthread_self(), PinCpus()[0])) {
    std::fprintf(stderr, "--pin: cannot pin the main thread\n");
    return false;
  }
  dashi::ThreadPool::SetWorkerStartHook(&PinWorker);
  return true;
}

// The LES every mode times: the defaults at N, dt scaled with 1/N (0.005 at N = 128).
dashi::LesParams BenchParams(int n) {
  dashi::LesParams p;
  p.n = n;
  p.dt = 0.005 * 128.0 / n;
  return p;
}

// --paired T: one-thread and T-thread steps in turn (see the file comment). Returns 1 on an
// error or when the two solvers' spectra differ.
int RunPaired(const std::vector<int>& sizes, int t, int reps, dashi::LesRowSections rows) {
  constexpr int kBackToBack = 4;
  std::printf(
      "| N | T | pairs | T=1 step ms median (min) | T-thread step ms median (min) | ratio of "
      "medians | paired ratio median (quartiles; min-max) | rows |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  for (int n : sizes) {
    const dashi::LesParams p = BenchParams(n);
    auto one = dashi::LesSolver::Create(p, 1, rows);
    auto many = dashi::LesSolver::Create(p, t, rows);
    if (!one.ok() || !many.ok()) {
      std::fprintf(stderr, "%s\n",
                   (!one.ok() ? one.status() : many.status()).ToString().c_str());
      return 1;
    }
    const int r = reps > 0 ? reps : (n <= 128 ? 40 : n <= 256 ? 20 : 10);
    for (int s = 0; s < 3; ++s) (void)one->Step(), (void)many->Step();
    std::vector<double> t1, tt, ratio;
    for (int i = 0; i < r; ++i) {
      const auto a = Clock::now();
      (void)one->Step();
      const auto b = Clock::now();
      for (int k = 0; k < kBackToBack; ++k) (void)many->Step();
      const auto c = Clock::now();
      t1.push_back(Ms(a, b));
      tt.push_back(Ms(b, c) / kBackToBack);
      ratio.push_back(t1.back() / tt.back());
    }
    // Bring the one-thread solver to the same step and compare the bits.
    for (int i = 0; i < r * (kBackToBack - 1); ++i) (void)one->Step();
    const std::vector<dashi::Complex>& x = one->spectrum();
    const std::vector<dashi::Complex>& y = many->spectrum();
    if (x.size() != y.size() || std::memcmp(x.data(), y.data(), x.size() * sizeof(x[0])) != 0) {
      std::fprintf(stderr, "N=%d: the %d-thread spectrum differs from the one-thread one\n", n,
                   t);
      return 1;
    }
    const Stat s1 = Summarise(t1), st = Summarise(tt);
    std::sort(ratio.begin(), ratio.end());
    const size_t m = ratio.size();
    std::printf("| %d | %d | %d | %.2f (%.2f) | %.3f (%.3f) | %.2f | %.2f (%.2f-%.2f; %.2f-%.2f) | %s |\n",
                n, t, r, s1.median, s1.min, st.median, st.min, s1.median / st.median,
                ratio[m / 2], ratio[m / 4], ratio[(3 * m) / 4], ratio.front(), ratio.back(),
                many->fused_rows() ? "fused" : "separate");
    std::fflush(stdout);
  }
  return 0;
}

// --sections T: where a T-thread step loses against one thread, section by section. Every
// parallel section of a step (ThreadPool's section timing hook: the FFT passes, the pointwise
// loops) is timed on a one-thread solver and a T-thread one with the same row sections (the
// T-thread solver's automatic choice), one step of the first, then 4 of the second back to back
// (the first of them not recorded: its workers were asleep), R times. Per section: its unit count,
// the medians, their ratio, and the best ratio a balanced split of equal units allows
// (units / ⌈units/T⌉); then the sums and the time outside the sections.
std::vector<std::pair<size_t, int64_t>>* recorded_sections = nullptr;
void RecordSection(size_t units, int64_t ns) {
  if (recorded_sections != nullptr) recorded_sections->emplace_back(units, ns);
}

int RunSections(const std::vector<int>& sizes, int t, int reps) {
  constexpr int kBackToBack = 4;
  dashi::SetSectionTimingHook(&RecordSection);
  for (int n : sizes) {
    const dashi::LesParams p = BenchParams(n);
    auto many = dashi::LesSolver::Create(p, t, dashi::LesRowSections::kAuto);
    if (!many.ok()) {
      std::fprintf(stderr, "%s\n", many.status().ToString().c_str());
      return 1;
    }
    const dashi::LesRowSections rows =
        many->fused_rows() ? dashi::LesRowSections::kFused : dashi::LesRowSections::kSeparate;
    auto one = dashi::LesSolver::Create(p, 1, rows);
    if (!one.ok()) {
      std::fprintf(stderr, "%s\n", one.status().ToString().c_str());
      return 1;
    }
    const int r = reps > 0 ? reps : (n <= 128 ? 40 : n <= 256 ? 20 : 10);
    for (int s = 0; s < 3; ++s) (void)one->Step(), (void)many->Step();
    std::vector<std::vector<double>> s1, st;  // per section ordinal, µs
    std::vector<size_t> units;
    std::vector<double> step1, stept;
    std::vector<std::pair<size_t, int64_t>> rec;
    auto record = [&](std::vector<std::vector<double>>& into) -> bool {
      if (into.empty()) {
        into.resize(rec.size());
        if (units.empty()) {
          for (const auto& x : rec) units.push_back(x.first);
        }
      }
      if (rec.size() != into.size() || rec.size() != units.size()) return false;
      for (size_t k = 0; k < rec.size(); ++k) {
        if (rec[k].first != units[k]) return false;  // not the same section
        into[k].push_back(rec[k].second * 1e-3);
      }
      return true;
    };
    for (int i = 0; i < r; ++i) {
      rec.clear();
      recorded_sections = &rec;
      const auto a = Clock::now();
      (void)one->Step();
      step1.push_back(Ms(a, Clock::now()) * 1e3);
      recorded_sections = nullptr;
      if (!record(s1)) {
        std::fprintf(stderr,
                     "N=%d: the one-thread steps differ in their sections (count or units)\n", n);
        return 1;
      }
      for (int k = 0; k < kBackToBack; ++k) {
        rec.clear();
        recorded_sections = k == 0 ? nullptr : &rec;
        const auto b = Clock::now();
        (void)many->Step();
        const double us = Ms(b, Clock::now()) * 1e3;
        recorded_sections = nullptr;
        if (k == 0) continue;
        stept.push_back(us);
        if (!record(st)) {
          std::fprintf(stderr,
                       "N=%d: the %d-thread step's sections (count or units) differ from one "
                       "thread's\n",
                       n, t);
          return 1;
        }
      }
    }
    std::printf("\nN = %d, T = %d, %s rows, %d one-thread steps and %d %d-thread steps; medians "
                "in µs\n",
                n, t, many->fused_rows() ? "fused" : "separate", r, r * (kBackToBack - 1), t);
    std::printf("| # | units | T=1 µs | T µs | speed-up | balanced-split bound |\n");
    std::printf("|---|---|---|---|---|---|\n");
    double sum1 = 0, sumt = 0;
    for (size_t k = 0; k < units.size(); ++k) {
      const double m1 = Summarise(s1[k]).median, mt = Summarise(st[k]).median;
      sum1 += m1;
      sumt += mt;
      const size_t u = units[k];
      const double bound =
          u == 0 ? 0.0 : static_cast<double>(u) / static_cast<double>((u + t - 1) / t);
      std::printf("| %zu | %zu | %.1f | %.1f | %.2f | %.2f |\n", k, u, m1, mt,
                  mt > 0 ? m1 / mt : 0.0, bound);
    }
    const double w1 = Summarise(step1).median, wt = Summarise(stept).median;
    std::printf("| sum | | %.1f | %.1f | %.2f | |\n", sum1, sumt, sum1 / sumt);
    std::printf("| step | | %.1f | %.1f | %.2f | |\n", w1, wt, w1 / wt);
    // A difference of medians (the step's and the sections' summed): negative when the steps'
    // spread is larger than the time outside the sections.
    std::printf("| outside sections | | %.1f | %.1f | | |\n", w1 - sum1, wt - sumt);
    std::fflush(stdout);
  }
  dashi::SetSectionTimingHook(nullptr);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes = {128, 256, 512}, threads = {1, 2};
  int reps = 0;
  bool with_peer = true;
  int paired = 0;
  int sections = 0;
  bool pin = false;
  dashi::LesRowSections rows = dashi::LesRowSections::kAuto;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--n") == 0)
      sizes = ParseList(argv[i + 1]);
    else if (std::strcmp(argv[i], "--threads") == 0)
      threads = ParseList(argv[i + 1]);
    else if (std::strcmp(argv[i], "--reps") == 0)
      reps = std::atoi(argv[i + 1]);
    else if (std::strcmp(argv[i], "--peer") == 0)
      with_peer = std::atoi(argv[i + 1]) != 0;
    else if (std::strcmp(argv[i], "--paired") == 0)
      paired = std::atoi(argv[i + 1]);
    else if (std::strcmp(argv[i], "--sections") == 0)
      sections = std::atoi(argv[i + 1]);
    else if (std::strcmp(argv[i], "--pin") == 0)
      pin = std::atoi(argv[i + 1]) != 0;
    else if (std::strcmp(argv[i], "--rows") == 0) {
      if (std::strcmp(argv[i + 1], "separate") == 0) {
        rows = dashi::LesRowSections::kSeparate;
      } else if (std::strcmp(argv[i + 1], "fused") == 0) {
        rows = dashi::LesRowSections::kFused;
      } else if (std::strcmp(argv[i + 1], "auto") != 0) {
        std::fprintf(stderr, "--rows must be fused, separate or auto\n");
        return 2;
      }
    }
  }
  if (pin && !EnablePinning()) return 1;
  fftw_init_threads();
  const std::time_t now = std::time(nullptr);
  char date[64];
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  std::ifstream la("/proc/loadavg");
  std::string l1, l5, l15;
  la >> l1 >> l5 >> l15;
  std::printf(
      "les_peer_benchmark  %s  FFTW %s  load average %s %s %s  hardware threads %u  pinned %s\n",
      date, fftw_version, l1.c_str(), l5.c_str(), l15.c_str(), std::thread::hardware_concurrency(),
      pin ? "yes" : "no");
  if (paired > 0 && sections > 0) {
    std::fprintf(stderr, "--paired and --sections are two different runs: give one\n");
    return 2;
  }
  if (paired > 0) return RunPaired(sizes, paired, reps, rows);
  if (sections > 0) return RunSections(sizes, sections, reps);
  std::printf(
      "| N | T | dashi step ms | FFTW peer step ms | dashi/peer | dashi speed-up vs T=1 | "
      "peer speed-up | dashi back-to-back step ms | its speed-up | dashi rfft+irfft us | "
      "FFTW r2c+c2r us | ratio | peer rel L2 | empty section us | rows |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (int n : sizes) {
    double dashi_t1 = 0, peer_t1 = 0, solo_t1 = 0;
    for (int t : threads) {
      const dashi::LesParams p = BenchParams(n);
      auto les = dashi::LesSolver::Create(p, t, rows);
      if (!les.ok()) {
        std::fprintf(stderr, "%s\n", les.status().ToString().c_str());
        return 1;
      }
      std::unique_ptr<dashi::bench::FftwLes> peer;
      if (with_peer) peer = std::make_unique<dashi::bench::FftwLes>(p, t, les->spectrum());
      for (int s = 0; s < 3; ++s) {
        (void)les->Step();
        if (peer) peer->Step();
      }
      const double rel = peer ? RelL2(les->spectrum(), peer->spectrum()) : 0.0;
      if (!(rel < 1e-9)) {
        std::fprintf(stderr, "N=%d: the FFTW peer differs from dashi by %.3g (relative L2)\n", n,
                     rel);
        return 1;
      }
      const int r = reps > 0 ? reps : (n <= 128 ? 30 : n <= 256 ? 10 : 5);
      std::vector<double> td, tp;
      for (int i = 0; i < r; ++i) {
        auto t0 = Clock::now();
        (void)les->Step();
        auto t1 = Clock::now();
        if (peer) peer->Step();
        auto t2 = Clock::now();
        td.push_back(Ms(t0, t1));
        if (peer) tp.push_back(Ms(t1, t2));
      }
      // dashi alone, r steps back to back (no peer step between them: the pool's workers stay
      // awake and their caches warm from one step to the next, as in `dashi simulate`).
      const auto b0 = Clock::now();
      for (int i = 0; i < 2 * r; ++i) (void)les->Step();
      const double solo = Ms(b0, Clock::now()) / (2 * r);
      // 2D real FFT pair (forward + inverse) on the same thread count.
      auto fft = dashi::Fft2d::Create(n, n);
      dashi::ThreadPool pool(t);
      fft->set_thread_pool(&pool);
      // dashi through the caller-storage calls the LES itself uses, on cache-line-aligned arrays
      // (as the solver's and FFTW's are); the peer through its own buffers.
      const std::vector<double> field_v = fft->Irfft(les->spectrum());
      const dashi::AlignedVector<double> field(field_v.begin(), field_v.end());
      dashi::AlignedVector<dashi::Complex> half(fft->rows() * fft->half_cols());
      dashi::AlignedVector<double> back(field.size());
      const std::span<const double> field_s[1] = {field};
      const std::span<dashi::Complex> half_s[1] = {half};
      const std::span<double> back_s[1] = {back};
      std::vector<dashi::Complex> peer_half;
      std::vector<double> peer_back;
      std::vector<double> fd, fp;
      const int fr = 4 * r;
      for (int i = 0; i < fr; ++i) {
        auto t0 = Clock::now();
        fft->RfftMany(field_s, half_s);
        fft->IrfftManyDestroying(half_s, back_s);
        auto t1 = Clock::now();
        if (peer) {
          peer->ForwardOnce(field_v, peer_half);
          peer->InverseOnce(peer_half, peer_back);
        }
        auto t2 = Clock::now();
        fd.push_back(Ms(t0, t1) * 1e3);
        if (peer) fp.push_back(Ms(t1, t2) * 1e3);
      }
      // The fork and join alone: T one-unit chunks, empty bodies.
      double empty_us = 0;
      {
        const int calls = 2000;
        const auto e0 = Clock::now();
        for (int i = 0; i < calls; ++i) {
          pool.ParallelFor(static_cast<size_t>(t), 1, [](size_t, size_t, int) {});
        }
        empty_us = Ms(e0, Clock::now()) * 1e3 / calls;
      }
      const Stat sd = Summarise(td), sp = Summarise(tp), fsd = Summarise(fd), fsp = Summarise(fp);
      if (t == threads.front()) dashi_t1 = sd.median, peer_t1 = sp.median, solo_t1 = solo;
      std::printf(
          "| %d | %d | %.2f (%.2f) | %.2f (%.2f) | %.2f | %.2f | %.2f | %.2f | %.2f | %.0f | %.0f "
          "| %.2f | %.1e | %.2f | %s |\n",
          n, t, sd.median, sd.min, sp.median, sp.min, sp.median > 0 ? sd.median / sp.median : 0.0,
          dashi_t1 / sd.median, sp.median > 0 ? peer_t1 / sp.median : 0.0, solo, solo_t1 / solo, fsd.median, fsp.median,
          fsp.median > 0 ? fsd.median / fsp.median : 0.0, rel, empty_us,
          les->fused_rows() ? "fused" : "separate");
      std::fflush(stdout);
    }
  }
  fftw_cleanup_threads();
  return 0;
}
