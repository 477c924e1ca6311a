// Line charts as PNG for people to look at: a white canvas, axes, a light grid at the integer x
// values (or, on a log-x axis, at 1, 2, 5 × 10^k) and at tenths of the y range, one polyline
// with square markers (optional) per series in a fixed palette; several panels may be stacked in
// one image. The only text is the tick values (a 3×5 pixel digit font): the JSON written beside
// each chart names the series (by colour), the axes and the values.
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
  int marker = 3;            // half-width of the square marker in pixels; 0: none
  int thickness = 1;         // half-width of the line in pixels
};

struct PlotAxes {
  double x_min = 0, x_max = 1, y_min = 0, y_max = 1;  // x_max > x_min, y_max > y_min
  bool log_x = false;        // x drawn as log10(x); needs x_min > 0 (points with x <= 0 skipped)
  bool tick_labels = false;  // the y grid's values (and the log-x decades) in digits
};

struct PlotPanel {
  std::vector<PlotSeries> series;
  PlotAxes axes;
};

// The palette's colour i (8 colours, then repeating), and its name for the JSON legend.
Rgb PaletteColour(size_t i);
const char* PaletteColourName(size_t i);

Status WriteLinePlot(const std::string& path, const std::vector<PlotSeries>& series,
                     const PlotAxes& axes, int width = 640, int height = 400);

// The panels stacked top to bottom, each `panel_height` pixels high.
Status WritePanelPlot(const std::string& path, const std::vector<PlotPanel>& panels,
                      int width = 720, int panel_height = 280);

}  // namespace dashi::tools

#endif  // DASHI_TOOLS_LINE_PLOT_H_
