// The LES of core_ref/les (IF-RK4, 2/3 rule, Smagorinsky; docs/MATH.md §7) written again on FFTW
// (r2c / c2r plans with FFTW_MEASURE, FFTW's own threads): the peer that les_peer_benchmark
// times dashi against. The same formulas in the same order; only the FFTs (and libm's exp for
// the integrating factor) differ, so the two states agree to rounding, not bit for bit.
//
//   FftwLes peer(params, /*threads=*/2, dashi_solver.spectrum());
//   peer.Step();  const std::vector<std::complex<double>>& w = peer.spectrum();
#ifndef DASHI_BENCH_CPU_LES_FFTW_PEER_H_
#define DASHI_BENCH_CPU_LES_FFTW_PEER_H_

#include <fftw3.h>

#include <complex>
#include <vector>

#include "core_ref/les/les_solver.h"

namespace dashi::bench {

class FftwLes {
 public:
  // Plans with FFTW_MEASURE on `threads` threads (fftw_init_threads is the caller's); starts
  // from `initial` (Rfft layout, N × (N/2+1)).
  FftwLes(const LesParams& p, int threads, const std::vector<std::complex<double>>& initial);
  ~FftwLes();
  FftwLes(const FftwLes&) = delete;
  FftwLes& operator=(const FftwLes&) = delete;

  void Step();
  const std::vector<std::complex<double>>& spectrum() const { return w_; }

  // One forward r2c and one inverse c2r of the peer's plans (for the FFT timing).
  void ForwardOnce(const std::vector<double>& real, std::vector<std::complex<double>>& half);
  void InverseOnce(const std::vector<std::complex<double>>& half, std::vector<double>& real);

 private:
  using C = std::complex<double>;
  std::vector<C> Rhs(const std::vector<C>& w);
  void Irfft(const std::vector<C>& in, std::vector<double>& out);  // scaled by 1/N²
  void Rfft(const std::vector<double>& in, std::vector<C>& out);

  LesParams p_;
  int n_, hc_;
  std::vector<C> w_;
  std::vector<double> decay_half_, decay_full_;
  std::vector<int> ky_;
  std::vector<char> keep_;  // 2/3-rule mask
  fftw_complex* cbuf_;      // c2r input (destroyed by FFTW)
  double* rbuf_;
  fftw_complex* cout_;
  fftw_plan c2r_, r2c_;
};

}  // namespace dashi::bench

#endif  // DASHI_BENCH_CPU_LES_FFTW_PEER_H_
