#include "core_ref/npy/npy_stream_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <bit>
#include <cerrno>
#include <utility>

#include "core_ref/fileio/errno_status.h"
#include "core_ref/npy/npy.h"

namespace dashi {
namespace {

Status WriteAll(int fd, const uint8_t* data, size_t size) {
  size_t done = 0;
  while (done < size) {
    const ssize_t r = ::write(fd, data + done, size - done);
    if (r < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus(errno, "write failed");
    }
    done += static_cast<size_t>(r);
  }
  return OkStatus();
}

}  // namespace

StatusOr<NpyF64StreamWriter> NpyF64StreamWriter::Create(const std::string& path,
                                                       std::vector<int64_t> shape) {
  if (static_cast<int>(shape.size()) > kNpyMaxRank) {
    return InvalidArgumentError(path + ": rank " + std::to_string(shape.size()) + " exceeds " +
                                std::to_string(kNpyMaxRank));
  }
  int64_t count = 1;
  for (int64_t d : shape) {
    if (d < 0 || (d != 0 && count > kNpyMaxDataBytes / 8 / d)) {
      return InvalidArgumentError(path + ": shape " + NpyShapeString(shape) + " is too large");
    }
    count *= d;
  }
  DASHI_ASSIGN_OR_RETURN(std::vector<uint8_t> header, NpyHeader(NpyDtype::kF8, shape));
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0) return ErrnoStatus(errno, path + ": cannot create");
  NpyF64StreamWriter w(path, fd, count);
  if (Status s = WriteAll(fd, header.data(), header.size()); !s.ok()) return s.WithPrefix(path);
  return w;
}

NpyF64StreamWriter::NpyF64StreamWriter(NpyF64StreamWriter&& other) noexcept
    : path_(std::move(other.path_)),
      fd_(std::exchange(other.fd_, -1)),
      expected_(other.expected_),
      written_(other.written_),
      buffer_(std::move(other.buffer_)) {}

NpyF64StreamWriter::~NpyF64StreamWriter() {
  if (fd_ >= 0) {
    ::close(fd_);
    ::unlink(path_.c_str());
  }
}

Status NpyF64StreamWriter::Append(std::span<const double> values) {
  if (fd_ < 0) return FailedPreconditionError(path_ + ": writer already finished");
  if (static_cast<int64_t>(values.size()) > expected_ - written_) {
    return OutOfRangeError(path_ + ": more values than the shape holds");
  }
  buffer_.resize(values.size() * 8);
  for (size_t k = 0; k < values.size(); ++k) {
    const uint64_t u = std::bit_cast<uint64_t>(values[k]);
    for (int b = 0; b < 8; ++b) buffer_[8 * k + b] = static_cast<uint8_t>(u >> (8 * b));
  }
  if (Status s = WriteAll(fd_, buffer_.data(), buffer_.size()); !s.ok()) return s.WithPrefix(path_);
  written_ += static_cast<int64_t>(values.size());
  return OkStatus();
}

Status NpyF64StreamWriter::Finish() {
  if (fd_ < 0) return FailedPreconditionError(path_ + ": writer already finished");
  if (written_ != expected_) {
    return FailedPreconditionError(path_ + ": " + std::to_string(written_) + " of " +
                                   std::to_string(expected_) + " values written");
  }
  Status s;
  if (::fsync(fd_) != 0) s = ErrnoStatus(errno, path_ + ": fsync failed");
  const int fd = std::exchange(fd_, -1);
  if (::close(fd) != 0 && errno != EINTR && s.ok()) s = ErrnoStatus(errno, path_ + ": close failed");
  if (!s.ok()) ::unlink(path_.c_str());
  return s;
}

}  // namespace dashi
