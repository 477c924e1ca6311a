#include "core_ref/fileio/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string_view>
#include <utility>

#include "core_ref/fileio/errno_status.h"
#include "core_ref/fileio/input_file.h"
#include "core_ref/fileio/temporaries.h"

namespace dashi {
namespace {

// "<path>.dashi-tmp.<host>.<pid>.<16 hex digits>": the owner tag makes a temporary left by kill -9
// recognisable (and removable by the next writer of the same path), the digits make the name
// impossible to plant ahead of time (and O_EXCL makes a clash harmless anyway). The name never
// reaches an output: results do not depend on it.
constexpr std::string_view kTemporaryInfix = ".dashi-tmp.";

std::string UnpredictableTemporaryName(const std::string& path) {
  return path + std::string(kTemporaryInfix) + TemporaryOwnerTag() + "." + UnpredictableHex();
}

// The directory part of `path` ("." when there is none) and its last component.
std::pair<std::string, std::string> SplitPath(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return {".", path};
  return {slash == 0 ? "/" : path.substr(0, slash), path.substr(slash + 1)};
}

Status WriteAll(int fd, std::span<const uint8_t> bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t r = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (r < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus(errno, "write failed");
    }
    done += static_cast<size_t>(r);
  }
  return OkStatus();
}

// Writes, fsyncs and closes fd (which it owns); close() reports delayed write errors too.
Status WriteSyncClose(int fd, std::span<const uint8_t> bytes) {
  Status s = WriteAll(fd, bytes);
  if (s.ok() && ::fsync(fd) != 0) s = ErrnoStatus(errno, "fsync failed");
  if (::close(fd) != 0 && errno != EINTR && s.ok()) s = ErrnoStatus(errno, "close failed");
  return s;
}

// Makes the rename durable; best effort (some file systems refuse fsync on directories).
void SyncParentDirectory(const std::string& path) {
  const std::string dir = SplitPath(path).first;
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    (void)::fsync(dfd);
    ::close(dfd);
  }
}

Status WriteUnprefixed(const std::string& path, std::span<const uint8_t> bytes,
                       const std::function<std::string(int)>& temporary_name) {
  std::string tmp;
  int fd = -1;
  int err = 0;
  std::optional<TemporaryGuard> guard;
  {
    CleanupSignalsBlocked blocked;  // a signal between open and the guard waits for the guard
    for (int attempt = 0; attempt < fileio_internal::kTemporaryAttempts && fd < 0; ++attempt) {
      tmp = temporary_name(attempt);
      // O_EXCL: never reuse an existing file; O_NOFOLLOW: never write through a symlink (with
      // O_EXCL a symlink already fails with EEXIST; ELOOP is the answer on some systems).
      fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
      err = errno;
      if (fd < 0 && err != EEXIST && err != ELOOP) break;
    }
    if (fd >= 0) guard.emplace(tmp, /*directory=*/false);  // removed on SIGINT/SIGTERM/SIGHUP
  }
  if (fd < 0) return ErrnoStatus(err, "cannot create temporary file '" + tmp + "'");
  Status s = WriteSyncClose(fd, bytes);
  if (s.ok() && ::rename(tmp.c_str(), path.c_str()) != 0) {
    s = ErrnoStatus(errno, "cannot rename '" + tmp + "' into place");
  }
  if (!s.ok()) {
    ::unlink(tmp.c_str());
    return s;
  }
  SyncParentDirectory(path);
  return OkStatus();
}

}  // namespace

namespace fileio_internal {

Status WriteFileAtomicallyVia(const std::string& path, std::span<const uint8_t> bytes,
                              const std::function<std::string(int attempt)>& temporary_name) {
  return WriteUnprefixed(path, bytes, temporary_name).WithPrefix(path);
}

}  // namespace fileio_internal

Status WriteFileAtomically(const std::string& path, std::span<const uint8_t> bytes) {
  const auto [dir, name] = SplitPath(path);
  RemoveStaleTemporaries(dir, name + std::string(kTemporaryInfix));
  return fileio_internal::WriteFileAtomicallyVia(
      path, bytes, [&path](int) { return UnpredictableTemporaryName(path); });
}

Status WriteFileAtomically(const std::string& path, std::string_view text) {
  return WriteFileAtomically(
      path, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

StatusOr<std::vector<uint8_t>> ReadFileBytes(const std::string& path) {
  StatusOr<InputFile> f = InputFile::Open(path);
  if (!f.ok()) return Status(f.status().code(), path + ": " + std::string(f.status().message()));
  std::vector<uint8_t> out;
  uint8_t buf[1 << 16];
  while (true) {
    const ssize_t n = ::read(f->fd(), buf, sizeof(buf));
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus(errno, path + ": read error");
    }
    out.insert(out.end(), buf, buf + n);
  }
  return out;
}

}  // namespace dashi
