#include "core_ref/fileio/atomic_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include <unistd.h>

namespace dashi {
namespace {

std::string ErrnoText(int err) { return std::strerror(err); }

}  // namespace

Status WriteFileAtomically(const std::string& path, std::span<const uint8_t> bytes) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (f == nullptr) {
    const int err = errno;
    return (err == ENOENT ? NotFoundError("cannot create file: " + ErrnoText(err))
                          : InvalidArgumentError("cannot create file: " + ErrnoText(err)))
        .WithPrefix(path);
  }
  const bool written = bytes.empty() || std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  const bool flushed = std::fflush(f) == 0 && ::fsync(::fileno(f)) == 0;
  const int err = errno;
  const bool closed = std::fclose(f) == 0;
  if (!written || !flushed || !closed) {
    std::remove(tmp.c_str());
    return DataLossError("write failed: " + ErrnoText(err)).WithPrefix(path);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int rerr = errno;
    std::remove(tmp.c_str());
    return InvalidArgumentError("cannot rename temporary file into place: " + ErrnoText(rerr))
        .WithPrefix(path);
  }
  return OkStatus();
}

Status WriteFileAtomically(const std::string& path, std::string_view text) {
  return WriteFileAtomically(
      path, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

StatusOr<std::vector<uint8_t>> ReadFileBytes(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    const int err = errno;
    if (err == ENOENT) return NotFoundError(path + ": no such file");
    return InvalidArgumentError(path + ": cannot open: " + ErrnoText(err));
  }
  std::vector<uint8_t> out;
  uint8_t buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) out.insert(out.end(), buf, buf + n);
  const bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) return DataLossError(path + ": read error");
  return out;
}

}  // namespace dashi
