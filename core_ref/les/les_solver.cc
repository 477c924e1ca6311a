#include "core_ref/les/les_solver.h"

#include <algorithm>
#include <cmath>
#include <new>
#include <numbers>

#include "core_ref/math/exp.h"
#include "core_ref/math/sincospi.h"
#include "core_ref/prng/prng.h"
#include "core_ref/status/checked_arithmetic.h"

namespace dashi {
namespace {

constexpr Complex kI(0.0, 1.0);

// Every half spectrum the solver keeps (les_solver.h, Work).
constexpr HalfLayout kLayout = HalfLayout::kTiled;

// x·y for std::complex<double> as GCC's __muldc3 computes it for finite operands —
// (xr·yr − xi·yi, xr·yi + xi·yr), each product rounded, no FMA — written inline: the same bits
// without a library call per element (GCC calls __muldc3 for every complex product). Only
// non-finite products differ (no Annex G recovery of infinities), and a non-finite state stops
// the run at the same step either way.
inline Complex Mul(Complex x, Complex y) {
  const double ac = x.real() * y.real(), bd = x.imag() * y.imag();
  const double ad = x.real() * y.imag(), bc = x.imag() * y.real();
  return Complex(ac - bd, ad + bc);
}

}  // namespace

StatusOr<LesInit> ParseLesInit(const std::string& name) {
  if (name == "random") return LesInit::kRandom;
  if (name == "taylor-green") return LesInit::kTaylorGreen;
  return InvalidArgumentError("initial condition '" + name +
                              "' is not one of: random, taylor-green");
}

const char* LesInitName(LesInit init) {
  return init == LesInit::kRandom ? "random" : "taylor-green";
}

Status ValidateLesParams(const LesParams& p) {
  if (p.n < 8 || p.n > 4096 || !IsPowerOfTwo(static_cast<size_t>(p.n))) {
    return InvalidArgumentError("N = " + std::to_string(p.n) +
                                " must be a power of two in [8, 4096]");
  }
  if (!std::isfinite(p.dt) || !(p.dt > 0)) {
    return InvalidArgumentError("dt = " + std::to_string(p.dt) + " must be finite and > 0");
  }
  if (!std::isfinite(p.nu0) || p.nu0 < 0) {
    return InvalidArgumentError("nu0 = " + std::to_string(p.nu0) + " must be finite and >= 0");
  }
  if (!std::isfinite(p.cs) || p.cs < 0) {
    return InvalidArgumentError("Cs = " + std::to_string(p.cs) + " must be finite and >= 0");
  }
  if (p.init == LesInit::kRandom) {
    if (!std::isfinite(p.energy) || !(p.energy > 0)) {
      return InvalidArgumentError("initial energy must be finite and > 0");
    }
    if (p.k_peak < 1 || p.k_peak > p.n / 3) {
      return InvalidArgumentError("k_peak = " + std::to_string(p.k_peak) + " must be in [1, N/3]");
    }
  } else {
    if (p.tg_k < 1 || p.tg_k > p.n / 3) {
      return InvalidArgumentError("Taylor-Green k = " + std::to_string(p.tg_k) +
                                  " must be in [1, N/3]");
    }
    if (!std::isfinite(p.tg_amplitude)) {
      return InvalidArgumentError("Taylor-Green amplitude must be finite");
    }
  }
  return OkStatus();
}

double SpectralEnergy(const SpectralGrid& g, const std::vector<Complex>& w) {
  const double n4 = static_cast<double>(g.n()) * g.n() * g.n() * g.n();
  double sum = 0.0;
  for (int64_t i = 0; i < g.n(); ++i) {
    for (int64_t j = 0; j < g.half_cols(); ++j) {
      const double k2 = g.K2(i, j);
      if (k2 == 0) continue;
      sum += g.ParsevalWeight(j) * SquaredMagnitude(w[i * g.half_cols() + j]) / k2;
    }
  }
  return 0.5 * sum / n4;
}

double SpectralEnstrophy(const SpectralGrid& g, const std::vector<Complex>& w) {
  const double n4 = static_cast<double>(g.n()) * g.n() * g.n() * g.n();
  double sum = 0.0;
  for (int64_t i = 0; i < g.n(); ++i) {
    for (int64_t j = 0; j < g.half_cols(); ++j) {
      sum += g.ParsevalWeight(j) * SquaredMagnitude(w[i * g.half_cols() + j]);
    }
  }
  return 0.5 * sum / n4;
}

// kAuto fuses the row sections when every thread gets at least this many blocks of 16 rows. On
// the 16-core Intel host the separate sections measured faster at 12 and 16 threads (N = 512:
// 4.37-4.90 against 4.61-5.41 ms a step at 16), within the noise at 8 and at 1; on the 2-core
// development VM the fused one is faster at 1 thread (docs/PERF.md, "a join that counts units,
// fused columns (negative) and separate rows").
constexpr size_t kFusedRowBlocksPerThread = 4;

LesSolver::LesSolver(const LesParams& p, Fft2d fft, int threads, LesRowSections rows)
    : params_(p),
      grid_(p.n),
      pool_(threads > 1 ? std::make_unique<ThreadPool>(threads) : nullptr),
      fft_(std::move(fft)) {
  fft_.set_thread_pool(pool_.get());
  const size_t hs = fft_.HalfSize(kLayout);
  const size_t cells = static_cast<size_t>(p.n) * static_cast<size_t>(p.n);
  fused_rows_ = rows == LesRowSections::kFused ||
                (rows == LesRowSections::kAuto &&
                 static_cast<size_t>(p.n) / 16 >= kFusedRowBlocksPerThread *
                                                      static_cast<size_t>(threads));
  for (auto& v : work_.spec) v.resize(hs);
  if (!fused_rows_) {
    // The real fields are only kept in memory on the unfused path (see TransformedProducts).
    for (auto& v : work_.real) v.resize(cells);
    for (auto& v : work_.products) v.resize(cells);
  }
  for (auto& v : work_.product_hat) v.resize(hs);
  for (auto& v : work_.stage) v.resize(hs);
  work_.next.resize(hs);
}

StatusOr<LesSolver> LesSolver::Create(const LesParams& p, int threads, LesRowSections rows) {
  DASHI_RETURN_IF_ERROR(ValidateLesParams(p));
  if (threads < 1 || threads > 1024) {
    return InvalidArgumentError("LES threads = " + std::to_string(threads) +
                                " must be in [1, 1024]");
  }
  DASHI_ASSIGN_OR_RETURN(Fft2d fft, Fft2d::Create(static_cast<size_t>(p.n),
                                                  static_cast<size_t>(p.n)));
  LesSolver s(p, std::move(fft), threads, rows);
  const SpectralGrid& g = s.grid_;
  const int64_t n = p.n, hc = g.half_cols();

  const size_t layout_size = s.fft_.HalfSize(kLayout);
  s.decay_half_.resize(layout_size);  // padding: zero, never read
  s.decay_full_.resize(layout_size);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < hc; ++j) {
      const size_t at = s.fft_.HalfIndex(static_cast<size_t>(i), static_cast<size_t>(j), kLayout);
      s.decay_half_[at] = Exp(-p.nu0 * g.K2(i, j) * (0.5 * p.dt));
      s.decay_full_[at] = Exp(-p.nu0 * g.K2(i, j) * p.dt);
    }
  }
  // The initial state is built row-major (Rfft's layout), then stored tiled.
  std::vector<Complex> w0;

  if (p.init == LesInit::kTaylorGreen) {
    // sin(k·x) at x = 2πj/N is SinPi(2kj/N) with the exact argument ((2kj) mod 2N)/N.
    const double k = p.tg_k, amp = 2.0 * k * k * p.tg_amplitude;
    const int64_t period = 2 * n;
    std::vector<double> sin_k(static_cast<size_t>(n));
    for (int64_t j = 0; j < n; ++j) {
      sin_k[j] = SinPi(static_cast<double>((2 * p.tg_k * j) % period) / static_cast<double>(n));
    }
    std::vector<double> w(static_cast<size_t>(n * n));
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) w[i * n + j] = amp * sin_k[j] * sin_k[i];
    }
    w0 = s.fft_.Rfft(w);
  } else {
    // Random phases from the counter-based PRNG keyed by (seed, t = 0, kx, ky): one draw per
    // independent mode (kx > 0, or kx = 0 and ky > 0); the kx = 0 column gets its Hermitian
    // partner conj(ŵ(0, ky)) at −ky.
    w0.assign(g.half_size(), Complex(0, 0));
    const double k_cut = std::min<double>(3.0 * p.k_peak, static_cast<double>(g.dealias_kmax()));
    for (int64_t i = 0; i < n; ++i) {
      const int64_t ky = g.Ky(i);
      for (int64_t j = 0; j < hc; ++j) {
        const int64_t kx = g.Kx(j);
        if (!(kx > 0 || (kx == 0 && ky > 0))) continue;
        if (!g.Dealiased(i, j)) continue;
        const double kmag = std::sqrt(g.K2(i, j));
        if (kmag < 1.0 || kmag > k_cut) continue;
        const double r = kmag / p.k_peak;
        const double ek = r * r * r * r * Exp(-2.0 * r * r);
        // |ŵ|² ∝ k·E(k): E(k) spread over a shell of circumference 2πk, times |ŵ|²/|û|² = k².
        const double amp = std::sqrt(kmag * ek);
        // Phase 2π·u: e^{iφ} = (CosPi(2u), SinPi(2u)), 2u exact.
        const SinCos phase = SinCosPi(2.0 * CounterUniform(p.seed, 0, kx, ky, 0));
        const Complex c(amp * phase.cos, amp * phase.sin);
        w0[i * hc + j] = c;
        if (kx == 0) w0[g.RowOf(-ky) * hc + j] = std::conj(c);
      }
    }
    const double e = SpectralEnergy(g, w0);
    const double scale = std::sqrt(p.energy / e);
    for (Complex& c : w0) c *= scale;
  }
  // Keep the state dealiased from the start.
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < hc; ++j) {
      if (!g.Dealiased(i, j)) w0[i * hc + j] = 0.0;
    }
  }
  s.w_hat_.resize(layout_size);
  s.fft_.ConvertHalf(w0, HalfLayout::kRowMajor, s.w_hat_, kLayout);
  return s;
}

// One step is four right-hand-side evaluations, each of them
//   A  (elements of the spectrum) finish the previous stage's right-hand side from the transformed
//      products, form this stage's input x (ŵ or an RK4 combination) and the six spectra of
//      the derivatives of x: u, v, ω_x, ω_y, and with the Smagorinsky term u_x and u_y + v_x;
//   B  the inverse real FFTs of those spectra (two parallel sections for all of them);
//   C  (grid cells) the products: advection −(u ω_x + v ω_y), and ν_t ω_x, ν_t ω_y;
//   D  the forward real FFTs of the products (two parallel sections);
// and a last pass finishes the fourth stage and forms the new state. Every element is computed
// by one thread with exactly the operations, in the same order, of the plain formulation
// (right-hand side → stored → RK4 combination → stored → derivative spectra): fusing the passes
// keeps each intermediate in a register instead of memory, never changes a rounding.
namespace {

// The right-hand side at one spectral element from its transformed products (phase D):
// dt · (−(u·∇)ω + ∇·(ν_t ∇ω)), zero outside the 2/3-rule region.
inline Complex FinishRhs(const SpectralGrid& g, int64_t i, int64_t j, int64_t idx, double kx,
                         double ky, bool smagorinsky, double dt, const Complex* adv_hat,
                         const Complex* fx_hat, const Complex* fy_hat) {
  Complex r = adv_hat[idx];
  if (smagorinsky) {
    const Complex div = Mul(kI * kx, fx_hat[idx]) + Mul(kI * ky, fy_hat[idx]);
    r += div;
  }
  return g.Dealiased(i, j) ? r * dt : Complex(0, 0);
}

}  // namespace

void LesSolver::ForwardDerivatives(int64_t i, int64_t j, int64_t idx, Complex x) {
  const SpectralGrid& g = grid_;
  const double ky = static_cast<double>(g.Ky(i));
  const double kx = static_cast<double>(g.Kx(j));
  const double k2 = g.K2(i, j);
  const Complex psi = k2 > 0 ? x / k2 : Complex(0, 0);
  const Complex u_hat = Mul(kI * ky, psi);    // u = ∂ψ/∂y
  const Complex v_hat = Mul(-kI * kx, psi);   // v = −∂ψ/∂x
  work_.spec[0][idx] = u_hat;
  work_.spec[1][idx] = v_hat;
  work_.spec[2][idx] = Mul(kI * kx, x);
  work_.spec[3][idx] = Mul(kI * ky, x);
  if (params_.cs > 0) {
    // |S| = sqrt(2 S_ij S_ij) = sqrt(4 u_x² + (u_y + v_x)²) for divergence-free (u, v).
    work_.spec[4][idx] = Mul(kI * kx, u_hat);
    const Complex uy = Mul(kI * ky, u_hat);
    const Complex vx = Mul(kI * kx, v_hat);
    work_.spec[5][idx] = uy + vx;
  }
}

namespace {

// The products at grid cells [0, count) of the given arrays (u, v, ω_x, ω_y, u_x, u_y + v_x →
// advection, ν_t ω_x, ν_t ω_y): one expression per cell, whichever pass calls it.
void Products(const double* const* real, double* const* products, size_t count,
              bool smagorinsky, double c2) {
  const double* u = real[0];
  const double* v = real[1];
  const double* wx = real[2];
  const double* wy = real[3];
  double* adv = products[0];
  for (size_t k = 0; k < count; ++k) {
    const double pa = u[k] * wx[k];
    const double pb = v[k] * wy[k];
    adv[k] = -(pa + pb);
  }
  if (smagorinsky) {
    const double* ux = real[4];
    const double* shear = real[5];
    double* fx = products[1];
    double* fy = products[2];
    for (size_t k = 0; k < count; ++k) {
      const double a = 4.0 * ux[k] * ux[k];
      const double sb = shear[k] * shear[k];
      const double nu_t = c2 * std::sqrt(a + sb);
      fx[k] = nu_t * wx[k];
      fy[k] = nu_t * wy[k];
    }
  }
}

}  // namespace

void LesSolver::TransformedProducts() {
  const ThreadPool* pool = pool_.get();
  const bool smagorinsky = params_.cs > 0;
  const size_t count = smagorinsky ? 6 : 4;
  const size_t nproducts = smagorinsky ? 3 : 1;
  const double delta = 2.0 * std::numbers::pi / static_cast<double>(grid_.n());
  const double c2 = (params_.cs * delta) * (params_.cs * delta);
  std::span<Complex> spec[6];
  std::span<Complex> out[3];
  for (size_t a = 0; a < count; ++a) spec[a] = work_.spec[a];
  for (size_t p = 0; p < nproducts; ++p) out[p] = work_.product_hat[p];
  const size_t n = static_cast<size_t>(grid_.n());
  if (fused_rows_) {
    // The inverse row passes, the products and the forward row passes run as one section, block
    // by block, the real fields only ever in the thread's cache. (With few blocks per thread,
    // the separate passes below balance better: each of them has count or nproducts times as
    // many units.)
    std::span<const Complex> spec_in[6];
    for (size_t a = 0; a < count; ++a) spec_in[a] = work_.spec[a];
    fft_.ColumnsMany(std::span(spec, count), /*inverse=*/true, kLayout);
    fft_.InverseRowsMapForwardRows(
        std::span(spec_in, count), std::span(out, nproducts),
        [&](size_t b, size_t e, const double* const* real, double* const* products) {
          Products(real, products, (e - b) * n, smagorinsky, c2);
        },
        kLayout);
    fft_.ColumnsMany(std::span(out, nproducts), /*inverse=*/false, kLayout);
    return;
  }
  std::span<double> real[6];
  for (size_t a = 0; a < count; ++a) real[a] = work_.real[a];
  fft_.IrfftManyDestroying(std::span(spec, count), std::span(real, count), kLayout);
  ParallelForBalanced(pool, n * n, 1024, [&](size_t b, size_t e, int) {
    const double* in[6];
    double* prod[3];
    for (size_t a = 0; a < count; ++a) in[a] = work_.real[a].data() + b;
    for (size_t p = 0; p < nproducts; ++p) prod[p] = work_.products[p].data() + b;
    Products(in, prod, e - b, smagorinsky, c2);
  });
  std::span<const double> prod_in[3];
  for (size_t p = 0; p < nproducts; ++p) prod_in[p] = work_.products[p];
  fft_.RfftMany(std::span(prod_in, nproducts), std::span(out, nproducts), kLayout);
}

Status LesSolver::Step() {
  const SpectralGrid& g = grid_;
  const int64_t hc = g.half_cols();
  const ThreadPool* pool = pool_.get();
  const bool smagorinsky = params_.cs > 0;
  const double dt = params_.dt;
  const Complex* w = w_hat_.data();
  const double* eh = decay_half_.data();
  const double* ef = decay_full_.data();
  Complex* ka = work_.stage[0].data();
  Complex* kb = work_.stage[1].data();
  Complex* kc = work_.stage[2].data();
  const Complex* adv_hat = work_.product_hat[0].data();
  const Complex* fx_hat = work_.product_hat[1].data();
  const Complex* fy_hat = work_.product_hat[2].data();
  const int64_t n = g.n();
  // The pointwise sections walk the half spectrum tile by tile (16 rows × 8 columns, in memory
  // order): a unit is one contiguous run of 2 KiB per array. Each element is written by one unit
  // only; `worker` only picks a per-thread flag.
  const int64_t tile_rows = std::min<int64_t>(16, n);
  const int64_t tile_cols = 8;
  const int64_t blocks = (hc + tile_cols - 1) / tile_cols;
  auto for_elements = [&](auto&& element) {
    const auto units = [&](size_t ub, size_t ue, int worker) {
      for (int64_t u = static_cast<int64_t>(ub); u < static_cast<int64_t>(ue); ++u) {
        const int64_t j0 = (u % blocks) * tile_cols, j1 = std::min<int64_t>(hc, j0 + tile_cols);
        const int64_t i0 = (u / blocks) * tile_rows, i1 = i0 + tile_rows;
        for (int64_t i = i0; i < i1; ++i) {
          const double ky = static_cast<double>(g.Ky(i));
          // The index of (i, j) is at + j.
          const int64_t at = static_cast<int64_t>(fft_.HalfIndex(
                                 static_cast<size_t>(i), static_cast<size_t>(j0), kLayout)) -
                             j0;
          for (int64_t j = j0; j < j1; ++j) {
            element(i, j, at + j, static_cast<double>(g.Kx(j)), ky, worker);
          }
        }
      }
    };
    ParallelForBalanced(pool, static_cast<size_t>(blocks * (n / tile_rows)), 1, units);
  };
  auto rhs = [&](int64_t i, int64_t j, int64_t idx, double kx, double ky) {
    return FinishRhs(g, i, j, idx, kx, ky, smagorinsky, dt, adv_hat, fx_hat, fy_hat);
  };

  // Stage 1: a = R(ŵ).
  for_elements([&](int64_t i, int64_t j, int64_t idx, double, double, int) {
    ForwardDerivatives(i, j, idx, w[idx]);
  });
  TransformedProducts();
  // Stage 2: b = R(E_h (ŵ + a/2)).
  for_elements([&](int64_t i, int64_t j, int64_t idx, double kx, double ky, int) {
    const Complex a = rhs(i, j, idx, kx, ky);
    ka[idx] = a;
    ForwardDerivatives(i, j, idx, eh[idx] * (w[idx] + 0.5 * a));
  });
  TransformedProducts();
  // Stage 3: c = R(E_h ŵ + b/2).
  for_elements([&](int64_t i, int64_t j, int64_t idx, double kx, double ky, int) {
    const Complex b = rhs(i, j, idx, kx, ky);
    kb[idx] = b;
    ForwardDerivatives(i, j, idx, eh[idx] * w[idx] + 0.5 * b);
  });
  TransformedProducts();
  // Stage 4: d = R(E ŵ + E_h c).
  for_elements([&](int64_t i, int64_t j, int64_t idx, double kx, double ky, int) {
    const Complex c = rhs(i, j, idx, kx, ky);
    kc[idx] = c;
    ForwardDerivatives(i, j, idx, ef[idx] * w[idx] + eh[idx] * c);
  });
  TransformedProducts();
  // ŵ ← E ŵ + (E a + 2 E_h (b + c) + d)/6, and whether every value is finite (one flag per
  // worker, combined after the join: AND does not depend on the order).
  Complex* next = work_.next.data();
  std::vector<char> finite(static_cast<size_t>(pool != nullptr ? pool->threads() : 1), 1);
  for_elements([&](int64_t i, int64_t j, int64_t idx, double kx, double ky, int worker) {
    const Complex d = rhs(i, j, idx, kx, ky);
    const Complex bc = kb[idx] + kc[idx];
    const Complex incr = ef[idx] * ka[idx] + 2.0 * eh[idx] * bc + d;
    const Complex x = ef[idx] * w[idx] + incr / 6.0;
    next[idx] = x;
    if (!std::isfinite(x.real()) || !std::isfinite(x.imag())) finite[worker] = 0;
  });
  for (char f : finite) {
    if (!f) {
      return FailedPreconditionError("LES diverged at step " + std::to_string(step_ + 1) +
                                     " (t = " + std::to_string(time() + params_.dt) +
                                     "): the vorticity is no longer finite; reduce dt");
    }
  }
  w_hat_.swap(work_.next);
  ++step_;
  return OkStatus();
}

std::vector<Complex> LesSolver::spectrum() const {
  std::vector<Complex> out(fft_.HalfSize(HalfLayout::kRowMajor));
  fft_.ConvertHalf(w_hat_, kLayout, out, HalfLayout::kRowMajor);
  return out;
}

std::vector<double> LesSolver::Vorticity() const { return fft_.Irfft(spectrum()); }
double LesSolver::Energy() const { return SpectralEnergy(grid_, spectrum()); }
double LesSolver::Enstrophy() const { return SpectralEnstrophy(grid_, spectrum()); }

int64_t LesSolver::WorkingSetBytes() const {
  int64_t bytes = 0;
  auto add = [&bytes](const auto& v) {
    bytes += static_cast<int64_t>(v.capacity() * sizeof(v[0]));
  };
  add(w_hat_);
  add(decay_half_);
  add(decay_full_);
  for (const auto& v : work_.spec) add(v);
  for (const auto& v : work_.real) add(v);
  for (const auto& v : work_.products) add(v);
  for (const auto& v : work_.product_hat) add(v);
  for (const auto& v : work_.stage) add(v);
  add(work_.next);
  return bytes;
}

StatusOr<int64_t> EstimateSimulateBytes(const LesParams& params, int64_t steps,
                                        int64_t save_every) {
  if (steps < 0 || save_every < 1) return InvalidArgumentError("steps < 0 or save_every < 1");
  if (params.n < 1) return InvalidArgumentError("LES n < 1");
  DASHI_ASSIGN_OR_RETURN(const int64_t frames, CheckedAdd(steps / save_every, 1, "LES frames"));
  DASHI_ASSIGN_OR_RETURN(const int64_t cells, CheckedMul(params.n, params.n, "LES grid cells"));
  // The solver: 14 complex tiled half spectra (the state, six derivative spectra, three
  // transformed products, three RK4 stages, the next state) and two real ones (the decay
  // factors), i.e. 30 doubles per tiled bin, and nine real N × N fields with separate rows.
  const auto row_bins = [&](HalfLayout layout) {
    return static_cast<int64_t>(Fft2d::HalfRowBins(static_cast<size_t>(params.n), layout));
  };
  DASHI_ASSIGN_OR_RETURN(const int64_t tiled_bins,
                         CheckedMul(params.n, row_bins(kLayout), "LES bins"));
  DASHI_ASSIGN_OR_RETURN(const int64_t spectra, CheckedMul(tiled_bins, 30, "LES values"));
  DASHI_ASSIGN_OR_RETURN(const int64_t fields, CheckedAdd(frames, 9, "LES doubles per cell"));
  DASHI_ASSIGN_OR_RETURN(const int64_t field_values, CheckedMul(fields, cells, "LES values"));
  // A save: Vorticity() holds two row-major copies of the spectrum at once (spectrum()'s and
  // Irfft's work array), N·(N/2 + 1) complex values each, while it makes the frame.
  DASHI_ASSIGN_OR_RETURN(const int64_t bins,
                         CheckedMul(params.n, row_bins(HalfLayout::kRowMajor), "LES bins"));
  DASHI_ASSIGN_OR_RETURN(const int64_t copies, CheckedMul(bins, 4, "LES values"));
  DASHI_ASSIGN_OR_RETURN(const int64_t solver, CheckedAdd(spectra, copies, "LES values"));
  DASHI_ASSIGN_OR_RETURN(const int64_t values, CheckedAdd(field_values, solver, "LES values"));
  return CheckedMul(values, 8, "LES bytes");
}

Status SimulateFrames(const LesParams& params, int64_t steps, int64_t save_every,
                      const std::function<Status(const LesFrame&)>& consume,
                      const std::function<void(int64_t, int64_t)>& progress, int threads) {
  if (steps < 0) return InvalidArgumentError("steps = " + std::to_string(steps) + " is negative");
  if (save_every < 1) {
    return InvalidArgumentError("save_every = " + std::to_string(save_every) + " must be >= 1");
  }
  DASHI_RETURN_IF_ERROR(ValidateLesParams(params));
  try {
    DASHI_ASSIGN_OR_RETURN(LesSolver les, LesSolver::Create(params, threads));
    int64_t index = 0;
    const SpectralGrid grid(params.n);
    auto save = [&]() -> Status {
      const std::vector<double> omega = les.Vorticity();
      const std::vector<Complex> spectrum = les.spectrum();  // E and Z from one row-major copy
      LesFrame f{index++, les.step(), les.time(), &omega, SpectralEnergy(grid, spectrum),
                 SpectralEnstrophy(grid, spectrum)};
      DASHI_RETURN_IF_ERROR(consume(f));
      if (progress) progress(les.step(), steps);
      return OkStatus();
    };
    DASHI_RETURN_IF_ERROR(save());
    for (int64_t s = 1; s <= steps; ++s) {
      DASHI_RETURN_IF_ERROR(les.Step());
      if (s % save_every == 0) DASHI_RETURN_IF_ERROR(save());
    }
  } catch (const std::bad_alloc&) {
    return ResourceExhaustedError("LES at N = " + std::to_string(params.n) +
                                  ": out of memory");
  }
  return OkStatus();
}

StatusOr<LesTrajectory> Simulate(const LesParams& params, int64_t steps, int64_t save_every,
                                 const std::function<void(int64_t, int64_t)>& progress) {
  if (steps < 0) return InvalidArgumentError("steps = " + std::to_string(steps) + " is negative");
  if (save_every < 1) {
    return InvalidArgumentError("save_every = " + std::to_string(save_every) + " must be >= 1");
  }
  DASHI_RETURN_IF_ERROR(ValidateLesParams(params));
  // Frame count × N² doubles must be representable (each frame is kept in memory).
  DASHI_ASSIGN_OR_RETURN(const int64_t frames, CheckedAdd(steps / save_every, 1, "LES frames"));
  DASHI_ASSIGN_OR_RETURN(const int64_t values,
                         CheckedMul(frames, params.n * params.n, "LES trajectory values"));
  DASHI_RETURN_IF_ERROR(CheckedMul(values, 8, "LES trajectory bytes").status());
  LesTrajectory traj;
  traj.params = params;
  traj.steps = steps;
  traj.save_every = save_every;
  DASHI_RETURN_IF_ERROR(SimulateFrames(
      params, steps, save_every,
      [&](const LesFrame& f) -> Status {
        try {
          traj.frames.push_back(*f.omega);
          traj.times.push_back(f.time);
          traj.energy.push_back(f.energy);
          traj.enstrophy.push_back(f.enstrophy);
        } catch (const std::bad_alloc&) {
          return ResourceExhaustedError("LES trajectory of " + std::to_string(frames) +
                                        " frames at N = " + std::to_string(params.n) +
                                        ": out of memory at frame " + std::to_string(f.index));
        }
        return OkStatus();
      },
      progress));
  return traj;
}

}  // namespace dashi
