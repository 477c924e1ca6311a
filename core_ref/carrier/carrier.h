// The balanced-ternary carrier and the real fields it is cut from.
//
// A Carrier is an N×M periodic grid of values in {-1, 0, +1}, stored as int8 in row-major order.
// It factors as support ∈ {0,1} × sign ∈ {-1,+1}: value = support · sign (an unsupported cell has
// sign +1 by convention). A RealField is an N×M grid of finite doubles (a vorticity, a smoothed
// low-pass, ...).
//
//   StatusOr<Carrier> s = Carrier::FromValues({4, 4}, values);   // rejects a value such as 2
//   int64_t active = s->SupportCount();
#ifndef DASHI_CORE_REF_CARRIER_CARRIER_H_
#define DASHI_CORE_REF_CARRIER_CARRIER_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core_ref/status/status.h"

namespace dashi {

// Grid extent: rows (the slow index i) × cols (the fast index j); both ≥ 1.
struct GridShape {
  int64_t rows = 0;
  int64_t cols = 0;

  int64_t size() const { return rows * cols; }
  friend bool operator==(const GridShape&, const GridShape&) = default;
};

// "(rows, cols)" as NumPy prints a shape.
std::string ToString(const GridShape& shape);

// Largest accepted grid: 2^30 cells (1 GiB of int8); larger shapes are rejected, not truncated.
inline constexpr int64_t kMaxGridCells = int64_t{1} << 30;

// OK when rows ≥ 1, cols ≥ 1 and rows·cols ≤ kMaxGridCells.
Status ValidateGridShape(const GridShape& shape);

// Periodic wrap of any integer index into [0, n).
inline int64_t WrapIndex(int64_t i, int64_t n) {
  const int64_t r = i % n;
  return r < 0 ? r + n : r;
}

class Carrier {
 public:
  // Checks the shape, the element count and that every value is -1, 0 or +1.
  static StatusOr<Carrier> FromValues(GridShape shape, std::vector<int8_t> values);
  // value = support · sign; support must be 0/1 and sign ±1 everywhere.
  static StatusOr<Carrier> FromSupportSign(GridShape shape, std::span<const uint8_t> support,
                                           std::span<const int8_t> sign);
  static StatusOr<Carrier> Zeros(GridShape shape);

  const GridShape& shape() const { return shape_; }
  int64_t rows() const { return shape_.rows; }
  int64_t cols() const { return shape_.cols; }
  int64_t size() const { return shape_.size(); }

  std::span<const int8_t> values() const { return values_; }
  int8_t at(int64_t i, int64_t j) const { return values_[i * shape_.cols + j]; }
  // Periodic access: any i, j.
  int8_t AtWrapped(int64_t i, int64_t j) const {
    return at(WrapIndex(i, shape_.rows), WrapIndex(j, shape_.cols));
  }

  uint8_t support(int64_t k) const { return values_[k] != 0 ? 1 : 0; }
  int8_t sign(int64_t k) const { return values_[k] < 0 ? -1 : 1; }
  std::vector<uint8_t> SupportMask() const;
  std::vector<int8_t> Signs() const;
  int64_t SupportCount() const;

  friend bool operator==(const Carrier&, const Carrier&) = default;

 private:
  Carrier(GridShape shape, std::vector<int8_t> values)
      : shape_(shape), values_(std::move(values)) {}

  GridShape shape_;
  std::vector<int8_t> values_;
};

class RealField {
 public:
  // Checks the shape, the element count and that every value is finite (no NaN, no ±Inf).
  static StatusOr<RealField> FromValues(GridShape shape, std::vector<double> values);

  const GridShape& shape() const { return shape_; }
  int64_t rows() const { return shape_.rows; }
  int64_t cols() const { return shape_.cols; }
  int64_t size() const { return shape_.size(); }
  std::span<const double> values() const { return values_; }
  double at(int64_t i, int64_t j) const { return values_[i * shape_.cols + j]; }

  friend bool operator==(const RealField&, const RealField&) = default;

 private:
  RealField(GridShape shape, std::vector<double> values)
      : shape_(shape), values_(std::move(values)) {}

  GridShape shape_;
  std::vector<double> values_;
};

}  // namespace dashi

#endif  // DASHI_CORE_REF_CARRIER_CARRIER_H_
