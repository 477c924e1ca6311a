// The one place an errno value becomes a Status, so every file operation in core_ref reports the
// same code for the same failure: missing → NOT_FOUND, permission or read-only →
// FAILED_PRECONDITION, disk full or out of memory → RESOURCE_EXHAUSTED, anything else →
// UNAVAILABLE.
//
//   if (::fsync(fd) != 0) return ErrnoStatus(errno, "fsync failed");  // "fsync failed: <text>"
#ifndef DASHI_CORE_REF_FILEIO_ERRNO_STATUS_H_
#define DASHI_CORE_REF_FILEIO_ERRNO_STATUS_H_

#include <string>

#include "core_ref/status/status.h"

namespace dashi {

// "<what>: <the system's text for err>" with the code above.
Status ErrnoStatus(int err, const std::string& what);

}  // namespace dashi

#endif  // DASHI_CORE_REF_FILEIO_ERRNO_STATUS_H_
