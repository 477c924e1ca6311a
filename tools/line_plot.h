// Line charts as PNG for people to look at: a white canvas, axes, a light grid at the integer x
// values and at tenths of the y range, one polyline with square markers per series in a fixed
// palette. No text: the JSON written beside each chart names the series (by colour), the axes
// and the values.
#ifndef DASHI_TOOLS_LINE_PLOT_H_
#define DASHI_TOOLS_LINE_PLOT_H_

#include <string>
#include <vector>

#include "core_ref/status/status.h"
#include "tools/png_image.h"

namespace dashi::tools {

struct PlotSeries {
  std::vector<double> x, y;  // equal lengths; non-finite points are skipped
  Rgb colour{0, 0, 0};
};

struct PlotAxes {
  double x_min = 0, x_max = 1, y_min = 0, y_max = 1;  // x_max > x_min, y_max > y_min
};

// The palette's colour i (8 colours, then repeating), and its name for the JSON legend.
Rgb PaletteColour(size_t i);
const char* PaletteColourName(size_t i);

Status WriteLinePlot(const std::string& path, const std::vector<PlotSeries>& series,
                     const PlotAxes& axes, int width = 640, int height = 400);

}  // namespace dashi::tools

#endif  // DASHI_TOOLS_LINE_PLOT_H_
