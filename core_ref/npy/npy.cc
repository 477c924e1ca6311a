#include "core_ref/npy/npy.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <new>
#include <optional>
#include <system_error>
#include <utility>

#include "core_ref/fileio/atomic_file.h"
#include "core_ref/fileio/errno_status.h"
#include "core_ref/fileio/input_file.h"

namespace dashi {
namespace {

constexpr uint8_t kMagic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
constexpr size_t kMagicLen = 6;
constexpr int64_t kArrayAlign = 64;        // numpy.lib.format.ARRAY_ALIGN
constexpr int64_t kGrowthAxisDigits = 21;  // numpy.lib.format.GROWTH_AXIS_MAX_DIGITS
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

// ----------------------------------------------------------------------------------------------
// Small helpers

// Printable rendering of untrusted bytes for messages: at most `max` bytes, others as \xNN.
std::string Escape(std::span<const uint8_t> bytes, size_t max = 24) {
  std::string out;
  size_t n = std::min(bytes.size(), max);
  for (size_t i = 0; i < n; ++i) {
    uint8_t c = bytes[i];
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += static_cast<char>(c);
    } else {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  if (bytes.size() > max) out += "...";
  return out;
}

std::string Escape(std::string_view s, size_t max = 24) {
  return Escape(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.data()), s.size()),
                max);
}

// Byte size of an array of `shape` and `dtype`, with every check NpyArray::Validate promises
// except the data size. Zero dimensions do not excuse the others from overflow: like NumPy
// ("array is too big"), the product of the nonzero dimensions times the itemsize must fit in
// int64. The 2^40-byte cap applies to the real size (0 for an empty array).
StatusOr<int64_t> DataBytes(NpyDtype dtype, std::span<const int64_t> shape) {
  if (shape.size() > static_cast<size_t>(kNpyMaxRank)) {
    return InvalidArgumentError("rank " + std::to_string(shape.size()) +
                                " exceeds the maximum rank " + std::to_string(kNpyMaxRank));
  }
  int64_t nonzero_bytes = NpyItemSize(dtype);
  bool has_zero = false;
  for (int64_t d : shape) {
    if (d < 0) {
      return InvalidArgumentError("shape " + NpyShapeString(shape) + " has a negative dimension " +
                                  std::to_string(d));
    }
    if (d == 0) {
      has_zero = true;
      continue;
    }
    if (nonzero_bytes > kInt64Max / d) {
      return InvalidArgumentError("shape " + NpyShapeString(shape) + " of " +
                                  std::string(NpyDescr(dtype)) +
                                  " overflows: its size in bytes exceeds 2^63-1");
    }
    nonzero_bytes *= d;
  }
  if (!has_zero && nonzero_bytes > kNpyMaxDataBytes) {
    return InvalidArgumentError(
        "shape " + NpyShapeString(shape) + " of " + std::string(NpyDescr(dtype)) +
        " is too large: " + std::to_string(nonzero_bytes) + " bytes exceed the 2^40-byte limit");
  }
  return has_zero ? int64_t{0} : nonzero_bytes;
}

template <NpyElement T>
using UnsignedOf =
    std::conditional_t<sizeof(T) == 1, uint8_t,
                       std::conditional_t<sizeof(T) == 4, uint32_t,
                                          std::conditional_t<sizeof(T) == 8, uint64_t, void>>>;

// Explicit little-endian encoding: no assumption about the host's byte order.
template <NpyElement T>
void StoreLE(T value, uint8_t* out) {
  using U = UnsignedOf<T>;
  U u = std::bit_cast<U>(value);
  for (size_t i = 0; i < sizeof(T); ++i) out[i] = static_cast<uint8_t>(u >> (8 * i));
}

template <NpyElement T>
T LoadLE(const uint8_t* in) {
  using U = UnsignedOf<T>;
  U u = 0;
  for (size_t i = 0; i < sizeof(T); ++i) u = static_cast<U>(u | (static_cast<U>(in[i]) << (8 * i)));
  return std::bit_cast<T>(u);
}

// Runs `f` (returning Status or StatusOr) so that no exception escapes the library.
template <typename F>
auto NoThrow(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const std::bad_alloc&) {
    return ResourceExhaustedError("out of memory");
  } catch (const std::exception& e) {
    return InternalError(std::string("unexpected exception: ") + e.what());
  } catch (...) {
    return InternalError("unexpected exception");
  }
}

// ----------------------------------------------------------------------------------------------
// Header dict parser: the subset of Python literal syntax that NumPy headers use.
//   {'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }
// Keys and descr are '...' or "..." strings without escapes; fortran_order is True or False; shape
// is a tuple of decimal integers ("()", "(3,)", "(2, 3)", trailing comma optional for rank >= 2).
// Whitespace (space, tab, CR, LF) is allowed between tokens and after the closing brace.

struct HeaderFields {
  std::string descr;
  bool fortran_order = false;
  std::vector<int64_t> shape;
};

class HeaderParser {
 public:
  HeaderParser(std::string_view text, bool allow_long_suffix)
      : s_(text), allow_long_suffix_(allow_long_suffix) {}

  StatusOr<HeaderFields> Parse() {
    HeaderFields f;
    bool have_descr = false, have_fortran = false, have_shape = false;
    SkipWs();
    if (!Consume('{')) return Error("expected '{' to open the header dict");
    while (true) {
      SkipWs();
      if (Consume('}')) break;
      size_t key_pos = pos_;
      DASHI_ASSIGN_OR_RETURN(std::string key, ParseString("a key"));
      SkipWs();
      if (!Consume(':')) return Error("expected ':' after key '" + Escape(key) + "'");
      SkipWs();
      bool* seen = nullptr;
      if (key == "descr") {
        seen = &have_descr;
        if (Peek() == '[') {
          return UnimplementedError(
              "unsupported dtype: structured descr (a list) is not supported");
        }
        DASHI_ASSIGN_OR_RETURN(f.descr, ParseString("the descr value"));
      } else if (key == "fortran_order") {
        seen = &have_fortran;
        DASHI_ASSIGN_OR_RETURN(f.fortran_order, ParseBool());
      } else if (key == "shape") {
        seen = &have_shape;
        DASHI_ASSIGN_OR_RETURN(f.shape, ParseShape());
      } else {
        pos_ = key_pos;
        return Error("unknown key '" + Escape(key) +
                     "' (expected only 'descr', 'fortran_order' and 'shape')");
      }
      if (*seen) {
        pos_ = key_pos;
        return Error("duplicate key '" + key + "'");
      }
      *seen = true;
      SkipWs();
      if (Consume(',')) continue;
      if (Consume('}')) break;
      return Error("expected ',' or '}' after the value of '" + key + "'");
    }
    SkipWs();
    if (pos_ != s_.size()) return Error("trailing junk after the header dict");
    if (!have_descr) return InvalidArgumentError("malformed header: missing key 'descr'");
    if (!have_fortran) return InvalidArgumentError("malformed header: missing key 'fortran_order'");
    if (!have_shape) return InvalidArgumentError("malformed header: missing key 'shape'");
    return f;
  }

 private:
  static bool IsWs(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
  static bool IsDigit(char c) { return c >= '0' && c <= '9'; }
  static bool IsIdent(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || IsDigit(c) || c == '_';
  }

  char Peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  bool AtEnd() const { return pos_ >= s_.size(); }
  void SkipWs() {
    while (!AtEnd() && IsWs(s_[pos_])) ++pos_;
  }
  bool Consume(char c) {
    if (AtEnd() || s_[pos_] != c) return false;
    ++pos_;
    return true;
  }

  // The token at pos_ (up to a delimiter), for messages.
  std::string TokenAt(size_t pos) const {
    size_t end = pos;
    while (end < s_.size() && end - pos < 24 && !IsWs(s_[end]) && s_[end] != ',' &&
           s_[end] != ')' && s_[end] != '}' && s_[end] != ':') {
      ++end;
    }
    if (end == pos && end < s_.size()) ++end;
    return Escape(s_.substr(pos, end - pos));
  }

  Status Error(const std::string& what) const {
    std::string msg = "malformed header: " + what + " at offset " + std::to_string(pos_);
    if (AtEnd()) {
      msg += " (end of header)";
    } else {
      msg += " (near \"" + Escape(s_.substr(pos_), 20) + "\")";
    }
    return InvalidArgumentError(std::move(msg));
  }

  StatusOr<std::string> ParseString(const std::string& what) {
    char quote = Peek();
    if (quote != '\'' && quote != '"') return Error("expected a quoted string for " + what);
    size_t start = ++pos_;
    while (!AtEnd() && s_[pos_] != quote) {
      char c = s_[pos_];
      if (c == '\\') return Error("escape sequences in strings are not supported");
      if (c == '\n' || c == '\r') return Error("unterminated string");
      uint8_t b = static_cast<uint8_t>(c);
      if (b < 0x20 || b >= 0x7f) return Error("non-ASCII or control byte in string");
      ++pos_;
    }
    if (AtEnd()) return Error("unterminated string");
    std::string out(s_.substr(start, pos_ - start));
    ++pos_;  // closing quote
    return out;
  }

  StatusOr<bool> ParseBool() {
    size_t start = pos_;
    while (!AtEnd() && IsIdent(s_[pos_])) ++pos_;
    std::string_view word = s_.substr(start, pos_ - start);
    if (word == "True") return true;
    if (word == "False") return false;
    pos_ = start;
    return Error("fortran_order must be True or False, not '" + TokenAt(start) + "'");
  }

  StatusOr<std::vector<int64_t>> ParseShape() {
    if (Peek() == '[') return Error("shape must be a tuple, not a list");
    if (!Consume('('))
      return Error("shape must be a tuple such as (2, 3), not '" + TokenAt(pos_) + "'");
    std::vector<int64_t> shape;
    SkipWs();
    if (Consume(')')) return shape;
    while (true) {
      if (shape.size() >= static_cast<size_t>(kNpyMaxRank)) {
        return Error("shape has more than " + std::to_string(kNpyMaxRank) + " dimensions");
      }
      DASHI_ASSIGN_OR_RETURN(int64_t d, ParseInt());
      shape.push_back(d);
      SkipWs();
      if (Consume(',')) {
        SkipWs();
        if (Consume(')')) return shape;
        continue;
      }
      if (Consume(')')) {
        if (shape.size() == 1) {
          return Error("shape (" + std::to_string(d) +
                       ") is a parenthesized integer, not a tuple (a 1-d shape is written (" +
                       std::to_string(d) + ",))");
        }
        return shape;
      }
      return Error("expected ',' or ')' in shape");
    }
  }

  // A decimal integer literal, optionally negative (rejected later with a clear message).
  StatusOr<int64_t> ParseInt() {
    size_t start = pos_;
    bool negative = Consume('-');
    if (!IsDigit(Peek())) {
      pos_ = start;
      return Error("shape entry '" + TokenAt(start) + "' is not an integer");
    }
    size_t digits_start = pos_;
    // Magnitude accumulated as uint64 so that -2^63 is representable; checked at each step.
    uint64_t magnitude = 0;
    constexpr uint64_t kLimit = uint64_t{1} << 63;
    bool too_big = false;
    while (IsDigit(Peek())) {
      uint64_t digit = static_cast<uint64_t>(s_[pos_] - '0');
      if (magnitude > (kLimit - digit) / 10) too_big = true;
      if (!too_big) magnitude = magnitude * 10 + digit;
      ++pos_;
    }
    if (s_[digits_start] == '0' && pos_ - digits_start > 1) {
      pos_ = start;
      return Error("shape entry '" + TokenAt(start) + "' is not a valid integer (leading zero)");
    }
    if (allow_long_suffix_ && Peek() == 'L') ++pos_;  // Python 2 long, as numpy's _filter_header
    if (IsIdent(Peek()) || Peek() == '.') {
      pos_ = start;
      return Error("shape entry '" + TokenAt(start) + "' is not an integer");
    }
    if (too_big || (!negative && magnitude == kLimit)) {
      pos_ = start;
      return Error("shape entry '" + TokenAt(start) + "' does not fit in int64");
    }
    if (negative) {
      return magnitude == kLimit ? std::numeric_limits<int64_t>::min()
                                 : -static_cast<int64_t>(magnitude);
    }
    return static_cast<int64_t>(magnitude);
  }

  std::string_view s_;
  size_t pos_ = 0;
  bool allow_long_suffix_;
};

// ----------------------------------------------------------------------------------------------
// Preamble + header

struct ParsedHeader {
  NpyDtype dtype;
  std::vector<int64_t> shape;
  int64_t data_offset;  // bytes before the data
  int64_t data_bytes;   // bytes of data the shape implies
};

// Parses magic, version, header length and header from `prefix`, the first bytes of a file of
// `file_size` bytes (prefix holds the whole preamble whenever the file does).
StatusOr<ParsedHeader> ParseHeader(std::span<const uint8_t> prefix, uint64_t file_size) {
  size_t n = prefix.size();
  size_t magic_have = std::min(n, kMagicLen);
  // (n == 0 first: memcmp must not see the null data() of an empty span, even with length 0.)
  if (n == 0 || std::memcmp(prefix.data(), kMagic, magic_have) != 0) {
    return InvalidArgumentError("bad magic: not a .npy file (expected \"\\x93NUMPY\", got \"" +
                                Escape(prefix.first(magic_have)) + "\")");
  }
  if (n < kMagicLen + 2) {
    return OutOfRangeError("truncated preamble: the file is " + std::to_string(file_size) +
                           " bytes, too short to hold the format version");
  }
  int major = prefix[6], minor = prefix[7];
  if (major < 1 || major > 3 || minor != 0) {
    return UnimplementedError("unsupported .npy format version " + std::to_string(major) + "." +
                              std::to_string(minor) + " (supported: 1.0, 2.0, 3.0)");
  }
  size_t len_bytes = major == 1 ? 2 : 4;
  size_t header_start = kMagicLen + 2 + len_bytes;
  if (n < header_start) {
    return OutOfRangeError("truncated preamble: the file is " + std::to_string(file_size) +
                           " bytes, too short to hold the header length");
  }
  uint64_t header_len = 0;
  for (size_t i = 0; i < len_bytes; ++i) {
    header_len |= static_cast<uint64_t>(prefix[kMagicLen + 2 + i]) << (8 * i);
  }
  if (header_len > static_cast<uint64_t>(kNpyMaxHeaderBytes)) {
    return InvalidArgumentError("header length " + std::to_string(header_len) + " exceeds the " +
                                std::to_string(kNpyMaxHeaderBytes) + "-byte limit");
  }
  if (header_start + header_len > file_size) {
    return OutOfRangeError(
        "header length " + std::to_string(header_len) + " runs past the end of the file (" +
        std::to_string(file_size - header_start) + " bytes follow the preamble)");
  }
  if (header_start + header_len > n) {
    return InternalError("header not fully read");  // callers read the whole preamble
  }
  std::string_view text(reinterpret_cast<const char*>(prefix.data() + header_start), header_len);
  HeaderParser parser(text, /*allow_long_suffix=*/major <= 2);
  DASHI_ASSIGN_OR_RETURN(HeaderFields fields, parser.Parse());

  DASHI_ASSIGN_OR_RETURN(NpyDtype dtype, NpyDtypeFromDescr(fields.descr));
  if (fields.fortran_order) {
    return UnimplementedError("fortran_order True (Fortran-order data) is not supported");
  }
  DASHI_ASSIGN_OR_RETURN(int64_t data_bytes, DataBytes(dtype, fields.shape));
  return ParsedHeader{dtype, std::move(fields.shape),
                      static_cast<int64_t>(header_start + header_len), data_bytes};
}

// The data that follows the header must be exactly h.data_bytes long.
Status CheckDataSize(const ParsedHeader& h, uint64_t available) {
  uint64_t need = static_cast<uint64_t>(h.data_bytes);
  std::string what = "shape " + NpyShapeString(h.shape) + " of " + std::string(NpyDescr(h.dtype)) +
                     " needs " + std::to_string(need) + " bytes of data";
  if (available < need) {
    return OutOfRangeError("truncated data: " + what + " but only " + std::to_string(available) +
                           " follow the header");
  }
  if (available > need) {
    return InvalidArgumentError(std::to_string(available - need) +
                                " trailing bytes after the data: " + what + " but " +
                                std::to_string(available) + " follow the header");
  }
  return OkStatus();
}

// ----------------------------------------------------------------------------------------------
// Files

// Reads exactly out.size() bytes at `offset`; fewer (the file shrank) is OUT_OF_RANGE.
Status PreadAll(int fd, std::span<uint8_t> out, int64_t offset) {
  size_t done = 0;
  while (done < out.size()) {
    ssize_t r = ::pread(fd, out.data() + done, out.size() - done,
                        static_cast<off_t>(offset + static_cast<int64_t>(done)));
    if (r < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus(errno, "read failed");
    }
    if (r == 0) return OutOfRangeError("the file shrank while it was being read");
    done += static_cast<size_t>(r);
  }
  return OkStatus();
}

StatusOr<NpyArray> ReadNpyImpl(const std::string& path) {
  StatusOr<InputFile> file = InputFile::Open(path);
  if (!file.ok()) {
    if (file.status().message() == "is a directory") {
      return FailedPreconditionError("is a directory, not a .npy file");
    }
    return file.status();
  }
  const InputFile& fd = *file;
  uint64_t file_size = static_cast<uint64_t>(fd.size());

  // Enough for the largest legal preamble: magic, version, 4-byte length, capped header.
  std::vector<uint8_t> prefix(static_cast<size_t>(std::min<uint64_t>(
      file_size, kMagicLen + 2 + 4 + static_cast<uint64_t>(kNpyMaxHeaderBytes))));
  DASHI_RETURN_IF_ERROR(PreadAll(fd.fd(), prefix, 0));
  DASHI_ASSIGN_OR_RETURN(ParsedHeader h, ParseHeader(prefix, file_size));
  DASHI_RETURN_IF_ERROR(CheckDataSize(h, file_size - static_cast<uint64_t>(h.data_offset)));

  NpyArray array;
  array.dtype = h.dtype;
  array.shape = std::move(h.shape);
  array.data.resize(static_cast<size_t>(h.data_bytes));  // == the file's remaining size
  DASHI_RETURN_IF_ERROR(PreadAll(fd.fd(), array.data, h.data_offset));
  return array;
}

}  // namespace

// ------------------------------------------------------------------------------------------------
// Dtypes

int64_t NpyItemSize(NpyDtype dtype) {
  switch (dtype) {
    case NpyDtype::kF8: return 8;
    case NpyDtype::kF4: return 4;
    case NpyDtype::kI1: return 1;
    case NpyDtype::kU1: return 1;
    case NpyDtype::kI4: return 4;
    case NpyDtype::kI8: return 8;
    case NpyDtype::kU8: return 8;
  }
  return 1;  // unreachable for valid enumerators
}

std::string_view NpyDescr(NpyDtype dtype) {
  switch (dtype) {
    case NpyDtype::kF8: return "<f8";
    case NpyDtype::kF4: return "<f4";
    case NpyDtype::kI1: return "|i1";
    case NpyDtype::kU1: return "|u1";
    case NpyDtype::kI4: return "<i4";
    case NpyDtype::kI8: return "<i8";
    case NpyDtype::kU8: return "<u8";
  }
  return "?";
}

StatusOr<NpyDtype> NpyDtypeFromDescr(std::string_view descr) {
  for (NpyDtype d : {NpyDtype::kF8, NpyDtype::kF4, NpyDtype::kI1, NpyDtype::kU1, NpyDtype::kI4,
                     NpyDtype::kI8, NpyDtype::kU8}) {
    if (descr == NpyDescr(d)) return d;
  }
  if (descr == "<i1") return NpyDtype::kI1;
  if (descr == "<u1") return NpyDtype::kU1;
  return UnimplementedError("unsupported dtype '" + Escape(descr) +
                            "' (supported: <f8 <f4 |i1 |u1 <i4 <i8 <u8, little-endian only)");
}

std::string NpyShapeString(std::span<const int64_t> shape) {
  std::string out = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(shape[i]);
  }
  if (shape.size() == 1) out += ",";
  out += ")";
  return out;
}

// ------------------------------------------------------------------------------------------------
// NpyArray

Status NpyArray::Validate() const {
  return NoThrow([&]() -> Status {
    DASHI_ASSIGN_OR_RETURN(int64_t bytes, DataBytes(dtype, shape));
    if (data.size() != static_cast<uint64_t>(bytes)) {
      return InvalidArgumentError("data has " + std::to_string(data.size()) + " bytes but shape " +
                                  NpyShapeString(shape) + " of " + std::string(NpyDescr(dtype)) +
                                  " needs " + std::to_string(bytes));
    }
    return OkStatus();
  });
}

int64_t NpyArray::NumElements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

template <NpyElement T>
StatusOr<NpyArray> NpyArray::From(std::vector<int64_t> shape, std::span<const T> values) {
  return NoThrow([&]() -> StatusOr<NpyArray> {
    NpyArray a;
    a.dtype = NpyDtypeOf<T>();
    DASHI_ASSIGN_OR_RETURN(int64_t bytes, DataBytes(a.dtype, shape));
    a.shape = std::move(shape);
    int64_t count = bytes / static_cast<int64_t>(sizeof(T));
    if (values.size() != static_cast<uint64_t>(count)) {
      return InvalidArgumentError(std::to_string(values.size()) + " values for shape " +
                                  NpyShapeString(a.shape) + " of " + std::to_string(count) +
                                  " elements");
    }
    a.data.resize(static_cast<size_t>(bytes));
    for (size_t i = 0; i < values.size(); ++i) StoreLE<T>(values[i], a.data.data() + i * sizeof(T));
    return a;
  });
}

template <NpyElement T>
StatusOr<std::vector<T>> NpyArray::As() const {
  return NoThrow([&]() -> StatusOr<std::vector<T>> {
    if (dtype != NpyDtypeOf<T>()) {
      return InvalidArgumentError("dtype is " + std::string(NpyDescr(dtype)) + ", not " +
                                  std::string(NpyDescr(NpyDtypeOf<T>())) + " as requested");
    }
    DASHI_RETURN_IF_ERROR(Validate());
    std::vector<T> out(data.size() / sizeof(T));
    for (size_t i = 0; i < out.size(); ++i) out[i] = LoadLE<T>(data.data() + i * sizeof(T));
    return out;
  });
}

#define DASHI_NPY_INSTANTIATE_(T)                                                          \
  template StatusOr<NpyArray> NpyArray::From<T>(std::vector<int64_t>, std::span<const T>); \
  template StatusOr<std::vector<T>> NpyArray::As<T>() const;
DASHI_NPY_INSTANTIATE_(double)
DASHI_NPY_INSTANTIATE_(float)
DASHI_NPY_INSTANTIATE_(int8_t)
DASHI_NPY_INSTANTIATE_(uint8_t)
DASHI_NPY_INSTANTIATE_(int32_t)
DASHI_NPY_INSTANTIATE_(int64_t)
DASHI_NPY_INSTANTIATE_(uint64_t)
#undef DASHI_NPY_INSTANTIATE_

// ------------------------------------------------------------------------------------------------
// Parse / serialize / files

StatusOr<NpyArray> ParseNpy(std::span<const uint8_t> bytes) {
  return NoThrow([&]() -> StatusOr<NpyArray> {
    DASHI_ASSIGN_OR_RETURN(ParsedHeader h, ParseHeader(bytes, bytes.size()));
    DASHI_RETURN_IF_ERROR(CheckDataSize(h, bytes.size() - static_cast<uint64_t>(h.data_offset)));
    NpyArray array;
    array.dtype = h.dtype;
    array.shape = std::move(h.shape);
    auto data = bytes.subspan(static_cast<size_t>(h.data_offset));
    array.data.assign(data.begin(), data.end());
    return array;
  });
}

StatusOr<NpyArray> ReadNpy(const std::string& path) {
  StatusOr<NpyArray> r = NoThrow([&] { return ReadNpyImpl(path); });
  if (!r.ok()) return r.status().WithPrefix(path);
  return r;
}

namespace npy_internal {
std::vector<uint8_t> WrapHeader(std::string_view dict_text) {
  // numpy.lib.format._wrap_header: hlen counts the final '\n'; padlen is in [1, 64], so an
  // already-aligned header still gets 64 spaces, exactly as NumPy writes it.
  int64_t hlen = static_cast<int64_t>(dict_text.size()) + 1;
  int version = 1;
  int64_t prefix_len = static_cast<int64_t>(kMagicLen) + 2 + 2;
  int64_t padlen = kArrayAlign - (prefix_len + hlen) % kArrayAlign;
  if (hlen + padlen > 65535) {
    version = 2;
    prefix_len = static_cast<int64_t>(kMagicLen) + 2 + 4;
    padlen = kArrayAlign - (prefix_len + hlen) % kArrayAlign;
  }
  uint64_t field = static_cast<uint64_t>(hlen + padlen);
  std::vector<uint8_t> out(kMagic, kMagic + kMagicLen);
  out.push_back(static_cast<uint8_t>(version));
  out.push_back(0);
  for (int i = 0; i < (version == 1 ? 2 : 4); ++i)
    out.push_back(static_cast<uint8_t>(field >> (8 * i)));
  out.insert(out.end(), dict_text.begin(), dict_text.end());
  out.insert(out.end(), static_cast<size_t>(padlen), ' ');
  out.push_back('\n');
  return out;
}
}  // namespace npy_internal

StatusOr<std::vector<uint8_t>> NpyHeader(NpyDtype dtype, std::span<const int64_t> shape) {
  return NoThrow([&]() -> StatusOr<std::vector<uint8_t>> {
    // numpy.lib.format._write_array_header: keys sorted, repr() values, "}" then spare spaces so
    // the first axis can grow to 21 digits in place.
    std::string dict = "{'descr': '" + std::string(NpyDescr(dtype)) +
                       "', 'fortran_order': False, 'shape': " + NpyShapeString(shape) + ", }";
    if (!shape.empty()) {
      int64_t digits = static_cast<int64_t>(std::to_string(shape[0]).size());
      if (digits < kGrowthAxisDigits)
        dict.append(static_cast<size_t>(kGrowthAxisDigits - digits), ' ');
    }
    return npy_internal::WrapHeader(dict);
  });
}

StatusOr<std::vector<uint8_t>> SerializeNpy(const NpyArray& array) {
  return NoThrow([&]() -> StatusOr<std::vector<uint8_t>> {
    DASHI_RETURN_IF_ERROR(array.Validate());
    DASHI_ASSIGN_OR_RETURN(std::vector<uint8_t> out, NpyHeader(array.dtype, array.shape));
    out.insert(out.end(), array.data.begin(), array.data.end());
    return out;
  });
}

Status WriteNpy(const std::string& path, const NpyArray& array) {
  StatusOr<std::vector<uint8_t>> bytes = SerializeNpy(array);
  if (!bytes.ok()) return bytes.status().WithPrefix(path);
  // The one atomic writer (core_ref/fileio); its messages already start with "path: ".
  return NoThrow([&] { return WriteFileAtomically(path, *bytes); });
}

}  // namespace dashi
