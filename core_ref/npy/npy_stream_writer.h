// Streams an fp64 array to a .npy file as it is produced (the LES trajectory of `dashi simulate`),
// so memory does not grow with the number of frames: the header first, then the values in C order
// as they arrive. The bytes are exactly what WriteNpy writes for the same array.
//
// The file must not exist (created with O_EXCL|O_NOFOLLOW): write it inside an output set's
// staging directory (core_ref/fileio/output_set.h), which is what makes it appear whole. A writer
// destroyed before Finish() removes its file.
//
//   DASHI_ASSIGN_OR_RETURN(NpyF64StreamWriter w, NpyF64StreamWriter::Create(p, {frames, n, n}));
//   for (...) DASHI_RETURN_IF_ERROR(w.Append(frame));
//   DASHI_RETURN_IF_ERROR(w.Finish());
#ifndef DASHI_CORE_REF_NPY_NPY_STREAM_WRITER_H_
#define DASHI_CORE_REF_NPY_NPY_STREAM_WRITER_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core_ref/status/status.h"

namespace dashi {

class NpyF64StreamWriter {
 public:
  static StatusOr<NpyF64StreamWriter> Create(const std::string& path, std::vector<int64_t> shape);
  NpyF64StreamWriter(NpyF64StreamWriter&& other) noexcept;
  NpyF64StreamWriter& operator=(NpyF64StreamWriter&&) = delete;
  NpyF64StreamWriter(const NpyF64StreamWriter&) = delete;
  ~NpyF64StreamWriter();

  // More values in C order; OUT_OF_RANGE when they exceed the shape's element count.
  Status Append(std::span<const double> values);
  // FAILED_PRECONDITION unless exactly the shape's element count arrived; then fsync and close.
  Status Finish();

 private:
  NpyF64StreamWriter(std::string path, int fd, int64_t expected)
      : path_(std::move(path)), fd_(fd), expected_(expected) {}
  std::string path_;
  int fd_ = -1;
  int64_t expected_ = 0;
  int64_t written_ = 0;
  std::vector<uint8_t> buffer_;
};

}  // namespace dashi

#endif  // DASHI_CORE_REF_NPY_NPY_STREAM_WRITER_H_
