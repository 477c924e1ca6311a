#include "core_ref/carrier/smoothing.h"

#include <cmath>
#include <cstdlib>
#include <vector>

#include "core_ref/carrier/window_sum.h"

namespace dashi {

Status ValidateSmoothingParams(const SmoothingParams& params) {
  return ValidateWindowRadius(params.radius, "smoothing radius");
}

StatusOr<RealField> Smooth(const RealField& field, const SmoothingParams& params) {
  DASHI_RETURN_IF_ERROR(ValidateSmoothingParams(params));
  const int r = params.radius;
  const bool tri = params.kernel == SmoothingKernel::kTriangle;
  const double total = tri ? static_cast<double>(r + 1) * (r + 1) : 2.0 * r + 1.0;
  const int64_t rows = field.rows(), cols = field.cols();
  const auto in = field.values();
  std::vector<double> tmp(in.size()), out(in.size());
  auto weight = [&](int64_t d) { return tri ? static_cast<double>(r + 1 - std::llabs(d)) : 1.0; };
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      double s = 0.0;
      for (int64_t d = -r; d <= r; ++d) s += weight(d) * in[i * cols + WrapIndex(j + d, cols)];
      tmp[i * cols + j] = s / total;
    }
  }
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      double s = 0.0;
      for (int64_t d = -r; d <= r; ++d) s += weight(d) * tmp[WrapIndex(i + d, rows) * cols + j];
      out[i * cols + j] = s / total;
    }
  }
  return RealField::FromValues(field.shape(), std::move(out));
}

RealField NormalizeByMaxAbs(const RealField& field) {
  double m = 0.0;
  for (double x : field.values()) m = std::fmax(m, std::fabs(x));
  std::vector<double> out(field.values().begin(), field.values().end());
  if (m > 0) {
    for (double& x : out) x /= m;
  }
  // Dividing finite values by their finite positive maximum stays finite.
  return *RealField::FromValues(field.shape(), std::move(out));
}

}  // namespace dashi
