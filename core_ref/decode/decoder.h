// The decoder, an observer that never feeds back into the rollout (docs/MATH.md §Decode):
//   ω̂ = ω_lp + s* ⊙ ω_resid
// ω_lp: the low-k and anchor coefficients of z scattered into the spectrum, inverse FFT.
// s*:   smooth ω_lp, normalise by max|·|, PDA threshold, closure to the fixed point.
// ω_resid: every mid/high residual mode with amplitude sqrt(Z_band / modes in band) (Z_band from
//       z's band scalars, taken as |z|² so a negative prediction cannot flip it) and phase
//       2π·CounterUniform(seed, t, kx, ky, 0), inverse FFT.
//
//   StatusOr<Decoder> dec = Decoder::Create(spec, DecodeParams{});
//   StatusOr<DecodedFrame> f = dec->Decode(z, /*t=*/step);
#ifndef DASHI_CORE_REF_DECODE_DECODER_H_
#define DASHI_CORE_REF_DECODE_DECODER_H_

#include <cstdint>
#include <span>
#include <vector>

#include "core_ref/carrier/carrier.h"
#include "core_ref/carrier/closure.h"
#include "core_ref/carrier/pda_threshold.h"
#include "core_ref/carrier/smoothing.h"
#include "core_ref/fft/fft.h"
#include "core_ref/proxy/proxy_encoder.h"
#include "core_ref/status/status.h"

namespace dashi {

struct DecodeParams {
  SmoothingParams smoothing{SmoothingKernel::kTriangle, 2};
  PdaThresholdParams threshold{0.3};
  ClosureParams closure{{1}, {1, 3}, 64};
  uint64_t seed = 1;  // residual phases
};

struct DecodeStageTimes {
  double scatter_lowk_ms = 0, ifft_lp_ms = 0, mask_ms = 0, synth_ms = 0, ifft_resid_ms = 0,
         combine_ms = 0;
};

struct DecodedFrame {
  std::vector<double> omega_lp;     // N×N
  std::vector<double> omega_resid;  // N×N
  std::vector<double> omega;        // N×N, ω_lp + s*·ω_resid
  ClosureResult closure;            // closure.fixed_point is the mask s*
  DecodeStageTimes times;
};

class Decoder {
 public:
  static StatusOr<Decoder> Create(const ProxySpec& spec, const DecodeParams& params);

  // z has spec.dim() finite values; t keys the residual phases.
  StatusOr<DecodedFrame> Decode(std::span<const double> z, uint64_t t) const;

  // The stages on their own (the accelerator's twins compare against these).
  std::vector<Complex> ScatterLowK(std::span<const double> z) const;
  std::vector<Complex> SynthesizeResidual(std::span<const double> z, uint64_t t) const;
  StatusOr<ClosureResult> Mask(std::span<const double> omega_lp) const;

  const ProxySpec& spec() const { return spec_; }
  const DecodeParams& params() const { return params_; }

 private:
  Decoder(const ProxySpec& spec, const DecodeParams& params, Fft2d fft)
      : spec_(spec), params_(params), fft_(std::move(fft)) {}

  ProxySpec spec_;
  DecodeParams params_;
  Fft2d fft_;
};

}  // namespace dashi

#endif  // DASHI_CORE_REF_DECODE_DECODER_H_
