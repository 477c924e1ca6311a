// Status and StatusOr<T>: errors as values at every dashi API boundary.
//
// A Status is OK or carries a code from a fixed set plus a message that names the input and the
// problem ("A.npy: shape (10, 12) is not square"). StatusOr<T> holds either a value or an error.
//
//   StatusOr<Carrier> c = Carrier::FromValues(rows, cols, values);
//   if (!c.ok()) return c.status();
//   Use(*c);
#ifndef DASHI_CORE_REF_STATUS_STATUS_H_
#define DASHI_CORE_REF_STATUS_STATUS_H_

#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace dashi {

// The fixed set of error codes (a subset of Abseil's canonical codes).
enum class StatusCode : int {
  kOk = 0,
  kInvalidArgument = 3,     // the caller's input is malformed (shape, NaN, bad header, ...)
  kNotFound = 5,            // a named file, device or entry does not exist
  kAlreadyExists = 6,
  kFailedPrecondition = 9,  // the system is not in a state to do this (uncertified device, ...)
  kOutOfRange = 11,         // a read past the end (truncated file, ...)
  kUnimplemented = 12,      // a feature the device or build does not support
  kInternal = 13,           // an invariant of ours broke
  kUnavailable = 14,        // a resource went away (device lost, ...)
  kDataLoss = 15,           // corrupt data (hash mismatch, ...)
  kResourceExhausted = 8,   // out of memory
};

// "OK", "INVALID_ARGUMENT", ...
std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK
  Status(StatusCode code, std::string message);

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "INVALID_ARGUMENT: A.npy: shape (10, 12) is not square", or "OK".
  std::string ToString() const;

  // Returns a copy whose message is "prefix: message" (used to add the name of an input).
  Status WithPrefix(std::string_view prefix) const;

  friend bool operator==(const Status& a, const Status& b) {
    return a.code_ == b.code_ && a.message_ == b.message_;
  }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status OkStatus() { return Status(); }
Status InvalidArgumentError(std::string message);
Status NotFoundError(std::string message);
Status AlreadyExistsError(std::string message);
Status FailedPreconditionError(std::string message);
Status OutOfRangeError(std::string message);
Status UnimplementedError(std::string message);
Status InternalError(std::string message);
Status UnavailableError(std::string message);
Status DataLossError(std::string message);
Status ResourceExhaustedError(std::string message);

namespace status_internal {
// Prints "StatusOr accessed without a value: <status>" to stderr and aborts. Reading the value of
// an error is a programming bug, not an input error; like Abseil, it stops the process loudly
// instead of reading an empty optional (undefined behaviour).
[[noreturn]] void DieOnValueOfError(const Status& status);
}  // namespace status_internal

// Either a T or a non-OK Status. Callers check ok() first (tests use
// ASSERT_TRUE(x.ok()) << x.status().ToString()); value(), operator* and operator-> on an error
// print the status and abort.
template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(const T& value) : value_(value) {}                // NOLINT: implicit by design
  StatusOr(T&& value) : value_(std::move(value)) {}          // NOLINT: implicit by design
  StatusOr(Status status) : status_(std::move(status)) {     // NOLINT: implicit by design
    if (status_.ok()) status_ = InternalError("StatusOr constructed from an OK Status");
  }

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }

  const T& value() const& { return Checked(); }
  T& value() & { return Checked(); }
  T&& value() && { return std::move(Checked()); }
  const T& operator*() const& { return Checked(); }
  T& operator*() & { return Checked(); }
  T&& operator*() && { return std::move(Checked()); }
  const T* operator->() const { return &Checked(); }
  T* operator->() { return &Checked(); }

 private:
  const T& Checked() const {
    if (!value_.has_value()) status_internal::DieOnValueOfError(status_);
    return *value_;
  }
  T& Checked() {
    if (!value_.has_value()) status_internal::DieOnValueOfError(status_);
    return *value_;
  }

  Status status_;  // OK when value_ holds a value
  std::optional<T> value_;
};

}  // namespace dashi

// Returns early from the enclosing function when `expr` (a Status) is not OK.
#define DASHI_RETURN_IF_ERROR(expr)                \
  do {                                             \
    ::dashi::Status dashi_status_ = (expr);        \
    if (!dashi_status_.ok()) return dashi_status_; \
  } while (0)

#define DASHI_STATUS_CONCAT_INNER_(a, b) a##b
#define DASHI_STATUS_CONCAT_(a, b) DASHI_STATUS_CONCAT_INNER_(a, b)

// `DASHI_ASSIGN_OR_RETURN(auto x, F());` declares x from F()'s value or returns F()'s error.
#define DASHI_ASSIGN_OR_RETURN(lhs, expr) \
  DASHI_ASSIGN_OR_RETURN_IMPL_(DASHI_STATUS_CONCAT_(dashi_statusor_, __LINE__), lhs, expr)
#define DASHI_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                 \
  if (!tmp.ok()) return tmp.status();                \
  lhs = std::move(tmp).value()

#endif  // DASHI_CORE_REF_STATUS_STATUS_H_
