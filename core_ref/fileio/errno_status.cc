#include "core_ref/fileio/errno_status.h"

#include <cerrno>
#include <system_error>

namespace dashi {

Status ErrnoStatus(int err, const std::string& what) {
  std::string msg = what + ": " + std::error_code(err, std::generic_category()).message();
  switch (err) {
    case ENOENT:
    case ENOTDIR: return NotFoundError(std::move(msg));
    case EACCES:
    case EPERM:
    case EROFS:
    case EISDIR: return FailedPreconditionError(std::move(msg));
    case ENOSPC:
    case EDQUOT:
    case ENOMEM: return ResourceExhaustedError(std::move(msg));
    default: return UnavailableError(std::move(msg));
  }
}

}  // namespace dashi
