#include "core_ref/carrier/carrier.h"

#include <cmath>

namespace dashi {

std::string ToString(const GridShape& shape) {
  return "(" + std::to_string(shape.rows) + ", " + std::to_string(shape.cols) + ")";
}

Status ValidateGridShape(const GridShape& shape) {
  if (shape.rows < 1 || shape.cols < 1) {
    return InvalidArgumentError("grid shape " + ToString(shape) + " has a dimension below 1");
  }
  if (shape.rows > kMaxGridCells / shape.cols) {
    return InvalidArgumentError("grid shape " + ToString(shape) + " has more than 2^30 cells");
  }
  return OkStatus();
}

namespace {
Status CheckCount(const GridShape& shape, size_t n, const char* what) {
  DASHI_RETURN_IF_ERROR(ValidateGridShape(shape));
  if (static_cast<int64_t>(n) != shape.size()) {
    return InvalidArgumentError(std::string(what) + " has " + std::to_string(n) +
                                " elements but shape " + ToString(shape) + " needs " +
                                std::to_string(shape.size()));
  }
  return OkStatus();
}
}  // namespace

StatusOr<Carrier> Carrier::FromValues(GridShape shape, std::vector<int8_t> values) {
  DASHI_RETURN_IF_ERROR(CheckCount(shape, values.size(), "carrier"));
  for (size_t k = 0; k < values.size(); ++k) {
    if (values[k] < -1 || values[k] > 1) {
      return InvalidArgumentError("carrier value " + std::to_string(values[k]) + " at index " +
                                  std::to_string(k) + " is not -1, 0 or +1");
    }
  }
  return Carrier(shape, std::move(values));
}

StatusOr<Carrier> Carrier::FromSupportSign(GridShape shape, std::span<const uint8_t> support,
                                           std::span<const int8_t> sign) {
  DASHI_RETURN_IF_ERROR(CheckCount(shape, support.size(), "support"));
  DASHI_RETURN_IF_ERROR(CheckCount(shape, sign.size(), "sign"));
  std::vector<int8_t> values(support.size());
  for (size_t k = 0; k < values.size(); ++k) {
    if (support[k] > 1) {
      return InvalidArgumentError("support value " + std::to_string(support[k]) + " at index " +
                                  std::to_string(k) + " is not 0 or 1");
    }
    if (sign[k] != 1 && sign[k] != -1) {
      return InvalidArgumentError("sign value " + std::to_string(sign[k]) + " at index " +
                                  std::to_string(k) + " is not -1 or +1");
    }
    values[k] = static_cast<int8_t>(support[k] * sign[k]);
  }
  return Carrier(shape, std::move(values));
}

StatusOr<Carrier> Carrier::Zeros(GridShape shape) {
  DASHI_RETURN_IF_ERROR(ValidateGridShape(shape));
  return Carrier(shape, std::vector<int8_t>(static_cast<size_t>(shape.size()), 0));
}

std::vector<uint8_t> Carrier::SupportMask() const {
  std::vector<uint8_t> out(values_.size());
  for (size_t k = 0; k < values_.size(); ++k) out[k] = support(static_cast<int64_t>(k));
  return out;
}

std::vector<int8_t> Carrier::Signs() const {
  std::vector<int8_t> out(values_.size());
  for (size_t k = 0; k < values_.size(); ++k) out[k] = sign(static_cast<int64_t>(k));
  return out;
}

int64_t Carrier::SupportCount() const {
  int64_t n = 0;
  for (int8_t v : values_) n += (v != 0);
  return n;
}

StatusOr<RealField> RealField::FromValues(GridShape shape, std::vector<double> values) {
  DASHI_RETURN_IF_ERROR(CheckCount(shape, values.size(), "field"));
  for (size_t k = 0; k < values.size(); ++k) {
    if (!std::isfinite(values[k])) {
      return InvalidArgumentError("field value at index " + std::to_string(k) + " (row " +
                                  std::to_string(static_cast<int64_t>(k) / shape.cols) + ", col " +
                                  std::to_string(static_cast<int64_t>(k) % shape.cols) +
                                  ") is not finite");
    }
  }
  return RealField(shape, std::move(values));
}

}  // namespace dashi
