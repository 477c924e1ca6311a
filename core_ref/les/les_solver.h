// 2D incompressible Navier–Stokes in vorticity form on [0, 2π)², N×N, pseudo-spectral with
// 2/3-rule dealiasing and Smagorinsky eddy viscosity ν_t = (C_s Δ)²|S|, Δ = 2π/N. Time stepping is
// integrating-factor RK4: the molecular viscosity ν0 is integrated exactly, the advection and eddy
// diffusion explicitly (docs/MATH.md §LES). Deterministic: same parameters, same bytes.
//
//   LesParams p;  p.n = 128;  p.seed = 7;
//   StatusOr<LesSolver> les = LesSolver::Create(p);
//   for (int s = 0; s < 100; ++s) DASHI_RETURN_IF_ERROR(les->Step());
//   std::vector<double> w = les->Vorticity();  double e = les->Energy();
#ifndef DASHI_CORE_REF_LES_LES_SOLVER_H_
#define DASHI_CORE_REF_LES_LES_SOLVER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core_ref/fft/aligned_vector.h"
#include "core_ref/fft/fft.h"
#include "core_ref/les/spectral_grid.h"
#include "core_ref/parallel/thread_pool.h"
#include "core_ref/status/status.h"

namespace dashi {

enum class LesInit { kRandom, kTaylorGreen };

// "random" / "taylor-green"; INVALID_ARGUMENT otherwise.
StatusOr<LesInit> ParseLesInit(const std::string& name);
const char* LesInitName(LesInit init);

struct LesParams {
  int64_t n = 128;     // power of two, 8..4096
  double dt = 0.005;   // > 0
  double nu0 = 1e-3;   // molecular viscosity, ≥ 0
  double cs = 0.17;    // Smagorinsky constant, ≥ 0 (0 turns the model off)
  uint64_t seed = 1;   // random initial condition
  LesInit init = LesInit::kRandom;
  // Random initial condition: shell spectrum E(k) ∝ k^4 exp(−2 (k/k_peak)²) on 1 ≤ |k| ≤ k_cut
  // (k_cut = min(3 k_peak, N/3)), random phases, rescaled to this kinetic energy ½⟨|u|²⟩.
  double energy = 0.5;
  int k_peak = 4;
  // Taylor–Green: ω = 2 k² A sin(k x) sin(k y), an exact solution decaying as exp(−2 ν0 k² t).
  int tg_k = 1;
  double tg_amplitude = 1.0;
};

Status ValidateLesParams(const LesParams& p);

// How a step's transformed products are arranged (the bits are the same either way;
// les_solver_test checks it): kFused runs the inverse row passes, the products and the forward
// row passes as one parallel section over blocks of 16 rows (the real fields stay in the
// thread's cache, but only N/16 units to balance over the threads); kSeparate runs them as three
// sections with the real fields in memory (6·N/16, N²/1024 and 3·N/16 units). kAuto fuses when
// every thread gets at least four blocks (N/16 >= 4·threads; docs/PERF.md has the
// measurements).
enum class LesRowSections { kAuto, kFused, kSeparate };

class LesSolver {
 public:
  // `threads` (>= 1; 1 runs everything on the calling thread) splits the FFT passes and the
  // pointwise loops of a step over a pool of that many std::threads. Every value is computed by
  // the same operations whichever thread computes it, and the reductions (energy, enstrophy,
  // the finiteness check) stay serial in their fixed order: the state is bit-identical for any
  // thread count (les_solver_test checks 1..4).
  static StatusOr<LesSolver> Create(const LesParams& params, int threads = 1,
                                    LesRowSections rows = LesRowSections::kAuto);

  // Whether this solver runs the fused row section (after kAuto's choice).
  bool fused_rows() const { return fused_rows_; }

  // One IF-RK4 step of size dt. An error (naming the step) if the state stops being finite.
  Status Step();

  const LesParams& params() const { return params_; }
  int64_t step() const { return step_; }
  double time() const { return static_cast<double>(step_) * params_.dt; }

  // The state: ω̂ in Fft2d::Rfft layout (N × (N/2+1), row-major), unnormalised forward transform
  // (a copy: the solver keeps it tiled, see Work).
  std::vector<Complex> spectrum() const;
  // The state as the solver keeps it: Fft2d::HalfLayout::kTiled, the padding bins past N/2
  // (where N/2 + 1 is not a multiple of the tile width) all +0.
  std::span<const Complex> tiled_state() const { return w_hat_; }
  std::vector<double> Vorticity() const;  // N×N, row i ↔ y, column j ↔ x

  double Energy() const;     // ½⟨|u|²⟩
  double Enstrophy() const;  // ½⟨ω²⟩

  // Bytes of the state and working arrays this solver holds (their capacities): what
  // EstimateSimulateBytes counts for the solver, less the real fields the fused rows never
  // allocate. (The FFT's tables and per-thread scratch, a few rows each, are not counted.)
  int64_t WorkingSetBytes() const;

 private:
  LesSolver(const LesParams& p, Fft2d fft, int threads, LesRowSections rows);
  // The six derivative spectra of x at element (i, j), stored at idx, into work_.spec (four
  // without the Smagorinsky term).
  void ForwardDerivatives(int64_t i, int64_t j, int64_t idx, Complex x);
  // work_.spec → (inverse FFTs) → products → (forward FFTs) → work_.product_hat; the
  // right-hand side dt · (advection + eddy diffusion), dealiased, is finished from these.
  void TransformedProducts();

  LesParams params_;
  SpectralGrid grid_;
  std::unique_ptr<ThreadPool> pool_;  // null for one thread; on the heap: fft_ points at it
  Fft2d fft_;
  AlignedVector<Complex> w_hat_;       // tiled (HalfLayout::kTiled)
  AlignedVector<double> decay_half_;   // exp(−ν0 k² dt/2) per half-spectrum cell, same layout
  AlignedVector<double> decay_full_;   // exp(−ν0 k² dt)
  int64_t step_ = 0;
  bool fused_rows_ = false;  // LesRowSections::kFused, after kAuto's choice
  // The step's working arrays, allocated once (with the state and the decay factors: 14 complex and
  // 2 real tiled half spectra, 30·N·⌈(N/2 + 1)/8⌉·8 doubles, and 9 N² with separate rows: 39 N² at
  // N ≤ 16, 25.9 N² at N = 128, 24.5 N² at N = 512), on cache lines (AlignedVector). Every half
  // spectrum the solver keeps is tiled (fft.h, HalfLayout: tiles of 16 rows × 8 columns, 2 KiB, one
  // row of tiles after the other): the row passes read one contiguous run per 16 rows, the column
  // passes 2 KiB runs instead of one 128-byte piece per row (row-major rows of (N/2 + 1)·16 bytes
  // mostly start inside a line, and a column of them walks one page per row at N ≥ 512), and the
  // pointwise sections one tile per unit. The padding (bins past N/2) stays zero. The same bits as
  // the row-major layout: only where values live changes.
  struct Work {
    AlignedVector<Complex> spec[6];         // û, v̂, ω̂_x, ω̂_y, û_x, (u_y + v_x)^ (destroyed)
    AlignedVector<double> real[6];          // their inverse transforms (separate rows only)
    AlignedVector<double> products[3];      // −(u ω_x + v ω_y), ν_t ω_x, ν_t ω_y (idem)
    AlignedVector<Complex> product_hat[3];  // their forward transforms
    AlignedVector<Complex> stage[3];        // the RK4 right-hand sides a, b, c
    AlignedVector<Complex> next;            // the new state
  } work_;
};

// Spectral diagnostics of any ω̂ in Rfft layout on an N×N grid: ½⟨|u|²⟩ and ½⟨ω²⟩, summed over
// the half spectrum in row-major order with Parseval weights.
double SpectralEnergy(const SpectralGrid& grid, const std::vector<Complex>& w_hat);
double SpectralEnstrophy(const SpectralGrid& grid, const std::vector<Complex>& w_hat);

// The bytes Simulate(params, steps, save_every) holds at its peak, as an upper bound of what its
// arrays take: the kept frames (steps/save_every + 1 of N² doubles, the one being made
// included), the solver's arrays (LesSolver::WorkingSetBytes with separate rows, the larger
// case: 30·N·⌈(N/2 + 1)/8⌉·8 + 9·N² doubles) and a save's two row-major copies of the spectrum
// (N·(N/2 + 1) complex values each); not the FFT's tables and scratch (a few rows each).
// INVALID_ARGUMENT when the arithmetic overflows.
StatusOr<int64_t> EstimateSimulateBytes(const LesParams& params, int64_t steps, int64_t save_every);

struct LesTrajectory {
  LesParams params;
  int64_t steps = 0;
  int64_t save_every = 1;
  std::vector<std::vector<double>> frames;  // frame f is the state at step f·save_every
  std::vector<double> times, energy, enstrophy;
};

// One saved state of a run, handed to SimulateFrames' consumer (valid during the call only).
struct LesFrame {
  int64_t index = 0;  // frame f is the state at step f·save_every
  int64_t step = 0;
  double time = 0.0;
  const std::vector<double>* omega = nullptr;  // N×N vorticity
  double energy = 0.0, enstrophy = 0.0;
};

// Runs `steps` steps and hands frame 0 and every `save_every`-th state to `consume` as it is made
// (nothing is kept: memory does not grow with `steps`); an error from `consume` stops the run and
// is returned. Out of memory is RESOURCE_EXHAUSTED, never an exception.
// `threads` as in LesSolver::Create: the frames do not depend on it.
Status SimulateFrames(const LesParams& params, int64_t steps, int64_t save_every,
                      const std::function<Status(const LesFrame&)>& consume,
                      const std::function<void(int64_t, int64_t)>& progress = {},
                      int threads = 1);

// Runs `steps` steps and keeps frame 0 and every `save_every`-th state. `progress` (optional) is
// called after each saved frame with (step, steps).
StatusOr<LesTrajectory> Simulate(const LesParams& params, int64_t steps, int64_t save_every,
                                 const std::function<void(int64_t, int64_t)>& progress = {});

}  // namespace dashi

#endif  // DASHI_CORE_REF_LES_LES_SOLVER_H_
