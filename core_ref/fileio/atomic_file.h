// Whole-file I/O that never leaves a partial output looking valid: WriteFileAtomically writes to
// a temporary name in the same directory, flushes it, and renames it over the target; on any
// failure the temporary is removed and the target is untouched.
//
//   DASHI_RETURN_IF_ERROR(WriteFileAtomically("out/metrics.json", json_text));
//   DASHI_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, ReadFileBytes("golden/a.npy"));
#ifndef DASHI_CORE_REF_FILEIO_ATOMIC_FILE_H_
#define DASHI_CORE_REF_FILEIO_ATOMIC_FILE_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core_ref/status/status.h"

namespace dashi {

Status WriteFileAtomically(const std::string& path, std::span<const uint8_t> bytes);
Status WriteFileAtomically(const std::string& path, std::string_view text);

// NOT_FOUND when the file does not exist; errors are prefixed with the path.
StatusOr<std::vector<uint8_t>> ReadFileBytes(const std::string& path);

}  // namespace dashi

#endif  // DASHI_CORE_REF_FILEIO_ATOMIC_FILE_H_
