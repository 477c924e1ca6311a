#include "core_ref/scales/scale_tower.h"

#include <cmath>
#include <string>
#include <utility>

#include "core_ref/carrier/defect.h"
#include "core_ref/carrier/smoothing.h"
#include "core_ref/fft/fft.h"
#include "core_ref/les/spectral_grid.h"
#include "core_ref/scales/layer_sums.h"

namespace dashi {
namespace {

int64_t SquaredWavenumber(const SpectralGrid& g, int64_t i, int64_t j) {
  const int64_t ky = g.Ky(i), kx = g.Kx(j);
  return kx * kx + ky * ky;
}

}  // namespace

Status ValidateScaleTowerParams(const ScaleTowerParams& params, int64_t n) {
  if (n < 2 || n > 4096 || !IsPowerOfTwo(static_cast<size_t>(n))) {
    return InvalidArgumentError("scale tower: N = " + std::to_string(n) +
                                " (expected a power of two in [2, 4096])");
  }
  if (params.k_lo < 1 || params.k_lo > n / 2) {
    return InvalidArgumentError("scale tower: k_lo = " + std::to_string(params.k_lo) +
                                " (expected 1 ≤ k_lo ≤ N/2 = " + std::to_string(n / 2) + ")");
  }
  if (!(params.relative_floor >= 0.0 && params.relative_floor < 1.0)) {
    return InvalidArgumentError("scale tower: relative_floor must be in [0, 1)");
  }
  DASHI_RETURN_IF_ERROR(ValidatePdaThresholdParams(params.threshold));
  return ValidateClosureParams(params.closure);
}

std::vector<ScaleBand> ScaleBands(int64_t n, int64_t k_lo) {
  const int64_t corner2 = 2 * (n / 2) * (n / 2);
  std::vector<ScaleBand> bands;
  int64_t lo2 = -1, k = k_lo;
  // Layers while the band's upper edge is below the Nyquist wavenumber N/2; the last is open.
  while (k < n / 2) {
    bands.push_back({lo2, k * k});
    lo2 = k * k;
    k *= 2;
  }
  bands.push_back({lo2, corner2});
  return bands;
}

StatusOr<std::vector<std::vector<double>>> BandFields(std::span<const double> omega, int64_t n,
                                                      const std::vector<ScaleBand>& bands) {
  if (static_cast<int64_t>(omega.size()) != n * n) {
    return InvalidArgumentError("scale tower: the field has " + std::to_string(omega.size()) +
                                " values, expected N² = " + std::to_string(n * n));
  }
  DASHI_ASSIGN_OR_RETURN(Fft2d fft, Fft2d::Create(static_cast<size_t>(n), static_cast<size_t>(n)));
  const std::vector<Complex> spectrum = fft.Rfft(omega);
  const SpectralGrid g(n);
  std::vector<std::vector<double>> out;
  out.reserve(bands.size());
  for (const ScaleBand& band : bands) {
    std::vector<Complex> part(spectrum.size(), Complex(0.0, 0.0));
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < g.half_cols(); ++j) {
        if (ScaleBandContains(band, SquaredWavenumber(g, i, j))) {
          part[i * g.half_cols() + j] = spectrum[i * g.half_cols() + j];
        }
      }
    }
    out.push_back(fft.Irfft(part));
  }
  return out;
}

StatusOr<ScaleTower> BuildScaleTower(std::span<const double> omega, int64_t n,
                                     const ScaleTowerParams& params) {
  DASHI_RETURN_IF_ERROR(ValidateScaleTowerParams(params, n));
  if (static_cast<int64_t>(omega.size()) != n * n) {
    return InvalidArgumentError("scale tower: the field has " + std::to_string(omega.size()) +
                                " values, expected N² = " + std::to_string(n * n));
  }
  for (size_t k = 0; k < omega.size(); ++k) {
    if (!std::isfinite(omega[k])) {
      return InvalidArgumentError("scale tower: the field's value at index " + std::to_string(k) +
                                  " is not finite");
    }
  }
  const std::vector<ScaleBand> bands = ScaleBands(n, params.k_lo);
  DASHI_ASSIGN_OR_RETURN(std::vector<std::vector<double>> fields, BandFields(omega, n, bands));

  // The layer's sums in their canonical order (layer_sums.h), shared with the device tower.
  DASHI_ASSIGN_OR_RETURN(Fft2d fft, Fft2d::Create(static_cast<size_t>(n), static_cast<size_t>(n)));
  const std::vector<Complex> spectrum = fft.Rfft(omega);

  double field_max = 0.0;
  for (double v : omega) field_max = std::fabs(v) > field_max ? std::fabs(v) : field_max;

  ScaleTower tower;
  tower.n = n;
  const GridShape shape{n, n};
  for (size_t l = 0; l < bands.size(); ++l) {
    LayerSums sums;
    AddSpectrumSums(spectrum, n, bands[l], sums);
    const std::vector<double>& b = fields[l];
    DASHI_ASSIGN_OR_RETURN(RealField band_field, RealField::FromValues(shape, b));
    for (double v : b) sums.max_abs = std::fabs(v) > sums.max_abs ? std::fabs(v) : sums.max_abs;
    sums.below_floor = sums.max_abs < params.relative_floor * field_max;
    const RealField normalised =
        sums.below_floor ? *RealField::FromValues(shape, std::vector<double>(b.size(), 0.0))
                         : NormalizeByMaxAbs(band_field);
    DASHI_ASSIGN_OR_RETURN(Carrier s0, PdaThreshold(normalised, params.threshold));
    DASHI_ASSIGN_OR_RETURN(ClosureResult closed, Closure(s0, &normalised, params.closure));
    sums.closure_depth = closed.depth;
    sums.defect_before = Defect(s0);
    sums.defect_after = Defect(closed.fixed_point);
    AddCarrierSums(b, s0.values(), closed.fixed_point.values(),
                   l > 0 ? tower.closed[l - 1].values() : std::span<const int8_t>(), sums);
    tower.layers.push_back(LayerFromSums(bands[l], n, sums));
    tower.initial.push_back(std::move(s0));
    tower.closed.push_back(std::move(closed.fixed_point));
  }
  return tower;
}

StatusOr<std::vector<RefinementStep>> Refinement(std::span<const double> omega, int64_t n,
                                                 const ScaleTowerParams& params) {
  DASHI_RETURN_IF_ERROR(ValidateScaleTowerParams(params, n));
  DASHI_ASSIGN_OR_RETURN(std::vector<std::vector<double>> fields,
                         BandFields(omega, n, ScaleBands(n, params.k_lo)));
  const GridShape shape{n, n};
  std::vector<double> cumulative(static_cast<size_t>(n * n), 0.0);
  DASHI_ASSIGN_OR_RETURN(Carrier previous, Carrier::Zeros(shape));
  std::vector<RefinementStep> steps;
  for (const std::vector<double>& b : fields) {
    for (size_t k = 0; k < cumulative.size(); ++k) cumulative[k] += b[k];
    DASHI_ASSIGN_OR_RETURN(RealField c, RealField::FromValues(shape, cumulative));
    const RealField normalised = NormalizeByMaxAbs(c);
    DASHI_ASSIGN_OR_RETURN(Carrier s0, PdaThreshold(normalised, params.threshold));
    DASHI_ASSIGN_OR_RETURN(ClosureResult closed, Closure(s0, &normalised, params.closure));
    RefinementStep step;
    const std::span<const int8_t> now = closed.fixed_point.values(), before = previous.values();
    for (size_t k = 0; k < now.size(); ++k) step.changed_cells += now[k] != before[k] ? 1 : 0;
    step.active_cells = closed.fixed_point.SupportCount();
    step.defect = Defect(closed.fixed_point);
    steps.push_back(step);
    previous = std::move(closed.fixed_point);
  }
  return steps;
}

}  // namespace dashi
