#include "core_ref/proxy/proxy_encoder.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace dashi {
namespace {

int64_t K2(const Mode& m) { return m.kx * m.kx + m.ky * m.ky; }

bool CanonicalLess(const Mode& a, const Mode& b) {
  if (K2(a) != K2(b)) return K2(a) < K2(b);
  if (a.kx != b.kx) return a.kx < b.kx;
  return a.ky < b.ky;
}

size_t HalfIndex(int64_t n, const Mode& m) {
  const int64_t row = m.ky >= 0 ? m.ky : m.ky + n;
  return static_cast<size_t>(row * (n / 2 + 1) + m.kx);
}

Status CheckFrame(int64_t n, std::span<const double> omega, const char* what) {
  if (static_cast<int64_t>(omega.size()) != n * n) {
    return InvalidArgumentError(std::string(what) + " has " + std::to_string(omega.size()) +
                                " values, expected N*N = " + std::to_string(n * n));
  }
  for (size_t k = 0; k < omega.size(); ++k) {
    if (!std::isfinite(omega[k])) {
      return InvalidArgumentError(std::string(what) + " value at index " + std::to_string(k) +
                                  " is not finite");
    }
  }
  return OkStatus();
}

}  // namespace

std::vector<Mode> CanonicalModes(int64_t n) {
  const int64_t kmax = n / 3;
  std::vector<Mode> modes;
  for (int64_t kx = 0; kx <= kmax; ++kx) {
    for (int64_t ky = -kmax; ky <= kmax; ++ky) {
      if (kx > 0 || ky > 0) modes.push_back({kx, ky});
    }
  }
  std::sort(modes.begin(), modes.end(), CanonicalLess);
  return modes;
}

static Status ValidateBands(int64_t n, int k_lo, int k_mid) {
  if (n < 8 || n > 4096 || !IsPowerOfTwo(static_cast<size_t>(n))) {
    return InvalidArgumentError("N = " + std::to_string(n) + " must be a power of two in [8, 4096]");
  }
  if (k_lo < 1 || k_mid <= k_lo || k_mid > n / 3) {
    return InvalidArgumentError("need 1 <= k_lo < k_mid <= N/3; got k_lo = " +
                                std::to_string(k_lo) + ", k_mid = " + std::to_string(k_mid) +
                                ", N/3 = " + std::to_string(n / 3));
  }
  return OkStatus();
}

StatusOr<ProxySpec> ProxySpecFromAnchors(int64_t n, int k_lo, int k_mid,
                                         std::span<const Mode> anchors) {
  DASHI_RETURN_IF_ERROR(ValidateBands(n, k_lo, k_mid));
  ProxySpec spec;
  spec.n = n;
  spec.k_lo = k_lo;
  spec.k_mid = k_mid;
  for (size_t a = 0; a < anchors.size(); ++a) {
    for (size_t b = a + 1; b < anchors.size(); ++b) {
      if (anchors[a] == anchors[b]) {
        return InvalidArgumentError("anchor (kx=" + std::to_string(anchors[a].kx) + ", ky=" +
                                    std::to_string(anchors[a].ky) + ") is listed twice");
      }
    }
  }
  std::vector<bool> used(anchors.size(), false);
  for (const Mode& m : CanonicalModes(n)) {
    const int64_t k2 = K2(m);
    if (k2 <= int64_t{k_lo} * k_lo) {
      spec.low_modes.push_back(m);
    } else if (k2 <= int64_t{k_mid} * k_mid) {
      bool anchor = false;
      for (size_t a = 0; a < anchors.size(); ++a) {
        if (anchors[a] == m) used[a] = anchor = true;
      }
      (anchor ? spec.anchors : spec.mid_residual).push_back(m);
    } else {
      spec.high_residual.push_back(m);
    }
  }
  for (size_t a = 0; a < anchors.size(); ++a) {
    if (!used[a]) {
      return InvalidArgumentError("anchor (kx=" + std::to_string(anchors[a].kx) + ", ky=" +
                                  std::to_string(anchors[a].ky) +
                                  ") is not an independent mode (kx > 0, or kx = 0 and ky > 0) "
                                  "of the mid band k_lo < |k| <= k_mid");
    }
  }
  return spec;
}

StatusOr<ProxySpec> MakeProxySpec(int64_t n, int k_lo, int k_mid, int anchors,
                                  std::span<const double> reference_frame) {
  DASHI_RETURN_IF_ERROR(ValidateBands(n, k_lo, k_mid));
  DASHI_RETURN_IF_ERROR(CheckFrame(n, reference_frame, "reference frame"));
  ProxySpec spec;
  spec.n = n;
  spec.k_lo = k_lo;
  spec.k_mid = k_mid;
  std::vector<Mode> mid;
  for (const Mode& m : CanonicalModes(n)) {
    const int64_t k2 = K2(m);
    if (k2 <= int64_t{k_lo} * k_lo) {
      spec.low_modes.push_back(m);
    } else if (k2 <= int64_t{k_mid} * k_mid) {
      mid.push_back(m);
    } else {
      spec.high_residual.push_back(m);
    }
  }
  if (anchors < 0 || anchors > static_cast<int>(mid.size())) {
    return InvalidArgumentError("anchors = " + std::to_string(anchors) + " must be in [0, " +
                                std::to_string(mid.size()) + "] (the mid band's mode count)");
  }
  DASHI_ASSIGN_OR_RETURN(Fft2d fft, Fft2d::Create(static_cast<size_t>(n), static_cast<size_t>(n)));
  const std::vector<Complex> w_hat = fft.Rfft(reference_frame);
  // Largest |c|² first, the key re·re + im·im (each product rounded, then the sum: the same
  // bits everywhere, unlike hypot); stable sort keeps canonical order among equal keys.
  std::vector<double> key(mid.size());
  for (size_t i = 0; i < mid.size(); ++i) key[i] = SquaredMagnitude(w_hat[HalfIndex(n, mid[i])]);
  std::vector<size_t> order(mid.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return key[a] > key[b]; });
  std::vector<bool> is_anchor(mid.size(), false);
  for (int a = 0; a < anchors; ++a) is_anchor[order[a]] = true;
  for (size_t i = 0; i < mid.size(); ++i) {
    (is_anchor[i] ? spec.anchors : spec.mid_residual).push_back(mid[i]);
  }
  return spec;
}

std::vector<double> EncodeSpectrum(const ProxySpec& spec, std::span<const Complex> w_hat) {
  const double inv_n2 = 1.0 / (static_cast<double>(spec.n) * static_cast<double>(spec.n));
  std::vector<double> z;
  z.reserve(static_cast<size_t>(spec.dim()));
  for (const auto* list : {&spec.low_modes, &spec.anchors}) {
    for (const Mode& m : *list) {
      const Complex c = w_hat[HalfIndex(spec.n, m)] * inv_n2;
      z.push_back(c.real());
      z.push_back(c.imag());
    }
  }
  for (const auto* band : {&spec.mid_residual, &spec.high_residual}) {
    double zb = 0.0;
    for (const Mode& m : *band) zb += SquaredMagnitude(w_hat[HalfIndex(spec.n, m)] * inv_n2);
    z.push_back(std::sqrt(zb));
  }
  return z;
}

StatusOr<std::vector<double>> Encode(const ProxySpec& spec, std::span<const double> omega) {
  DASHI_RETURN_IF_ERROR(CheckFrame(spec.n, omega, "vorticity frame"));
  DASHI_ASSIGN_OR_RETURN(Fft2d fft,
                         Fft2d::Create(static_cast<size_t>(spec.n), static_cast<size_t>(spec.n)));
  return EncodeSpectrum(spec, fft.Rfft(omega));
}

}  // namespace dashi
