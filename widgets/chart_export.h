#pragma once
// Chart exports: PNG, PDF, SVG (legend and axis titles included), the clipboard, and every
// chart into one multi-page PDF, at the size, resolution and font scale of ExportOptions
// (default: 1000×620 laid out, PNG at 2×). All files are rendered into memory first and
// written atomically by core::util::writeFileAtomic. Errors come back as messages naming the file.
#include <QList>
#include <QSize>
#include <QByteArray>
#include <QString>

#include <utility>

#include "widgets/export_options.h"

#include <concepts>

#include "widgets/chart_frame.h"

class QCustomPlot;

namespace widgets {

struct ExportResult {
  ExportResult() = default;
  ExportResult(QString why) : error(std::move(why)) {}   // NOLINT: a failure from its message
  QString error;          // empty on success
  ExportOptions figure;   // the size written: the options', or taller (fittedOptions)
  bool ok() const { return error.isEmpty(); }
};

enum class ChartFormat { Png, Pdf, Svg };

// The chart is laid out at options.layoutSize() with its fonts at options.fontScale; PNG is
// options.imageSize() pixels and records options.dpi; a PDF page and the SVG are the physical
// size. The legend goes under the plot, in columns. Options that do not validate are an error
// naming what is wrong.
//
// fittedOptions: the figure these options give this chart. Where the legend and its caption
// would take more than 38% of the height even at 80% of the font, or the data area less than
// 40% (tick labels turned upright on a narrow figure), the same width and a taller figure, at
// most three times as tall and within ExportOptions' limits; else the options themselves. A
// paper's column fixes the width, not the height: a plot squeezed into a strip is no figure.
ExportOptions fittedOptions(ChartFrame& chart, const ExportOptions& options);
ExportResult exportChartPng(ChartFrame& chart, const QString& path, const ExportOptions& options = {});
ExportResult exportChartPdf(ChartFrame& chart, const QString& path, const ExportOptions& options = {});
ExportResult exportChartSvg(ChartFrame& chart, const QString& path, const ExportOptions& options = {});
// Format from the suffix (.png/.pdf/.svg); an unknown suffix is an error naming it.
ExportResult exportChart(ChartFrame& chart, const QString& path, const ExportOptions& options = {});
// Every chart, one per page, in order; of several, those with nothing drawn are left out.
ExportResult exportChartsPdf(const QList<ChartFrame*>& charts, const QString& path,
                             const ExportOptions& options = {});
// Any list of charts (the deck's run charts, the planner's) is a list of frames.
template <std::derived_from<ChartFrame> Chart>
QList<ChartFrame*> chartFrames(const QList<Chart*>& charts) {
  return QList<ChartFrame*>(charts.cbegin(), charts.cend());
}
template <std::derived_from<ChartFrame> Chart>
ExportResult exportChartsPdf(const QList<Chart*>& charts, const QString& path, const ExportOptions& options = {}) {
  return exportChartsPdf(chartFrames(charts), path, options);
}
// Puts the chart on the clipboard as an image and as SVG.
void copyChartToClipboard(ChartFrame& chart, const ExportOptions& options = {});

// File name for a chart in a folder: "<dir>/<prefix><chartId>.<ext>".
QString chartFileName(const QString& dir, const ChartFrame& chart, ChartFormat format,
                      const QString& prefix = {});

// Any plot as SVG at `size` (what exportChartSvg writes for a ChartFrame).
QByteArray renderPlotSvg(QCustomPlot& plot, QSize size, const QString& title, const QString& description);
// Any plot as PNG (`size` laid out, times `scale` pixels) or as a one-page PDF of the
// physical size at 96 dpi; empty when it cannot be rendered. Write them with
// writeFileAtomically (QCustomPlot's own savePng/savePdf write unchecked, in place).
QByteArray renderPlotPng(QCustomPlot& plot, QSize size, double scale);
QByteArray renderPlotPdf(QCustomPlot& plot, QSize size, const QString& title);

// Writes bytes with core::util::writeFileAtomic (every byte and the size checked, fsync,
// rename): on failure the old file is left as it was, no temporary file is left behind, and
// the error names the file and why (a full disk or file-size limit is said to be one).
ExportResult writeFileAtomically(const QString& path, const QByteArray& bytes);

}  // namespace widgets
