#include "core_ref/scales/fining_depth.h"

#include <cmath>
#include <string>
#include <utility>

#include "core_ref/fft/fft.h"
#include "core_ref/les/spectral_grid.h"
#include "core_ref/math/sincospi.h"
#include "core_ref/prng/prng.h"

namespace dashi {
namespace {

// Keeps the surrogates' draws apart from the decoder's residual phases (stream 0).
constexpr uint64_t kSurrogateStream = 0x5CA1E5;

// Mean, sample standard deviation (n − 1) and mean + sigmas · sd of the values, summed in order.
void NoiseLevel(const std::vector<double>& v, double sigmas, double* mean, double* sd,
                double* level) {
  double sum = 0.0;
  for (double x : v) sum += x;
  *mean = sum / static_cast<double>(v.size());
  double sq = 0.0;
  for (double x : v) sq += (x - *mean) * (x - *mean);
  *sd = std::sqrt(sq / static_cast<double>(v.size() - 1));
  *level = *mean + sigmas * *sd;
}

}  // namespace

Status ValidateFiningParams(const FiningParams& params) {
  if (params.surrogates < 2 || params.surrogates > 64) {
    return InvalidArgumentError("fining depth: surrogates = " + std::to_string(params.surrogates) +
                                " (expected 2..64)");
  }
  if (!(params.sigmas >= 0.0 && params.sigmas <= 100.0)) {
    return InvalidArgumentError("fining depth: sigmas must be in [0, 100]");
  }
  if (!(params.total_annihilation > 0.0 && params.total_annihilation <= 1.0)) {
    return InvalidArgumentError("fining depth: total_annihilation must be in (0, 1]");
  }
  return OkStatus();
}

StatusOr<std::vector<double>> PhaseRandomisedSurrogate(std::span<const double> omega, int64_t n,
                                                       uint64_t seed, uint64_t index) {
  if (n < 2 || !IsPowerOfTwo(static_cast<size_t>(n)) ||
      static_cast<int64_t>(omega.size()) != n * n) {
    return InvalidArgumentError("surrogate: expected an N×N field with N a power of two ≥ 2, got " +
                                std::to_string(omega.size()) + " values for N = " +
                                std::to_string(n));
  }
  DASHI_ASSIGN_OR_RETURN(Fft2d fft, Fft2d::Create(static_cast<size_t>(n), static_cast<size_t>(n)));
  std::vector<Complex> spec = fft.Rfft(omega);
  const SpectralGrid g(n);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t ky = g.Ky(i);
    for (int64_t j = 0; j < g.half_cols(); ++j) {
      const int64_t kx = g.Kx(j);
      Complex& c = spec[i * g.half_cols() + j];
      const double mod = std::sqrt(SquaredMagnitude(c));
      const bool self_conjugate_column = (j == 0 || j == n / 2);
      const bool self_conjugate_mode = self_conjugate_column && (ky == 0 || ky == -n / 2);
      const int64_t ky_drawn = self_conjugate_column && ky < 0 ? -ky : ky;
      const double u = CounterUniform(seed, index, kx, ky_drawn, kSurrogateStream);
      if (self_conjugate_mode) {
        c = Complex(u < 0.5 ? mod : -mod, 0.0);
        continue;
      }
      const SinCos sc = SinCosPi(2.0 * u);
      const double sin = self_conjugate_column && ky < 0 ? -sc.sin : sc.sin;
      c = Complex(mod * sc.cos, mod * sin);
    }
  }
  return fft.Irfft(spec);
}

StatusOr<FiningDepth> ComputeFiningDepth(std::span<const double> omega, int64_t n,
                                         const ScaleTowerParams& tower_params,
                                         const FiningParams& params) {
  DASHI_RETURN_IF_ERROR(ValidateFiningParams(params));
  DASHI_ASSIGN_OR_RETURN(ScaleTower tower, BuildScaleTower(omega, n, tower_params));
  const size_t layers = tower.layers.size();
  std::vector<FiningLayer> out(layers);
  // Per layer, the surrogates' values in surrogate order (the sums below run in that order).
  std::vector<std::vector<double>> coh(layers), conc(layers);
  for (int s = 0; s < params.surrogates; ++s) {
    DASHI_ASSIGN_OR_RETURN(std::vector<double> sur,
                           PhaseRandomisedSurrogate(omega, n, params.seed, static_cast<uint64_t>(s)));
    DASHI_ASSIGN_OR_RETURN(ScaleTower st, BuildScaleTower(sur, n, tower_params));
    for (size_t l = 0; l < layers; ++l) {
      coh[l].push_back(st.layers[l].coherence.value_or(0.0));
      conc[l].push_back(st.layers[l].concentration);
    }
  }
  for (size_t l = 0; l < layers; ++l) {
    NoiseLevel(coh[l], params.sigmas, &out[l].coherence_mean, &out[l].coherence_sd,
               &out[l].coherence_noise);
    NoiseLevel(conc[l], params.sigmas, &out[l].concentration_mean, &out[l].concentration_sd,
               &out[l].concentration_noise);
  }
  FiningDepth d;
  d.tower = std::move(tower);
  d.layers = std::move(out);
  ClassifyFiningLayers(params, d);
  return d;
}

void ClassifyFiningLayers(const FiningParams& params, FiningDepth& d) {
  const size_t layers = d.tower.layers.size();
  d.k = 0;
  d.annihilation_level = static_cast<int>(layers);
  for (size_t l = 0; l < layers && l < d.layers.size(); ++l) {
    const ScaleLayer& layer = d.tower.layers[l];
    FiningLayer& f = d.layers[l];
    const bool dead = layer.annihilated_fraction >= params.total_annihilation;
    if (dead && d.annihilation_level == static_cast<int>(layers)) {
      d.annihilation_level = static_cast<int>(l);
    }
    const bool above_noise = l == 0 ? layer.concentration > f.concentration_noise
                                    : layer.coherence.value_or(0.0) > f.coherence_noise;
    f.structured = !dead && layer.active_after > 0 && above_noise;
    if (f.structured) d.k = static_cast<int>(l) + 1;
  }
}

}  // namespace dashi
