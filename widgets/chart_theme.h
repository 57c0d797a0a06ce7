#pragma once
// Light and dark looks for the charts, and the presentation scale (teaching in front of a
// class: larger fonts and thicker lines). Applied to every axis rect, legend and text.
#include <QColor>
#include <QFont>

class QCustomPlot;

namespace widgets {

enum class ChartTheme { Light, Dark };

struct ChartColors {
  QColor background;
  QColor text;
  QColor axis;
  QColor grid;
  QColor subGrid;
  QColor legendBackground;
  QColor legendBorder;
  QColor reference;     // published reference markers: black on light, near-white on dark
  QColor warning;       // "out of memory", "no price"
  QColor targetLine;    // the target-accuracy line
};

ChartColors chartColors(ChartTheme theme);

// Applies colours and fonts to the plot's axes, grids, legends and text elements.
// `scale` multiplies font sizes (1 = desktop, ~1.5 = presentation).
void applyChartTheme(QCustomPlot* plot, ChartTheme theme, double scale);

// The base font for chart text at a scale (point size 9 × scale).
QFont chartFont(double scale, bool bold = false);

}  // namespace widgets
