#include "tools/line_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace dashi::tools {
namespace {

constexpr Rgb kPalette[8] = {{31, 119, 180}, {214, 39, 40},  {44, 160, 44},  {255, 127, 14},
                             {148, 103, 189}, {140, 86, 75}, {227, 119, 194}, {23, 190, 207}};
constexpr const char* kPaletteNames[8] = {"blue",   "red",   "green", "orange",
                                          "purple", "brown", "pink",  "cyan"};

// Rows of 3 bits, top to bottom.
const uint16_t* Glyph(char ch) {
  static constexpr uint16_t kDigits[10][5] = {
      {7, 5, 5, 5, 7}, {2, 6, 2, 2, 7}, {7, 1, 7, 4, 7}, {7, 1, 7, 1, 7}, {5, 5, 7, 1, 1},
      {7, 4, 7, 1, 7}, {7, 4, 7, 5, 7}, {7, 1, 1, 1, 1}, {7, 5, 7, 5, 7}, {7, 5, 7, 1, 7}};
  static constexpr uint16_t kDot[5] = {0, 0, 0, 0, 2}, kMinus[5] = {0, 0, 7, 0, 0},
                            kE[5] = {7, 4, 6, 4, 7}, kPlus[5] = {0, 2, 7, 2, 0};
  if (ch >= '0' && ch <= '9') return kDigits[ch - '0'];
  if (ch == '.') return kDot;
  if (ch == '-') return kMinus;
  if (ch == 'e') return kE;
  if (ch == '+') return kPlus;
  return nullptr;
}

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
  // Digits, '.', '-', 'e' and '+' in a 3×5 pixel font, `scale` pixels per font pixel, left-aligned
  // at (x, y) = top-left corner.
  void Text(int x, int y, const std::string& text, Rgb c, int scale) {
    for (char ch : text) {
      const uint16_t* glyph = Glyph(ch);
      for (int row = 0; glyph != nullptr && row < 5; ++row) {
        for (int col = 0; col < 3; ++col) {
          if (!((glyph[row] >> (2 - col)) & 1)) continue;
          for (int dy = 0; dy < scale; ++dy) {
            for (int dx = 0; dx < scale; ++dx) Set(x + col * scale + dx, y + row * scale + dy, c);
          }
        }
      }
      x += 4 * scale;
    }
  }
  static int TextWidth(const std::string& text, int scale) {
    return static_cast<int>(text.size()) * 4 * scale - scale;
  }
  const std::vector<Rgb>& pixels() const { return px_; }

 private:
  int w_, h_;
  std::vector<Rgb> px_;
};

}  // namespace

Rgb PaletteColour(size_t i) { return kPalette[i % 8]; }
const char* PaletteColourName(size_t i) { return kPaletteNames[i % 8]; }

namespace {

std::string TickText(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.3g", v);
  return buf;
}

// Draws one panel into the rectangle [x0, x0 + width) × [y0, y0 + height) of the canvas.
Status DrawPanel(Canvas& c, const std::string& path, const PlotPanel& panel, int x0, int y0,
                 int width, int height) {
  const PlotAxes& a = panel.axes;
  if (!(a.x_max > a.x_min) || !(a.y_max > a.y_min) || width < 64 || height < 64 ||
      (a.log_x && !(a.x_min > 0))) {
    return InvalidArgumentError(path + ": empty plot range or image too small");
  }
  const int left = x0 + (a.tick_labels ? 56 : 40), right = 16, top = y0 + 16, bottom = 32;
  const int pw = x0 + width - left - right, ph = y0 + height - top - bottom;
  const auto tx = [&](double x) { return a.log_x ? std::log10(x) : x; };
  const double lo = tx(a.x_min), hi = tx(a.x_max);
  auto X = [&](double x) {
    return left + static_cast<int>(std::lround((tx(x) - lo) / (hi - lo) * pw));
  };
  auto Y = [&](double y) {
    return top + ph - static_cast<int>(std::lround((y - a.y_min) / (a.y_max - a.y_min) * ph));
  };
  const Rgb grid{225, 225, 225}, axis{60, 60, 60};
  if (a.log_x) {
    for (double decade = std::pow(10.0, std::floor(lo)); decade <= a.x_max; decade *= 10.0) {
      for (double m : {1.0, 2.0, 5.0}) {
        const double x = m * decade;
        if (x < a.x_min || x > a.x_max) continue;
        c.Line(X(x), top, X(x), top + ph, m == 1.0 ? Rgb{190, 190, 190} : grid, 0);
        if (a.tick_labels && m == 1.0) {
          const std::string t = TickText(x);
          c.Text(X(x) - Canvas::TextWidth(t, 2) / 2, top + ph + 6, t, axis, 2);
        }
      }
    }
  } else if (a.x_max - a.x_min <= 64) {
    for (double x = std::ceil(a.x_min); x <= a.x_max; x += 1.0) {
      c.Line(X(x), top, X(x), top + ph, grid, 0);
    }
  } else if (a.tick_labels) {
    for (int k = 0; k <= 4; ++k) {
      const double x = a.x_min + (a.x_max - a.x_min) * k / 4.0;
      c.Line(X(x), top, X(x), top + ph, grid, 0);
      const std::string t = TickText(x);
      c.Text(X(x) - Canvas::TextWidth(t, 2) / 2, top + ph + 6, t, axis, 2);
    }
  }
  for (int k = 0; k <= 10; ++k) {
    const double y = a.y_min + (a.y_max - a.y_min) * k / 10.0;
    c.Line(left, Y(y), left + pw, Y(y), grid, 0);
    if (a.tick_labels && k % 2 == 0) {
      const std::string t = TickText(y);
      c.Text(left - 6 - Canvas::TextWidth(t, 2), Y(y) - 5, t, axis, 2);
    }
  }
  c.Line(left, top + ph, left + pw, top + ph, axis, 0);
  c.Line(left, top, left, top + ph, axis, 0);
  for (const PlotSeries& s : panel.series) {
    if (s.x.size() != s.y.size()) return InvalidArgumentError(path + ": a series has x, y of different lengths");
    bool have_prev = false;
    int px = 0, py = 0;
    for (size_t i = 0; i < s.x.size(); ++i) {
      if (!std::isfinite(s.x[i]) || !std::isfinite(s.y[i]) || (a.log_x && !(s.x[i] > 0))) {
        have_prev = false;
        continue;
      }
      // Clamp to the panel so a curve leaving the range runs along its edge.
      const double yc = std::min(std::max(s.y[i], a.y_min), a.y_max);
      const int x = X(s.x[i]), y = Y(yc);
      if (have_prev) c.Line(px, py, x, y, s.colour, s.thickness);
      if (s.marker > 0) c.Dot(x, y, s.colour, s.marker);
      px = x;
      py = y;
      have_prev = true;
    }
  }
  return OkStatus();
}

}  // namespace

Status WriteLinePlot(const std::string& path, const std::vector<PlotSeries>& series,
                     const PlotAxes& a, int width, int height) {
  if (width < 64 || height < 64) {
    return InvalidArgumentError(path + ": empty plot range or image too small");
  }
  Canvas c(width, height);
  DASHI_RETURN_IF_ERROR(DrawPanel(c, path, PlotPanel{series, a}, 0, 0, width, height));
  return WriteRgb(path, c.pixels(), height, width);
}

Status WritePanelPlot(const std::string& path, const std::vector<PlotPanel>& panels, int width,
                      int panel_height) {
  if (panels.empty() || width < 64 || panel_height < 64) {
    return InvalidArgumentError(path + ": no panels or image too small");
  }
  const int height = panel_height * static_cast<int>(panels.size());
  Canvas c(width, height);
  for (size_t i = 0; i < panels.size(); ++i) {
    DASHI_RETURN_IF_ERROR(
        DrawPanel(c, path, panels[i], 0, panel_height * static_cast<int>(i), width, panel_height));
  }
  return WriteRgb(path, c.pixels(), height, width);
}

}  // namespace dashi::tools
