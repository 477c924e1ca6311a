#include "core_ref/fileio/file_digest.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "core_ref/blake2b/blake2b.h"
#include "core_ref/fileio/errno_status.h"
#include "core_ref/fileio/input_file.h"

namespace dashi {

StatusOr<FileDigest> DigestFile(const std::string& path, int64_t tail_offset, int64_t head_bytes) {
  if (tail_offset < 0 || head_bytes < 0) {
    return InvalidArgumentError(path + ": negative digest offset or head length");
  }
  StatusOr<InputFile> f = InputFile::Open(path);
  if (!f.ok()) return Status(f.status().code(), path + ": " + std::string(f.status().message()));
  StatusOr<Blake2b> whole = Blake2b::Create(16);
  StatusOr<Blake2b> tail = Blake2b::Create(16);
  if (!whole.ok()) return whole.status();
  if (!tail.ok()) return tail.status();
  FileDigest d;
  std::vector<uint8_t> buf(1 << 16);
  while (true) {
    const ssize_t n = ::read(f->fd(), buf.data(), buf.size());
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus(errno, path + ": read error");
    }
    const int64_t start = d.size;
    const int64_t end = start + n;
    whole->Update(buf.data(), static_cast<size_t>(n));
    if (end > tail_offset) {
      const int64_t from = std::max(start, tail_offset) - start;
      tail->Update(buf.data() + from, static_cast<size_t>(n - from));
    }
    if (start < head_bytes) {
      const int64_t take = std::min(end, head_bytes) - start;
      d.head.insert(d.head.end(), buf.data(), buf.data() + take);
    }
    d.size = end;
  }
  d.file_blake2b128 = ToHex(whole->Finalize());
  if (tail_offset <= d.size) d.tail_blake2b128 = ToHex(tail->Finalize());
  return d;
}

}  // namespace dashi
