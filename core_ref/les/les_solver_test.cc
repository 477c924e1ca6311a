#include "core_ref/les/les_solver.h"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <new>
#include <cstring>
#include <numbers>

#include <gtest/gtest.h>

namespace dashi {
namespace {

LesParams Small(int64_t n, double dt, double nu0, double cs, uint64_t seed) {
  LesParams p;
  p.n = n;
  p.dt = dt;
  p.nu0 = nu0;
  p.cs = cs;
  p.seed = seed;
  p.k_peak = 3;
  return p;
}

TEST(LesSolverTest, TaylorGreenDecaysAtTheExactViscousRate) {
  for (int k : {1, 2, 5}) {
    LesParams p = Small(32, 0.01, 0.02, 0.0, 1);
    p.init = LesInit::kTaylorGreen;
    p.tg_k = k;
    StatusOr<LesSolver> les = LesSolver::Create(p);
    ASSERT_TRUE(les.ok()) << les.status().ToString();
    const std::vector<double> w0 = les->Vorticity();
    const double e0 = les->Energy();
    for (int s = 0; s < 100; ++s) ASSERT_TRUE(les->Step().ok());
    const double decay = std::exp(-2.0 * p.nu0 * k * k * les->time());
    const std::vector<double> w = les->Vorticity();
    double max_err = 0, max_ref = 0;
    for (size_t i = 0; i < w.size(); ++i) {
      max_err = std::fmax(max_err, std::fabs(w[i] - w0[i] * decay));
      max_ref = std::fmax(max_ref, std::fabs(w0[i] * decay));
    }
    std::printf("Taylor-Green k=%d: max|w - exact| / max|exact| = %.3e after t = %.2f\n", k,
                max_err / max_ref, les->time());
    EXPECT_LT(max_err / max_ref, 1e-12) << "k=" << k;
    EXPECT_NEAR(les->Energy() / e0, decay * decay, 1e-12);
    // The exact energy of ψ = A sin(kx) sin(ky): u² averages to A²k²/4 per component.
    EXPECT_NEAR(e0, 0.25 * k * k * p.tg_amplitude * p.tg_amplitude, 1e-12);
  }
}

TEST(LesSolverTest, InviscidRunConservesEnergyAndEnstrophy) {
  LesParams p = Small(32, 0.002, 0.0, 0.0, 11);
  StatusOr<LesSolver> les = LesSolver::Create(p);
  ASSERT_TRUE(les.ok()) << les.status().ToString();
  const double e0 = les->Energy(), z0 = les->Enstrophy();
  EXPECT_NEAR(e0, p.energy, 1e-12);
  for (int s = 0; s < 250; ++s) ASSERT_TRUE(les->Step().ok());
  const double de = std::fabs(les->Energy() - e0) / e0;
  const double dz = std::fabs(les->Enstrophy() - z0) / z0;
  std::printf("inviscid, t = %.2f: relative energy drift %.3e, enstrophy drift %.3e\n",
              les->time(), de, dz);
  // The 2/3-truncated Galerkin system conserves both exactly; what remains is RK4's O(dt^4).
  EXPECT_LT(de, 1e-7);
  EXPECT_LT(dz, 1e-7);
}

TEST(LesSolverTest, ViscousEnstrophyNeverGrows) {
  for (double cs : {0.0, 0.17}) {
    LesParams p = Small(32, 0.005, 1e-3, cs, 5);
    StatusOr<LesSolver> les = LesSolver::Create(p);
    ASSERT_TRUE(les.ok());
    double z = les->Enstrophy();
    for (int s = 0; s < 200; ++s) {
      ASSERT_TRUE(les->Step().ok());
      const double zn = les->Enstrophy();
      ASSERT_LE(zn, z) << "cs=" << cs << " step " << s + 1;
      z = zn;
    }
  }
}

TEST(LesSolverTest, SmagorinskyDissipatesMoreThanMolecularViscosityAlone) {
  LesParams p = Small(32, 0.005, 1e-4, 0.0, 9);
  LesParams q = p;
  q.cs = 0.3;
  StatusOr<LesSolver> a = LesSolver::Create(p), b = LesSolver::Create(q);
  ASSERT_TRUE(a.ok() && b.ok());
  for (int s = 0; s < 100; ++s) ASSERT_TRUE(a->Step().ok() && b->Step().ok());
  EXPECT_LT(b->Enstrophy(), a->Enstrophy());
}

TEST(LesSolverTest, DeterministicBytes) {
  LesParams p = Small(32, 0.005, 1e-3, 0.17, 3);
  StatusOr<LesTrajectory> a = Simulate(p, 20, 10), b = Simulate(p, 20, 10);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(a->frames.size(), 3u);
  for (size_t f = 0; f < a->frames.size(); ++f) {
    EXPECT_EQ(0, std::memcmp(a->frames[f].data(), b->frames[f].data(),
                             a->frames[f].size() * sizeof(double)));
  }
  LesParams q = p;
  q.seed = 4;
  StatusOr<LesTrajectory> c = Simulate(q, 0, 1);
  ASSERT_TRUE(c.ok());
  EXPECT_NE(0, std::memcmp(a->frames[0].data(), c->frames[0].data(),
                           c->frames[0].size() * sizeof(double)));
}

// Issue 16 #5: the state after several steps is bit-identical for 1, 2, 3, 4, 7 and 8 threads,
// with and without the Smagorinsky term, at N = 8 (fewer rows than a block pair), 32 and 64; and
// through SimulateFrames. A thread count that changed a reduction order or split a packed row pair
// would change bits here.
TEST(LesSolverTest, AnyThreadCountGivesTheSameBytes) {
  for (int64_t n : {8, 32, 64}) {
    for (double cs : {0.0, 0.17}) {
      LesParams p;
      p.n = n;
      p.cs = cs;
      p.seed = 11;
      p.k_peak = 2;
      std::vector<Complex> reference;
      for (int threads : {1, 2, 3, 4, 7, 8}) {
        SCOPED_TRACE("N " + std::to_string(n) + " cs " + std::to_string(cs) + " threads " +
                     std::to_string(threads));
        StatusOr<LesSolver> les = LesSolver::Create(p, threads);
        ASSERT_TRUE(les.ok()) << les.status().ToString();
        for (int s = 0; s < 5; ++s) ASSERT_TRUE(les->Step().ok());
        if (threads == 1) {
          reference = les->spectrum();
          continue;
        }
        ASSERT_EQ(les->spectrum().size(), reference.size());
        EXPECT_EQ(0, std::memcmp(les->spectrum().data(), reference.data(),
                                 reference.size() * sizeof(Complex)));
      }
    }
  }
  LesParams p;
  p.n = 32;
  std::vector<std::vector<double>> frames[2];
  for (int k = 0; k < 2; ++k) {
    ASSERT_TRUE(SimulateFrames(
                    p, 6, 3,
                    [&](const LesFrame& f) {
                      frames[k].push_back(*f.omega);
                      return OkStatus();
                    },
                    {}, k == 0 ? 1 : 3)
                    .ok());
  }
  EXPECT_EQ(frames[0], frames[1]);
  EXPECT_FALSE(LesSolver::Create(p, 0).ok());
}

// The tiled state's padding (bins past N/2 up to the tile width of 8) stays +0 through the steps,
// whichever thread count and row sections ran them: N = 16 … 128 (9 … 65 bins: 7 padding
// columns each), with and without the Smagorinsky term.
TEST(LesSolverTest, TiledPaddingStaysPositiveZero) {
  for (int64_t n : {16, 32, 64, 128}) {
    for (double cs : {0.0, 0.17}) {
      for (int threads : {1, 3}) {
        for (LesRowSections rows : {LesRowSections::kFused, LesRowSections::kSeparate}) {
          SCOPED_TRACE("N " + std::to_string(n) + " cs " + std::to_string(cs) + " threads " +
                       std::to_string(threads) +
                       (rows == LesRowSections::kFused ? " fused" : " separate"));
          LesParams p = Small(n, 0.01, 1e-3, cs, 5);
          StatusOr<LesSolver> les = LesSolver::Create(p, threads, rows);
          ASSERT_TRUE(les.ok()) << les.status().ToString();
          StatusOr<Fft2d> fft = Fft2d::Create(n, n);
          ASSERT_TRUE(fft.ok());
          std::vector<bool> bin(fft->HalfSize(HalfLayout::kTiled), false);
          for (int64_t r = 0; r < n; ++r) {
            for (int64_t k = 0; k <= n / 2; ++k) {
              bin[fft->HalfIndex(r, k, HalfLayout::kTiled)] = true;
            }
          }
          int64_t padding = 0;
          for (int s = 0; s <= 6; ++s) {
            if (s > 0) {
              ASSERT_TRUE(les->Step().ok());
            }
            const std::span<const Complex> state = les->tiled_state();
            ASSERT_EQ(state.size(), bin.size());
            padding = 0;
            for (size_t i = 0; i < state.size(); ++i) {
              if (bin[i]) continue;
              ++padding;
              const double parts[2] = {state[i].real(), state[i].imag()};
              uint64_t bits[2];
              std::memcpy(bits, parts, sizeof bits);
              ASSERT_EQ(bits[0] | bits[1], 0u) << "step " << s << " index " << i;
            }
          }
          EXPECT_EQ(padding, n * 7);
        }
      }
    }
  }
}

// The fused row section (inverse row passes, products and forward row passes per block of 16
// rows) and the three separate sections give the same bytes at every thread count, with and
// without the Smagorinsky term; kAuto fuses exactly when N/16 >= 4·threads.
TEST(LesSolverTest, FusedAndSeparateRowSectionsGiveTheSameBytes) {
  for (int64_t n : {8, 16, 32, 64}) {
    for (double cs : {0.0, 0.17}) {
      LesParams p;
      p.n = n;
      p.cs = cs;
      p.seed = 5;
      p.k_peak = 2;
      StatusOr<LesSolver> reference = LesSolver::Create(p, 1, LesRowSections::kSeparate);
      ASSERT_TRUE(reference.ok());
      EXPECT_FALSE(reference->fused_rows());
      for (int s = 0; s < 4; ++s) ASSERT_TRUE(reference->Step().ok());
      for (int threads : {1, 2, 3, 5}) {
        for (LesRowSections mode :
             {LesRowSections::kFused, LesRowSections::kSeparate, LesRowSections::kAuto}) {
          SCOPED_TRACE("N " + std::to_string(n) + " cs " + std::to_string(cs) + " threads " +
                       std::to_string(threads) + " mode " + std::to_string(static_cast<int>(mode)));
          StatusOr<LesSolver> les = LesSolver::Create(p, threads, mode);
          ASSERT_TRUE(les.ok());
          const bool fused = mode == LesRowSections::kFused ||
                             (mode == LesRowSections::kAuto && n / 16 >= 4 * threads);
          EXPECT_EQ(les->fused_rows(), fused);
          for (int s = 0; s < 4; ++s) ASSERT_TRUE(les->Step().ok());
          ASSERT_EQ(les->spectrum().size(), reference->spectrum().size());
          EXPECT_EQ(0, std::memcmp(les->spectrum().data(), reference->spectrum().data(),
                                   reference->spectrum().size() * sizeof(Complex)));
        }
      }
    }
  }
}

TEST(LesSolverTest, RandomFieldIsRealDealiasedAndZeroMean) {
  LesParams p = Small(64, 0.005, 1e-3, 0.17, 21);
  StatusOr<LesSolver> les = LesSolver::Create(p);
  ASSERT_TRUE(les.ok());
  const SpectralGrid g(64);
  const std::vector<Complex> spectrum = les->spectrum();
  for (int64_t i = 0; i < g.n(); ++i) {
    for (int64_t j = 0; j < g.half_cols(); ++j) {
      if (!g.Dealiased(i, j)) {
        ASSERT_EQ(spectrum[i * g.half_cols() + j], Complex(0, 0));
      }
    }
  }
  const std::vector<double> w = les->Vorticity();
  double mean = 0, sq = 0;
  for (double x : w) {
    mean += x;
    sq += x * x;
  }
  mean /= w.size();
  EXPECT_NEAR(mean, 0.0, 1e-12);
  // Physical-space enstrophy agrees with the spectral one (Parseval).
  EXPECT_NEAR(0.5 * sq / w.size(), les->Enstrophy(), 1e-12 * les->Enstrophy());
}

TEST(LesSolverTest, RejectsNonsensicalParameters) {
  LesParams p;
  p.n = 100;
  EXPECT_EQ(LesSolver::Create(p).status().code(), StatusCode::kInvalidArgument);
  p = LesParams();
  p.dt = 0;
  EXPECT_FALSE(LesSolver::Create(p).ok());
  p.dt = -1;
  EXPECT_FALSE(LesSolver::Create(p).ok());
  p = LesParams();
  p.nu0 = std::nan("");
  EXPECT_FALSE(LesSolver::Create(p).ok());
  p = LesParams();
  p.cs = -0.1;
  EXPECT_FALSE(LesSolver::Create(p).ok());
  EXPECT_FALSE(Simulate(LesParams(), -1, 1).ok());
  EXPECT_FALSE(Simulate(LesParams(), 1, 0).ok());
  EXPECT_FALSE(ParseLesInit("vortex").ok());
  EXPECT_TRUE(ParseLesInit("taylor-green").ok());
}

TEST(LesSolverTest, BlowUpIsReportedWithTheStep) {
  LesParams p = Small(16, 5.0, 0.0, 0.0, 2);
  p.energy = 1e6;
  StatusOr<LesSolver> les = LesSolver::Create(p);
  ASSERT_TRUE(les.ok());
  Status st;
  for (int s = 0; s < 500 && st.ok(); ++s) st = les->Step();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("diverged at step"), std::string::npos) << st.message();
}

TEST(LesSolverTest, SimulateFramesHandsOverExactlyWhatSimulateKeeps) {
  LesParams p = Small(32, 0.005, 1e-3, 0.17, 3);
  StatusOr<LesTrajectory> kept = Simulate(p, 20, 5);
  ASSERT_TRUE(kept.ok());
  int64_t seen = 0;
  Status st = SimulateFrames(p, 20, 5, [&](const LesFrame& f) -> Status {
    EXPECT_EQ(f.step, f.index * 5);
    EXPECT_EQ(*f.omega, kept->frames[static_cast<size_t>(f.index)]);
    EXPECT_EQ(f.energy, kept->energy[static_cast<size_t>(f.index)]);
    ++seen;
    return OkStatus();
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(seen, 5);
  // A consumer's error stops the run and comes back unchanged.
  st = SimulateFrames(p, 20, 5, [](const LesFrame& f) -> Status {
    return f.index == 2 ? DataLossError("disk gone") : OkStatus();
  });
  EXPECT_EQ(st.code(), StatusCode::kDataLoss);
}

// EstimateSimulateBytes counts exactly what a solver allocates (its arrays with separate rows,
// which the fused rows do without), one frame per kept state and a save's two spectrum copies:
// fails with the old "24 N²" (39 N² of arrays at N = 8, 27.75 at 64) or with an array left out.
TEST(LesSolverTest, EstimateSimulateBytesCountsTheSolversArrays) {
  auto params = [](int64_t n) {
    LesParams p = Small(n, 0.005, 1e-3, 0.17, 1);
    p.k_peak = 2;  // N = 8 allows k_peak ≤ 2
    return p;
  };
  for (int64_t n : {8, 16, 32, 64, 128, 256, 512}) {
    const int64_t cells = n * n;
    const int64_t copies = 2 * 16 * n * (n / 2 + 1);  // two of N·(N/2 + 1) complex values
    StatusOr<int64_t> estimate = EstimateSimulateBytes(params(n), 0, 1);
    ASSERT_TRUE(estimate.ok()) << estimate.status().ToString();
    for (int threads : {1, 3}) {
      for (LesRowSections rows : {LesRowSections::kSeparate, LesRowSections::kFused}) {
        StatusOr<LesSolver> les = LesSolver::Create(params(n), threads, rows);
        ASSERT_TRUE(les.ok()) << les.status().ToString();
        const int64_t unused = rows == LesRowSections::kFused ? 9 * cells * 8 : 0;
        EXPECT_EQ(*estimate, les->WorkingSetBytes() + unused + 8 * cells + copies)
            << "N = " << n << ", " << threads << " threads, "
            << (rows == LesRowSections::kFused ? "fused" : "separate") << " rows";
      }
    }
    // Each further kept frame adds N² doubles.
    StatusOr<int64_t> kept = EstimateSimulateBytes(params(n), 100, 10);
    ASSERT_TRUE(kept.ok());
    EXPECT_EQ(*kept - *estimate, 10 * 8 * cells) << "N = " << n;
  }
  EXPECT_FALSE(EstimateSimulateBytes(params(64), -1, 1).ok());
  EXPECT_FALSE(EstimateSimulateBytes(params(64), 10, 0).ok());
  EXPECT_FALSE(EstimateSimulateBytes(params(64), int64_t{1} << 62, 1).ok());
}

// Issue 12 #6: out of memory is RESOURCE_EXHAUSTED from core_ref, never an escaping bad_alloc.
TEST(LesSolverTest, OutOfMemoryInsideTheRunIsResourceExhausted) {
  LesParams p = Small(32, 0.005, 1e-3, 0.17, 3);
  Status st = SimulateFrames(p, 4, 1, [](const LesFrame& f) -> Status {
    if (f.index == 1) throw std::bad_alloc();
    return OkStatus();
  });
  EXPECT_EQ(st.code(), StatusCode::kResourceExhausted) << st.ToString();
}

#if !defined(__SANITIZE_ADDRESS__)
// The real thing, in a child process whose address space is capped 128 MiB above what it uses:
// keeping 2001 frames of 128² doubles (256 MiB) must fail with a Status, not abort. (Not built
// under AddressSanitizer, whose shadow memory cannot live under an address-space cap.)
TEST(LesSolverTest, SimulateUnderAnAddressSpaceCapReturnsResourceExhausted) {
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    long pages = 0;
    if (FILE* f = std::fopen("/proc/self/statm", "r")) {
      if (std::fscanf(f, "%ld", &pages) != 1) pages = 0;
      std::fclose(f);
    }
    const rlim_t cap = static_cast<rlim_t>(pages) * ::sysconf(_SC_PAGESIZE) + (rlim_t{128} << 20);
    struct rlimit lim = {cap, cap};
    if (pages <= 0 || ::setrlimit(RLIMIT_AS, &lim) != 0) ::_exit(10);
    LesParams p = Small(128, 0.005, 1e-3, 0.17, 3);
    StatusOr<LesTrajectory> t = Simulate(p, 2000, 1);
    if (t.ok()) ::_exit(11);
    if (t.status().code() != StatusCode::kResourceExhausted) ::_exit(12);
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "the child died (signal " << WTERMSIG(status) << ")";
  EXPECT_EQ(WEXITSTATUS(status), 0) << "10: no cap, 11: no error, 12: wrong code";
}
#endif

}  // namespace
}  // namespace dashi
