// Wavenumbers of the N×N periodic box [0, 2π)² in the half-spectrum layout of Fft2d::Rfft:
// row i ↔ ky (full axis: i for i < N/2, i − N otherwise), column j ↔ kx = j (0..N/2).
// Also the 2/3-rule dealiasing mask and the Parseval weights of the half spectrum.
//
//   SpectralGrid g(128);
//   double k2 = g.K2(i, j);  bool kept = g.Dealiased(i, j);
#ifndef DASHI_CORE_REF_LES_SPECTRAL_GRID_H_
#define DASHI_CORE_REF_LES_SPECTRAL_GRID_H_

#include <cstdint>
#include <cstdlib>

namespace dashi {

class SpectralGrid {
 public:
  explicit SpectralGrid(int64_t n) : n_(n), half_(n / 2 + 1), kmax_(n / 3) {}

  int64_t n() const { return n_; }
  int64_t half_cols() const { return half_; }
  int64_t half_size() const { return n_ * half_; }
  // Largest |k| component kept by the 2/3 rule: modes with |kx| ≤ N/3 and |ky| ≤ N/3 (integer
  // division) are kept, all others are zeroed.
  int64_t dealias_kmax() const { return kmax_; }

  int64_t Ky(int64_t i) const { return i < n_ / 2 ? i : i - n_; }
  int64_t Kx(int64_t j) const { return j; }
  double K2(int64_t i, int64_t j) const {
    const double ky = static_cast<double>(Ky(i)), kx = static_cast<double>(Kx(j));
    return kx * kx + ky * ky;
  }
  bool Dealiased(int64_t i, int64_t j) const {
    return std::llabs(Ky(i)) <= kmax_ && Kx(j) <= kmax_;
  }
  // Σ over the full spectrum = Σ over the half spectrum with these weights.
  double ParsevalWeight(int64_t j) const {
    return (j == 0 || (n_ % 2 == 0 && j == n_ / 2)) ? 1.0 : 2.0;
  }
  // Row index of wavenumber ky (−N/2 ≤ ky < N/2).
  int64_t RowOf(int64_t ky) const { return ky >= 0 ? ky : ky + n_; }

 private:
  int64_t n_, half_, kmax_;
};

}  // namespace dashi

#endif  // DASHI_CORE_REF_LES_SPECTRAL_GRID_H_
