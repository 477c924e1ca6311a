// NumPy .npy files: a strict reader and a NumPy-identical writer for plain numeric arrays.
//
// Supported: C-order arrays of any rank up to 64 (NumPy 2's NPY_MAXDIMS), 0-d included, with dtype
// one of  <f8 <f4 |i1 |u1 <i4 <i8 <u8  (the 1-byte types are also accepted as <i1 / <u1).
// Read: format versions 1.0, 2.0 and 3.0 (3.0 = UTF-8 header; a header of ours is ASCII anyway).
// Write: version 1.0, the header byte-for-byte what NumPy 1.24 `np.save` writes (sorted keys,
// 21-digit growth padding after the shape dict, spaces and '\n' to a multiple of 64 bytes);
// version 2.0 only if the header would exceed 65535 bytes, which a rank <= 64 header never does.
//
// Every error is a Status naming the problem; nothing throws, aborts or allocates from an
// unchecked size. Codes: INVALID_ARGUMENT for a malformed file or array (bad magic, header
// syntax, negative dimension, trailing bytes, shape overflow, ...), UNIMPLEMENTED for a valid
// .npy feature we do not support (other dtypes, fortran_order True, versions other than 1/2/3.0),
// OUT_OF_RANGE for truncation (header or data past end of file), NOT_FOUND for a missing file.
//
//   DASHI_ASSIGN_OR_RETURN(NpyArray a, ReadNpy("golden/A.npy"));
//   DASHI_ASSIGN_OR_RETURN(std::vector<double> v, a.As<double>());
//   DASHI_ASSIGN_OR_RETURN(NpyArray b, NpyArray::From<double>({2, 3}, v));
//   DASHI_RETURN_IF_ERROR(WriteNpy("out/B.npy", b));
#ifndef DASHI_CORE_REF_NPY_NPY_H_
#define DASHI_CORE_REF_NPY_NPY_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core_ref/status/status.h"

namespace dashi {

enum class NpyDtype { kF8, kF4, kI1, kU1, kI4, kI8, kU8 };

// Bytes per element: 8, 4, 1, 1, 4, 8, 8.
int64_t NpyItemSize(NpyDtype dtype);
// The descr NumPy writes: "<f8", "<f4", "|i1", "|u1", "<i4", "<i8", "<u8".
std::string_view NpyDescr(NpyDtype dtype);
// Inverse of NpyDescr; also accepts "<i1" and "<u1". Anything else is UNIMPLEMENTED.
StatusOr<NpyDtype> NpyDtypeFromDescr(std::string_view descr);

// The C++ element type of each dtype: double, float, int8_t, uint8_t, int32_t, int64_t, uint64_t.
template <typename T>
concept NpyElement = std::is_same_v<T, double> || std::is_same_v<T, float> ||
    std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t> || std::is_same_v<T, int32_t> ||
    std::is_same_v<T, int64_t> || std::is_same_v<T, uint64_t>;

template <NpyElement T>
constexpr NpyDtype NpyDtypeOf() {
  if constexpr (std::is_same_v<T, double>) return NpyDtype::kF8;
  if constexpr (std::is_same_v<T, float>) return NpyDtype::kF4;
  if constexpr (std::is_same_v<T, int8_t>) return NpyDtype::kI1;
  if constexpr (std::is_same_v<T, uint8_t>) return NpyDtype::kU1;
  if constexpr (std::is_same_v<T, int32_t>) return NpyDtype::kI4;
  if constexpr (std::is_same_v<T, int64_t>) return NpyDtype::kI8;
  if constexpr (std::is_same_v<T, uint64_t>) return NpyDtype::kU8;
}

// Python's repr of a shape tuple: "()", "(3,)", "(2, 3)". Used in messages.
std::string NpyShapeString(std::span<const int64_t> shape);

// Largest rank read or written (NumPy 2's NPY_MAXDIMS; NumPy 1.x allows 32).
inline constexpr int kNpyMaxRank = 64;
// NumPy's cap on the header length (numpy.lib.format._MAX_HEADER_SIZE), in bytes here.
inline constexpr int64_t kNpyMaxHeaderBytes = 10000;
// Sanity cap on the data size of one array: 2^40 bytes (1 TiB).
inline constexpr int64_t kNpyMaxDataBytes = int64_t{1} << 40;

// An n-d array as stored in a .npy file: raw little-endian element bytes in C (row-major) order.
struct NpyArray {
  NpyDtype dtype = NpyDtype::kF8;
  std::vector<int64_t> shape;  // {} is a 0-d array (one element)
  std::vector<uint8_t> data;   // NumElements() * NpyItemSize(dtype) bytes, little-endian

  // Checks rank <= kNpyMaxRank, dims >= 0, no overflow, size <= kNpyMaxDataBytes and
  // data.size() matching. Every function below that takes an NpyArray checks this first.
  Status Validate() const;

  // Product of the dims (1 for 0-d). Only meaningful for a valid shape.
  int64_t NumElements() const;

  // An array of dtype NpyDtypeOf<T>() holding `values` (C order; size must match the shape).
  template <NpyElement T>
  static StatusOr<NpyArray> From(std::vector<int64_t> shape, std::span<const T> values);
  static StatusOr<NpyArray> FromF64(std::vector<int64_t> shape, std::span<const double> values) {
    return From<double>(std::move(shape), values);
  }

  // The elements as T, in C order. INVALID_ARGUMENT if dtype is not NpyDtypeOf<T>() (no
  // conversions) or the array is not valid.
  template <NpyElement T>
  StatusOr<std::vector<T>> As() const;

  friend bool operator==(const NpyArray& a, const NpyArray& b) {
    return a.dtype == b.dtype && a.shape == b.shape && a.data == b.data;
  }
};

// Parses a whole .npy file held in memory. The data must end exactly at the end of `bytes`.
StatusOr<NpyArray> ParseNpy(std::span<const uint8_t> bytes);

// Reads and parses a .npy file; every error message starts with "path: ". A missing file is
// NOT_FOUND. The data size is checked against the file size before anything is allocated.
StatusOr<NpyArray> ReadNpy(const std::string& path);

// The header SerializeNpy writes before the data of an array of `dtype` and `shape` (the shape
// is not validated here: callers pass a valid one).
StatusOr<std::vector<uint8_t>> NpyHeader(NpyDtype dtype, std::span<const int64_t> shape);

// The .npy bytes of `array` (format 1.0, NumPy's exact header), or the error from Validate().
StatusOr<std::vector<uint8_t>> SerializeNpy(const NpyArray& array);

// Writes SerializeNpy(array) to `path` with WriteFileAtomically (core_ref/fileio): a fresh
// temporary beside it (never an existing file or symlink), fsync, rename over `path`. On any
// failure the temporary is removed and `path` is left as it was. Errors start with "path: ".
Status WriteNpy(const std::string& path, const NpyArray& array);

namespace npy_internal {
// Magic, version, header length, `dict_text`, then spaces and '\n' so the preamble is a multiple
// of 64 bytes, exactly as numpy.lib.format._wrap_header (version 1.0, or 2.0 when the padded
// header exceeds 65535 bytes). Exposed for tests.
std::vector<uint8_t> WrapHeader(std::string_view dict_text);
}  // namespace npy_internal

}  // namespace dashi

#endif  // DASHI_CORE_REF_NPY_NPY_H_
