// PNG pictures of fields and carriers for people to look at: a real field with a diverging
// blue–white–red colour map symmetric about 0 (scaled by max|·|), a carrier as
// blue (−1) / white (0) / red (+1). Encoded in memory and written by core_ref/fileio's atomic
// writer.
#ifndef DASHI_TOOLS_PNG_IMAGE_H_
#define DASHI_TOOLS_PNG_IMAGE_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core_ref/status/status.h"

namespace dashi::tools {

struct Rgb {
  uint8_t r, g, b;
};

// rows×cols pixels, row 0 at the top; each pixel becomes scale×scale pixels.
Status WriteRgb(const std::string& path, const std::vector<Rgb>& pixels, int64_t rows,
                int64_t cols, int scale = 1);

// rows×cols values, row 0 at the top; each cell becomes scale×scale pixels.
Status WriteFieldPng(const std::string& path, std::span<const double> values, int64_t rows,
                     int64_t cols, int scale = 1);
Status WriteCarrierPng(const std::string& path, std::span<const int8_t> values, int64_t rows,
                       int64_t cols, int scale = 1);

}  // namespace dashi::tools

#endif  // DASHI_TOOLS_PNG_IMAGE_H_
