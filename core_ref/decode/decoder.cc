#include "core_ref/decode/decoder.h"

#include <chrono>
#include <cmath>
#include <string>

#include "core_ref/math/sincospi.h"
#include "core_ref/prng/prng.h"

namespace dashi {
namespace {

using Clock = std::chrono::steady_clock;
double MsSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// Writes c at mode m of the half spectrum; on the kx = 0 column also conj(c) at −ky.
void Put(std::vector<Complex>& half, int64_t n, const Mode& m, Complex c) {
  const int64_t hc = n / 2 + 1;
  const int64_t row = m.ky >= 0 ? m.ky : m.ky + n;
  half[static_cast<size_t>(row * hc + m.kx)] = c;
  if (m.kx == 0) {
    const int64_t mirror = -m.ky >= 0 ? -m.ky : -m.ky + n;
    half[static_cast<size_t>(mirror * hc)] = std::conj(c);
  }
}

}  // namespace

StatusOr<Decoder> Decoder::Create(const ProxySpec& spec, const DecodeParams& params) {
  DASHI_RETURN_IF_ERROR(ValidateSmoothingParams(params.smoothing));
  DASHI_RETURN_IF_ERROR(ValidatePdaThresholdParams(params.threshold));
  DASHI_RETURN_IF_ERROR(ValidateClosureParams(params.closure));
  DASHI_ASSIGN_OR_RETURN(Fft2d fft,
                         Fft2d::Create(static_cast<size_t>(spec.n), static_cast<size_t>(spec.n)));
  return Decoder(spec, params, std::move(fft));
}

std::vector<Complex> Decoder::ScatterLowK(std::span<const double> z) const {
  const int64_t n = spec_.n;
  const double n2 = static_cast<double>(n) * static_cast<double>(n);
  std::vector<Complex> half(static_cast<size_t>(n * (n / 2 + 1)), Complex(0, 0));
  size_t k = 0;
  for (const auto* list : {&spec_.low_modes, &spec_.anchors}) {
    for (const Mode& m : *list) {
      Put(half, n, m, Complex(z[k] * n2, z[k + 1] * n2));
      k += 2;
    }
  }
  return half;
}

std::vector<Complex> Decoder::SynthesizeResidual(std::span<const double> z, uint64_t t) const {
  const int64_t n = spec_.n;
  const double n2 = static_cast<double>(n) * static_cast<double>(n);
  std::vector<Complex> half(static_cast<size_t>(n * (n / 2 + 1)), Complex(0, 0));
  const double scalars[2] = {z[spec_.mid_index()], z[spec_.high_index()]};
  const std::vector<Mode>* bands[2] = {&spec_.mid_residual, &spec_.high_residual};
  for (int b = 0; b < 2; ++b) {
    if (bands[b]->empty()) continue;
    const double amp =
        std::fabs(scalars[b]) / std::sqrt(static_cast<double>(bands[b]->size())) * n2;
    for (const Mode& m : *bands[b]) {
      // Phase φ = 2π·u: e^{iφ} = (CosPi(2u), SinPi(2u)) with 2u exact, correctly rounded, so
      // a function of (seed, t, kx, ky) alone on every platform.
      const SinCos w = SinCosPi(2.0 * CounterUniform(params_.seed, t, m.kx, m.ky, 0));
      Put(half, n, m, Complex(amp * w.cos, amp * w.sin));
    }
  }
  return half;
}

StatusOr<ClosureResult> Decoder::Mask(std::span<const double> omega_lp) const {
  const GridShape shape{spec_.n, spec_.n};
  DASHI_ASSIGN_OR_RETURN(RealField lp, RealField::FromValues(
                                           shape, {omega_lp.begin(), omega_lp.end()}));
  DASHI_ASSIGN_OR_RETURN(RealField smooth, Smooth(lp, params_.smoothing));
  const RealField normalised = NormalizeByMaxAbs(smooth);
  DASHI_ASSIGN_OR_RETURN(Carrier s0, PdaThreshold(normalised, params_.threshold));
  return Closure(s0, &normalised, params_.closure);
}

StatusOr<DecodedFrame> Decoder::Decode(std::span<const double> z, uint64_t t) const {
  if (static_cast<int64_t>(z.size()) != spec_.dim()) {
    return InvalidArgumentError("z has " + std::to_string(z.size()) + " values, the proxy has D = " +
                                std::to_string(spec_.dim()));
  }
  for (size_t k = 0; k < z.size(); ++k) {
    if (!std::isfinite(z[k])) {
      return InvalidArgumentError("z value at index " + std::to_string(k) + " is not finite");
    }
  }
  DecodeStageTimes times;
  auto t0 = Clock::now();
  const std::vector<Complex> lp_hat = ScatterLowK(z);
  times.scatter_lowk_ms = MsSince(t0);
  t0 = Clock::now();
  std::vector<double> omega_lp = fft_.Irfft(lp_hat);
  times.ifft_lp_ms = MsSince(t0);
  t0 = Clock::now();
  DASHI_ASSIGN_OR_RETURN(ClosureResult closure, Mask(omega_lp));
  times.mask_ms = MsSince(t0);
  t0 = Clock::now();
  const std::vector<Complex> resid_hat = SynthesizeResidual(z, t);
  times.synth_ms = MsSince(t0);
  t0 = Clock::now();
  std::vector<double> omega_resid = fft_.Irfft(resid_hat);
  times.ifft_resid_ms = MsSince(t0);
  t0 = Clock::now();
  const auto s = closure.fixed_point.values();
  std::vector<double> omega(omega_lp.size());
  for (size_t k = 0; k < omega.size(); ++k) {
    omega[k] = omega_lp[k] + static_cast<double>(s[k]) * omega_resid[k];
  }
  times.combine_ms = MsSince(t0);
  return DecodedFrame{std::move(omega_lp), std::move(omega_resid), std::move(omega),
                      std::move(closure), times};
}

}  // namespace dashi
