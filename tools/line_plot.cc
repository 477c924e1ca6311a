#include "tools/line_plot.h"

#include <cmath>
#include <cstdlib>

namespace dashi::tools {
namespace {

constexpr Rgb kPalette[8] = {{31, 119, 180}, {214, 39, 40},  {44, 160, 44},  {255, 127, 14},
                             {148, 103, 189}, {140, 86, 75}, {227, 119, 194}, {23, 190, 207}};
constexpr const char* kPaletteNames[8] = {"blue",   "red",   "green", "orange",
                                          "purple", "brown", "pink",  "cyan"};

class Canvas {
 public:
  Canvas(int w, int h) : w_(w), h_(h), px_(static_cast<size_t>(w) * h, Rgb{255, 255, 255}) {}
  void Set(int x, int y, Rgb c) {
    if (x >= 0 && x < w_ && y >= 0 && y < h_) px_[static_cast<size_t>(y) * w_ + x] = c;
  }
  void Dot(int x, int y, Rgb c, int r) {
    for (int dy = -r; dy <= r; ++dy) {
      for (int dx = -r; dx <= r; ++dx) Set(x + dx, y + dy, c);
    }
  }
  // Bresenham, drawn `r` pixels thick.
  void Line(int x0, int y0, int x1, int y1, Rgb c, int r) {
    const int dx = std::abs(x1 - x0), dy = -std::abs(y1 - y0);
    const int sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1;
    int err = dx + dy;
    while (true) {
      Dot(x0, y0, c, r);
      if (x0 == x1 && y0 == y1) break;
      const int e2 = 2 * err;
      if (e2 >= dy) { err += dy; x0 += sx; }
      if (e2 <= dx) { err += dx; y0 += sy; }
    }
  }
  const std::vector<Rgb>& pixels() const { return px_; }

 private:
  int w_, h_;
  std::vector<Rgb> px_;
};

}  // namespace

Rgb PaletteColour(size_t i) { return kPalette[i % 8]; }
const char* PaletteColourName(size_t i) { return kPaletteNames[i % 8]; }

Status WriteLinePlot(const std::string& path, const std::vector<PlotSeries>& series,
                     const PlotAxes& a, int width, int height) {
  if (!(a.x_max > a.x_min) || !(a.y_max > a.y_min) || width < 64 || height < 64) {
    return InvalidArgumentError(path + ": empty plot range or image too small");
  }
  const int left = 40, right = 16, top = 16, bottom = 32;
  const int pw = width - left - right, ph = height - top - bottom;
  auto X = [&](double x) {
    return left + static_cast<int>(std::lround((x - a.x_min) / (a.x_max - a.x_min) * pw));
  };
  auto Y = [&](double y) {
    return top + ph - static_cast<int>(std::lround((y - a.y_min) / (a.y_max - a.y_min) * ph));
  };
  Canvas c(width, height);
  const Rgb grid{225, 225, 225}, axis{60, 60, 60};
  if (a.x_max - a.x_min <= 64) {
    for (double x = std::ceil(a.x_min); x <= a.x_max; x += 1.0) {
      c.Line(X(x), top, X(x), top + ph, grid, 0);
    }
  }
  for (int k = 0; k <= 10; ++k) {
    const double y = a.y_min + (a.y_max - a.y_min) * k / 10.0;
    c.Line(left, Y(y), left + pw, Y(y), grid, 0);
  }
  c.Line(left, top + ph, left + pw, top + ph, axis, 0);
  c.Line(left, top, left, top + ph, axis, 0);
  for (const PlotSeries& s : series) {
    if (s.x.size() != s.y.size()) return InvalidArgumentError(path + ": a series has x, y of different lengths");
    bool have_prev = false;
    int px = 0, py = 0;
    for (size_t i = 0; i < s.x.size(); ++i) {
      if (!std::isfinite(s.x[i]) || !std::isfinite(s.y[i])) {
        have_prev = false;
        continue;
      }
      const int x = X(s.x[i]), y = Y(s.y[i]);
      if (have_prev) c.Line(px, py, x, y, s.colour, 1);
      c.Dot(x, y, s.colour, 3);
      px = x;
      py = y;
      have_prev = true;
    }
  }
  return WriteRgb(path, c.pixels(), height, width);
}

}  // namespace dashi::tools
