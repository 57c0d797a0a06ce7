#pragma once
// Chart exports: PNG (2× scale), PDF, SVG (legend and axis titles included), the clipboard,
// and every chart into one multi-page PDF. All files are written atomically (QSaveFile;
// PDF/SVG are rendered into memory first). Errors come back as messages naming the file.
#include <QList>
#include <QSize>
#include <QByteArray>
#include <QString>

class QCustomPlot;

namespace widgets {

class ChartBase;

struct ExportResult {
  QString error;        // empty on success
  bool ok() const { return error.isEmpty(); }
};

enum class ChartFormat { Png, Pdf, Svg };

// size: pixels at 1× (default ChartBase::exportSize()). PNG is rendered at `scale`.
ExportResult exportChartPng(ChartBase& chart, const QString& path, double scale = 2.0,
                            QSize size = {});
ExportResult exportChartPdf(ChartBase& chart, const QString& path, QSize size = {});
ExportResult exportChartSvg(ChartBase& chart, const QString& path, QSize size = {});
// Format from the suffix (.png/.pdf/.svg); an unknown suffix is an error naming it.
ExportResult exportChart(ChartBase& chart, const QString& path);
// Every chart, one per page, in order.
ExportResult exportChartsPdf(const QList<ChartBase*>& charts, const QString& path,
                             QSize size = {});
// Puts the chart on the clipboard as an image (2×) and as SVG.
void copyChartToClipboard(ChartBase& chart);

// File name for a chart in a folder: "<dir>/<prefix><chartId>.<ext>".
QString chartFileName(const QString& dir, const ChartBase& chart, ChartFormat format,
                      const QString& prefix = {});

// Any plot as SVG at `size` (what exportChartSvg writes for a ChartBase).
QByteArray renderPlotSvg(QCustomPlot& plot, QSize size, const QString& title, const QString& description);

// Writes bytes atomically with QSaveFile; error names the file.
ExportResult writeFileAtomically(const QString& path, const QByteArray& bytes);

}  // namespace widgets
