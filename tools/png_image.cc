#include "tools/png_image.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <png.h>

#include "core_ref/fileio/atomic_file.h"

namespace dashi::tools {
namespace {

// Blue (−1) → white (0) → red (+1).
Rgb Diverging(double x) {
  x = std::clamp(x, -1.0, 1.0);
  auto lerp = [](double a, double b, double t) {
    return static_cast<uint8_t>(std::lround(a + (b - a) * t));
  };
  if (x < 0) return {lerp(255, 33, -x), lerp(255, 102, -x), lerp(255, 172, -x)};
  return {lerp(255, 178, x), lerp(255, 24, x), lerp(255, 43, x)};
}

// libpng's write callback: appends to the in-memory file. An allocation failure cannot unwind
// through libpng's C frames, so it is recorded and reported after png_write_end.
struct PngSink {
  std::vector<uint8_t> bytes;
  bool out_of_memory = false;
};

void AppendToSink(png_structp png, png_bytep data, png_size_t length) {
  PngSink* sink = static_cast<PngSink*>(png_get_io_ptr(png));
  if (sink->out_of_memory) return;
  try {
    sink->bytes.insert(sink->bytes.end(), data, data + length);
  } catch (...) {
    sink->out_of_memory = true;
  }
}

}  // namespace

// The PNG is encoded in memory and written by the one atomic writer (core_ref/fileio), which
// creates its temporary exclusively and never follows a planted symlink.
Status WriteRgb(const std::string& path, const std::vector<Rgb>& pixels, int64_t rows,
                int64_t cols, int scale) {
  if (rows < 1 || cols < 1 || scale < 1 || rows * scale > 65536 || cols * scale > 65536) {
    return InvalidArgumentError(path + ": image size out of range");
  }
  const png_uint_32 w = static_cast<png_uint_32>(cols * scale);
  const png_uint_32 h = static_cast<png_uint_32>(rows * scale);
  // Everything libpng's longjmp may skip over is allocated before setjmp.
  PngSink sink;
  std::vector<png_byte> row(static_cast<size_t>(w) * 3);
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (png == nullptr || info == nullptr || setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return InternalError(path + ": libpng failed");
  }
  png_set_write_fn(png, &sink, AppendToSink, nullptr);
  png_set_IHDR(png, info, w, h, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      const Rgb p = pixels[i * cols + j];
      for (int s = 0; s < scale; ++s) {
        png_byte* px = &row[(j * scale + s) * 3];
        px[0] = p.r;
        px[1] = p.g;
        px[2] = p.b;
      }
    }
    for (int s = 0; s < scale; ++s) png_write_row(png, row.data());
  }
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  if (sink.out_of_memory) return ResourceExhaustedError(path + ": out of memory encoding the PNG");
  return WriteFileAtomically(path, sink.bytes);
}


Status WriteFieldPng(const std::string& path, std::span<const double> values, int64_t rows,
                     int64_t cols, int scale) {
  if (static_cast<int64_t>(values.size()) != rows * cols) {
    return InvalidArgumentError(path + ": field size does not match its shape");
  }
  double m = 0;
  for (double x : values) m = std::fmax(m, std::fabs(x));
  std::vector<Rgb> px(values.size());
  for (size_t k = 0; k < values.size(); ++k) px[k] = Diverging(m > 0 ? values[k] / m : 0.0);
  return WriteRgb(path, px, rows, cols, scale);
}

Status WriteCarrierPng(const std::string& path, std::span<const int8_t> values, int64_t rows,
                       int64_t cols, int scale) {
  if (static_cast<int64_t>(values.size()) != rows * cols) {
    return InvalidArgumentError(path + ": carrier size does not match its shape");
  }
  std::vector<Rgb> px(values.size());
  for (size_t k = 0; k < values.size(); ++k) px[k] = Diverging(static_cast<double>(values[k]));
  return WriteRgb(path, px, rows, cols, scale);
}

}  // namespace dashi::tools
