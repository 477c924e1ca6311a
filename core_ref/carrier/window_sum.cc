#include "core_ref/carrier/window_sum.h"

#include <string>

namespace dashi {

Status ValidateWindowRadius(int radius, const char* what) {
  if (radius < 0 || radius > kMaxWindowRadius) {
    return InvalidArgumentError(std::string(what) + " " + std::to_string(radius) +
                                " is outside [0, " + std::to_string(kMaxWindowRadius) + "]");
  }
  return OkStatus();
}

std::vector<int32_t> PeriodicWindowSum(const GridShape& shape, std::span<const int32_t> in,
                                       int radius) {
  const int64_t rows = shape.rows, cols = shape.cols;
  std::vector<int32_t> tmp(in.size()), out(in.size());
  for (int64_t i = 0; i < rows; ++i) {
    const int32_t* row = in.data() + i * cols;
    for (int64_t j = 0; j < cols; ++j) {
      int32_t s = 0;
      for (int64_t d = -radius; d <= radius; ++d) s += row[WrapIndex(j + d, cols)];
      tmp[i * cols + j] = s;
    }
  }
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      int32_t s = 0;
      for (int64_t d = -radius; d <= radius; ++d) s += tmp[WrapIndex(i + d, rows) * cols + j];
      out[i * cols + j] = s;
    }
  }
  return out;
}

}  // namespace dashi
