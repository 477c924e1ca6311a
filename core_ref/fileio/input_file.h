// The one way core_ref opens a file it reads: O_RDONLY|O_NONBLOCK|O_NOCTTY|O_CLOEXEC (so a FIFO
// or a device cannot block the open), then fstat: anything but a regular file is refused with
// FAILED_PRECONDITION before a byte is read; then the descriptor goes back to blocking reads.
// Every reader (ReadFileBytes, the .npy reader) goes through it.
//
//   DASHI_ASSIGN_OR_RETURN(InputFile f, InputFile::Open(path));
//   f.fd(); f.size();
#ifndef DASHI_CORE_REF_FILEIO_INPUT_FILE_H_
#define DASHI_CORE_REF_FILEIO_INPUT_FILE_H_

#include <cstdint>
#include <string>

#include "core_ref/status/status.h"

namespace dashi {

class InputFile {
 public:
  // Errors have no path prefix (callers add theirs): NOT_FOUND "no such file", FAILED_PRECONDITION
  // "is a directory" / "is not a regular file (a FIFO, socket or device)", errno codes otherwise.
  static StatusOr<InputFile> Open(const std::string& path);

  InputFile(InputFile&& other) noexcept : fd_(other.fd_), size_(other.size_) { other.fd_ = -1; }
  InputFile& operator=(InputFile&& other) noexcept;
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  ~InputFile();

  int fd() const { return fd_; }
  int64_t size() const { return size_; }

 private:
  InputFile(int fd, int64_t size) : fd_(fd), size_(size) {}
  int fd_ = -1;
  int64_t size_ = 0;
};

}  // namespace dashi

#endif  // DASHI_CORE_REF_FILEIO_INPUT_FILE_H_
