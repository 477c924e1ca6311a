// The proxy encoding z = encode(ω) ∈ R^D of a vorticity field (docs/MATH.md §Proxy):
//   [Re, Im of every low-k mode, 0 < |k| ≤ k_lo]  ++  [Re, Im of M anchor modes, k_lo < |k| ≤ k_mid]
//   ++  [sqrt(Z_mid), sqrt(Z_high)]
// over the independent half plane (kx > 0, or kx = 0 and ky > 0) inside the 2/3-rule range, in the
// canonical order (|k|², kx, ky) ascending. Coefficients are Fourier-series coefficients
// c(k) = ω̂(k)/N², independent of N. Anchors are the M largest |c| at a reference frame (ties by
// canonical order), then listed in canonical order. Z_band = Σ |c|² over the band's independent
// modes (= ½⟨ω²⟩ restricted to the band); the mid band excludes the anchors.
//
//   StatusOr<ProxySpec> spec = MakeProxySpec(/*n=*/128, /*k_lo=*/12, /*k_mid=*/24, /*anchors=*/32,
//                                            reference_frame);
//   StatusOr<std::vector<double>> z = Encode(*spec, omega);      // spec->dim() values
#ifndef DASHI_CORE_REF_PROXY_PROXY_ENCODER_H_
#define DASHI_CORE_REF_PROXY_PROXY_ENCODER_H_

#include <cstdint>
#include <span>
#include <vector>

#include "core_ref/fft/fft.h"
#include "core_ref/status/status.h"

namespace dashi {

struct Mode {
  int64_t kx = 0;
  int64_t ky = 0;
  friend bool operator==(const Mode&, const Mode&) = default;
};

struct ProxySpec {
  int64_t n = 0;
  int k_lo = 0;
  int k_mid = 0;
  std::vector<Mode> low_modes;     // canonical order
  std::vector<Mode> anchors;       // canonical order
  std::vector<Mode> mid_residual;  // mid band without anchors, canonical order
  std::vector<Mode> high_residual; // |k| > k_mid inside the 2/3 range, canonical order

  int64_t dim() const {
    return 2 * static_cast<int64_t>(low_modes.size() + anchors.size()) + 2;
  }
  int64_t mid_index() const { return dim() - 2; }   // z[mid_index()] = sqrt(Z_mid)
  int64_t high_index() const { return dim() - 1; }  // z[high_index()] = sqrt(Z_high)
};

// The independent half-plane modes of an N×N grid inside the 2/3-rule range, canonical order.
std::vector<Mode> CanonicalModes(int64_t n);

// N a power of two in [8, 4096]; 1 ≤ k_lo < k_mid ≤ N/3; 0 ≤ anchors ≤ the mid band's size;
// reference_frame is N×N and finite.
StatusOr<ProxySpec> MakeProxySpec(int64_t n, int k_lo, int k_mid, int anchors,
                                  std::span<const double> reference_frame);

// Rebuilds a spec from stored parameters and anchor list (e.g. read back from proxy.json): every
// anchor must lie in the mid band, appear once, and be an independent half-plane mode.
StatusOr<ProxySpec> ProxySpecFromAnchors(int64_t n, int k_lo, int k_mid,
                                         std::span<const Mode> anchors);

// Encodes one N×N frame (finite values).
StatusOr<std::vector<double>> Encode(const ProxySpec& spec, std::span<const double> omega);

// Encodes from a half spectrum already computed with Fft2d::Rfft (N × (N/2+1)).
std::vector<double> EncodeSpectrum(const ProxySpec& spec, std::span<const Complex> w_hat);

}  // namespace dashi

#endif  // DASHI_CORE_REF_PROXY_PROXY_ENCODER_H_
