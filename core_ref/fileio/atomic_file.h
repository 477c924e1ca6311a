// Whole-file I/O that never leaves a partial output looking valid, and the one atomic writer every
// output goes through (.npy arrays, JSON, PNG pictures): WriteFileAtomically creates a fresh
// temporary beside the target (O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC, an unpredictable name, so a
// planted file or symlink is never opened or followed), writes, fsyncs, renames it over the target
// and fsyncs the directory; on any failure the temporary is removed and the target is untouched.
// The temporary is "<path>.dashi-tmp.<host>.<pid>.<hex>": removed on SIGINT/SIGTERM/SIGHUP once
// the handlers of core_ref/fileio/temporaries.h are installed, and, when kill -9 left it behind,
// removed by the next write of the same path (core_ref/fileio/temporaries.h says when a
// temporary is stale).
//
//   DASHI_RETURN_IF_ERROR(WriteFileAtomically("out/metrics.json", json_text));
//   DASHI_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, ReadFileBytes("golden/a.npy"));
#ifndef DASHI_CORE_REF_FILEIO_ATOMIC_FILE_H_
#define DASHI_CORE_REF_FILEIO_ATOMIC_FILE_H_

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core_ref/status/status.h"

namespace dashi {

// Errors start with "path: " and carry ErrnoStatus's codes (core_ref/fileio/errno_status.h):
// NOT_FOUND for a missing directory, FAILED_PRECONDITION for no permission or a target that is a
// directory, RESOURCE_EXHAUSTED for a full disk, UNAVAILABLE otherwise.
Status WriteFileAtomically(const std::string& path, std::span<const uint8_t> bytes);
Status WriteFileAtomically(const std::string& path, std::string_view text);

// NOT_FOUND when the file does not exist; errors are prefixed with the path.
StatusOr<std::vector<uint8_t>> ReadFileBytes(const std::string& path);

namespace fileio_internal {
// How many names WriteFileAtomically tries before it gives up (each taken name is skipped).
inline constexpr int kTemporaryAttempts = 100;
// WriteFileAtomically with the temporary names chosen by `temporary_name(attempt)` for attempt
// 0, 1, ...; exposed so tests can plant a file or symlink at the exact name tried first.
Status WriteFileAtomicallyVia(const std::string& path, std::span<const uint8_t> bytes,
                              const std::function<std::string(int attempt)>& temporary_name);
}  // namespace fileio_internal

}  // namespace dashi

#endif  // DASHI_CORE_REF_FILEIO_ATOMIC_FILE_H_
