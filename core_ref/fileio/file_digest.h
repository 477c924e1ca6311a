// BLAKE2b-128 of a file read in fixed-size chunks, so hashing a file of any size holds 64 KiB:
// the whole file's digest, its first bytes (for a caller that checks a known header) and the
// digest of everything after a given offset (an .npy file's data after its header).
//
//   DASHI_ASSIGN_OR_RETURN(FileDigest d, DigestFile("items/a/omega.npy", /*tail_offset=*/128,
//   128)); d.size; d.file_blake2b128; d.tail_blake2b128; d.head;  // hex digests, first 128 bytes
#ifndef DASHI_CORE_REF_FILEIO_FILE_DIGEST_H_
#define DASHI_CORE_REF_FILEIO_FILE_DIGEST_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core_ref/status/status.h"

namespace dashi {

struct FileDigest {
  int64_t size = 0;
  std::string file_blake2b128;  // lowercase hex of the whole file's BLAKE2b-128
  std::string tail_blake2b128;  // of bytes [tail_offset, size); "" when tail_offset > size
  std::vector<uint8_t> head;    // the first min(head_bytes, size) bytes
};

// Errors start with "path: " (InputFile's codes: NOT_FOUND, FAILED_PRECONDITION for a directory
// or a FIFO, errno codes for read errors). tail_offset and head_bytes must be >= 0.
StatusOr<FileDigest> DigestFile(const std::string& path, int64_t tail_offset = 0,
                                int64_t head_bytes = 0);

}  // namespace dashi

#endif  // DASHI_CORE_REF_FILEIO_FILE_DIGEST_H_
