#include "tools/png_image.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include <png.h>
#include <unistd.h>

namespace dashi::tools {
namespace {

struct Rgb {
  uint8_t r, g, b;
};

// Blue (−1) → white (0) → red (+1).
Rgb Diverging(double x) {
  x = std::clamp(x, -1.0, 1.0);
  auto lerp = [](double a, double b, double t) {
    return static_cast<uint8_t>(std::lround(a + (b - a) * t));
  };
  if (x < 0) return {lerp(255, 33, -x), lerp(255, 102, -x), lerp(255, 172, -x)};
  return {lerp(255, 178, x), lerp(255, 24, x), lerp(255, 43, x)};
}

Status WriteRgb(const std::string& path, const std::vector<Rgb>& pixels, int64_t rows,
                int64_t cols, int scale) {
  if (rows < 1 || cols < 1 || scale < 1 || rows * scale > 65536 || cols * scale > 65536) {
    return InvalidArgumentError(path + ": image size out of range");
  }
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (f == nullptr) return InvalidArgumentError(path + ": cannot create file");
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (png == nullptr || info == nullptr || setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    std::fclose(f);
    std::remove(tmp.c_str());
    return InternalError(path + ": libpng failed");
  }
  const png_uint_32 w = static_cast<png_uint_32>(cols * scale);
  const png_uint_32 h = static_cast<png_uint_32>(rows * scale);
  png_init_io(png, f);
  png_set_IHDR(png, info, w, h, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  std::vector<png_byte> row(static_cast<size_t>(w) * 3);
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
  if (std::fclose(f) != 0 || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return DataLossError(path + ": cannot finish writing");
  }
  return OkStatus();
}

}  // namespace

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
