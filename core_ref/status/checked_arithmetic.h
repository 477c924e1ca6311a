// Size arithmetic that cannot wrap: every product or sum that sizes an allocation or bounds a
// loop from outside input (steps × sample interval, frames × N², D², ...) goes through these, so
// an absurd value is an error naming what was being computed, never a wrapped small number.
//
//   DASHI_ASSIGN_OR_RETURN(int64_t les_steps, CheckedMul(eval_steps, sample_every, "eval LES steps"));
#ifndef DASHI_CORE_REF_STATUS_CHECKED_ARITHMETIC_H_
#define DASHI_CORE_REF_STATUS_CHECKED_ARITHMETIC_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "core_ref/status/status.h"

namespace dashi {

// a·b, or INVALID_ARGUMENT "<what>: a × b overflows a 64-bit integer".
inline StatusOr<int64_t> CheckedMul(int64_t a, int64_t b, std::string_view what) {
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) {
    return InvalidArgumentError(std::string(what) + ": " + std::to_string(a) + " × " +
                                std::to_string(b) + " overflows a 64-bit integer");
  }
  return r;
}

// a + b, likewise.
inline StatusOr<int64_t> CheckedAdd(int64_t a, int64_t b, std::string_view what) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) {
    return InvalidArgumentError(std::string(what) + ": " + std::to_string(a) + " + " +
                                std::to_string(b) + " overflows a 64-bit integer");
  }
  return r;
}

// The bytes of `count` elements of `element_bytes` each, refused with RESOURCE_EXHAUSTED (naming
// the estimate) above `limit_bytes`.
inline StatusOr<int64_t> CheckedBytes(int64_t count, int64_t element_bytes, int64_t limit_bytes,
                                      std::string_view what) {
  DASHI_ASSIGN_OR_RETURN(int64_t bytes, CheckedMul(count, element_bytes, what));
  if (bytes > limit_bytes) {
    return ResourceExhaustedError(std::string(what) + " needs " + std::to_string(bytes) +
                                  " bytes, more than the limit of " +
                                  std::to_string(limit_bytes));
  }
  return bytes;
}

}  // namespace dashi

#endif  // DASHI_CORE_REF_STATUS_CHECKED_ARITHMETIC_H_
