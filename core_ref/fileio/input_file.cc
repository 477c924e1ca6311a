#include "core_ref/fileio/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "core_ref/fileio/errno_status.h"

namespace dashi {

StatusOr<InputFile> InputFile::Open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT) return NotFoundError("no such file");
    return ErrnoStatus(err, "cannot open");
  }
  InputFile file(fd, 0);
  struct stat st;
  if (::fstat(fd, &st) != 0) return ErrnoStatus(errno, "cannot stat");
  if (S_ISDIR(st.st_mode)) return FailedPreconditionError("is a directory");
  if (!S_ISREG(st.st_mode)) {
    return FailedPreconditionError("is not a regular file (a FIFO, socket or device)");
  }
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
    return ErrnoStatus(errno, "cannot set blocking reads");
  }
  file.size_ = static_cast<int64_t>(st.st_size);
  return file;
}

InputFile& InputFile::operator=(InputFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    size_ = other.size_;
    other.fd_ = -1;
  }
  return *this;
}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace dashi
