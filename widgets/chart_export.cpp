#include "widgets/chart_export.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <string>
#include <string_view>

#include <qcustomplot.h>

#include <QApplication>
#include <QBuffer>
#include <QClipboard>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QMimeData>
#include <QPdfWriter>
#include <QSvgGenerator>

#include "core/util/files.h"
#include "core/util/printable.h"
#include "widgets/chart_frame.h"

namespace widgets {

namespace {

// Lays the chart out for the export (size, font scale) for the lifetime of the guard, then
// puts back the screen's layout and scale.
class ExportLayout {
public:
  ExportLayout(ChartFrame& chart, const ExportOptions& options)
      : m_chart(chart), m_screenScale(chart.presentationScale()) {
    m_chart.setPresentationScale(options.fontScale);
    m_chart.layoutForSize(options.layoutSize(), /*keepLegend=*/true);
  }
  ~ExportLayout() {
    m_chart.setPresentationScale(m_screenScale);
    m_chart.layoutForSize(m_chart.plot()->size());
    m_chart.plot()->replot(QCustomPlot::rpQueuedReplot);   // the screen's geometry back
  }
  ExportLayout(const ExportLayout&) = delete;
  ExportLayout& operator=(const ExportLayout&) = delete;

private:
  ChartFrame& m_chart;
  double m_screenScale;
};

// Of the figure's height (see fittedOptions): the legend at most, the data area at least.
constexpr double kLegendShare = 0.38;
constexpr double kPlotShare = 0.4;


QString badOptions(const ExportOptions& options, const QString& path) {
  const QString why = options.validate();
  if (why.isEmpty()) return {};
  return QObject::tr("Cannot export %1: the export size is not usable: %2.").arg(QDir::toNativeSeparators(path), why);
}

// The PDF page of one chart: laid out at 96 dpi on a page of the physical size, vectors kept.
void drawChartPage(ChartFrame& chart, QCPPainter& painter, const ExportOptions& options) {
  const QSize size = options.layoutSize();
  painter.setMode(QCPPainter::pmVectorized);
  painter.setMode(QCPPainter::pmNoCaching);
  painter.setMode(QCPPainter::pmNonCosmetic);
  painter.setWindow(0, 0, size.width(), size.height());
  const ExportLayout layout(chart, options);
  chart.plot()->toPainter(&painter, size.width(), size.height());
}

// `options` as fittedOptions gave them.
QImage renderImage(ChartFrame& chart, const ExportOptions& options) {
  const QSize layoutSize = options.layoutSize(), imageSize = options.imageSize();
  const ExportLayout layout(chart, options);
  // Vectors scaled onto exactly the image's pixels (toPixmap's single scale would round the
  // height: 8.5 × 6.5 cm at 600 dpi must be 2008 × 1535, not 2008 × 1539).
  QImage image(imageSize, QImage::Format_ARGB32_Premultiplied);
  image.fill(chartColors(chart.theme()).background);
  QCPPainter painter;
  if (!painter.begin(&image)) return {};
  painter.setMode(QCPPainter::pmNonCosmetic);
  painter.scale(static_cast<double>(imageSize.width()) / layoutSize.width(),
                static_cast<double>(imageSize.height()) / layoutSize.height());
  chart.plot()->toPainter(&painter, layoutSize.width(), layoutSize.height());
  painter.end();
  const int dotsPerMeter = static_cast<int>(std::lround(options.dpi / 0.0254));
  image.setDotsPerMeterX(dotsPerMeter);
  image.setDotsPerMeterY(dotsPerMeter);
  return image;
}

// The PDF's XMP metadata: title and description (Dublin Core), where PDF readers show them.
QByteArray xmpMetadata(const QString& title, const QString& description) {
  auto esc = [](const QString& s) { return s.toHtmlEscaped().toUtf8(); };
  return "<?xpacket begin='' id='W5M0MpCehiHzreSzNTczkc9d'?>\n"
         "<x:xmpmeta xmlns:x='adobe:ns:meta/'><rdf:RDF xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'>"
         "<rdf:Description rdf:about='' xmlns:dc='http://purl.org/dc/elements/1.1/'>"
         "<dc:title><rdf:Alt><rdf:li xml:lang='x-default'>" + esc(title) + "</rdf:li></rdf:Alt></dc:title>"
         "<dc:description><rdf:Alt><rdf:li xml:lang='x-default'>" + esc(description) +
         "</rdf:li></rdf:Alt></dc:description><dc:creator><rdf:Seq><rdf:li>AccelLab</rdf:li></rdf:Seq></dc:creator>"
         "</rdf:Description></rdf:RDF></x:xmpmeta>\n<?xpacket end='w'?>";
}

void setUpPdf(QPdfWriter& writer, const QString& title, const QString& description) {
  writer.setTitle(title);
  writer.setCreator(QStringLiteral("AccelLab"));
  writer.setDocumentXmpMetadata(xmpMetadata(title, description));
  // 96 dpi like the layout, so a 9 pt font is 9 pt on the page.
  writer.setResolution(96);
}

// The next page's size (before QPainter::begin or newPage): each chart's page its own.
void setPdfPage(QPdfWriter& writer, const ExportOptions& options) {
  const QSizeF points = options.pagePoints();
  writer.setPageLayout(QPageLayout(QPageSize(points, QPageSize::Point, QString(),
                                             QPageSize::ExactMatch),
                                   QPageLayout::Portrait, QMarginsF(0, 0, 0, 0)));
}

QByteArray renderSvg(ChartFrame& chart, const ExportOptions& options) {
  const ExportLayout layout(chart, options);
  return renderPlotSvg(*chart.plot(), options.layoutSize(), chart.title(), chart.exportDescription());
}

}  // namespace

ExportOptions fittedOptions(ChartFrame& chart, const ExportOptions& options) {
  const QSize size = options.layoutSize();
  int footprint = 0, plotHeight = 0;
  {
    const ExportLayout layout(chart, options);
    footprint = chart.legendFootprint();
    plotHeight = chart.plotHeightAt(size);
  }
  // What is not data area (title, tick labels, legend) stays as tall in a taller figure.
  const double height = size.height();
  const double needed = std::min(3 * height, std::max({height, footprint / kLegendShare, (height - plotHeight) / (1 - kPlotShare)}));
  if (needed <= height) return options;
  ExportOptions taller = options;
  taller.height = options.height * std::ceil(needed) / height;
  return taller.validate().isEmpty() ? taller : options;   // never taller than a PNG may be
}

QByteArray renderPlotSvg(QCustomPlot& plot, QSize size, const QString& title, const QString& description) {
  QBuffer buffer;
  buffer.open(QIODevice::WriteOnly);
  QSvgGenerator gen;
  gen.setOutputDevice(&buffer);
  gen.setSize(size);
  gen.setViewBox(QRect(QPoint(0, 0), size));
  gen.setResolution(96);
  gen.setTitle(title);
  gen.setDescription(description);
  QCPPainter painter;
  if (!painter.begin(&gen)) return {};
  plot.toPainter(&painter, size.width(), size.height());
  painter.end();
  return buffer.data();
}

QByteArray renderPlotPng(QCustomPlot& plot, QSize size, double scale) {
  const QPixmap pixmap = plot.toPixmap(size.width(), size.height(), scale);
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  if (pixmap.isNull() || !pixmap.save(&buffer, "PNG")) return {};
  return bytes;
}

QByteArray renderPlotPdf(QCustomPlot& plot, QSize size, const QString& title) {
  QByteArray bytes;
  {
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    QPdfWriter writer(&buffer);
    writer.setTitle(title);
    writer.setCreator(QStringLiteral("AccelLab"));
    writer.setResolution(96);
    const QSizeF points(size.width() * 72.0 / 96.0, size.height() * 72.0 / 96.0);
    writer.setPageLayout(QPageLayout(QPageSize(points, QPageSize::Point, QString(), QPageSize::ExactMatch),
                                     QPageLayout::Portrait, QMarginsF(0, 0, 0, 0)));
    QCPPainter painter;
    if (!painter.begin(&writer)) return {};
    painter.setMode(QCPPainter::pmVectorized);
    painter.setMode(QCPPainter::pmNoCaching);
    painter.setMode(QCPPainter::pmNonCosmetic);
    painter.setWindow(0, 0, size.width(), size.height());
    plot.toPainter(&painter, size.width(), size.height());
    painter.end();
  }
  return bytes;
}

ExportResult writeFileAtomically(const QString& path, const QByteArray& bytes) {
  if (path.isEmpty()) return {QObject::tr("No file name given for the export.")};
  const QFileInfo info(path);
  if (!info.absoluteDir().exists())
    return {QObject::tr("Cannot write %1: the folder %2 does not exist.")
                .arg(QDir::toNativeSeparators(path),
                     QDir::toNativeSeparators(info.absolutePath()))};
  // The one writer (core): every byte and the final size checked, fsync, then rename. Qt 6.4's
  // QSaveFile::commit() reports success when the flush of a small buffered write fails.
  const std::string file = QFile::encodeName(path).toStdString();
  try {
    core::util::writeFileAtomic(file, std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())));
  } catch (const std::exception& e) {
    // core's message starts with the path; the export's own names it once, readably.
    QString why = QString::fromUtf8(e.what());
    const QString shownPath = QString::fromStdString(core::util::printable(file, false)) + QStringLiteral(": ");
    if (why.startsWith(shownPath)) why.remove(0, shownPath.size());
    for (int err : {ENOSPC, EDQUOT, EFBIG}) {
      if (why.contains(QString::fromLocal8Bit(std::strerror(err)))) {
        why += QObject::tr("; the disk is full or the file is larger than allowed");
        break;
      }
    }
    return {QObject::tr("Cannot write %1: %2").arg(QDir::toNativeSeparators(path), why)};
  }
  return {};
}

ExportResult exportChartPng(ChartFrame& chart, const QString& path, const ExportOptions& options) {
  if (QString bad = badOptions(options, path); !bad.isEmpty()) return {bad};
  chart.refreshNow();
  const ExportOptions figure = fittedOptions(chart, options);
  QImage image = renderImage(chart, figure);
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  // PNG text chunks: what the chart is and how its runs were made.
  image.setText(QStringLiteral("Title"), chart.title());
  image.setText(QStringLiteral("Description"), chart.exportDescription());
  image.setText(QStringLiteral("Software"), QStringLiteral("AccelLab"));
  if (image.isNull() || !image.save(&buffer, "PNG"))
    return {QObject::tr("Cannot render the chart \"%1\" for %2.")
                .arg(chart.title(), QDir::toNativeSeparators(path))};
  ExportResult written = writeFileAtomically(path, bytes);
  written.figure = figure;
  return written;
}

ExportResult exportChartPdf(ChartFrame& chart, const QString& path, const ExportOptions& options) {
  return exportChartsPdf({&chart}, path, options);
}

ExportResult exportChartsPdf(const QList<ChartFrame*>& all, const QString& path, const ExportOptions& options) {
  if (QString bad = badOptions(options, path); !bad.isEmpty()) return {bad};
  // Of several charts, those with nothing drawn get no page.
  QList<ChartFrame*> charts;
  for (ChartFrame* c : all) {
    c->refreshNow();
    if (all.size() == 1 || c->hasData()) charts << c;
  }
  if (charts.isEmpty()) return {QObject::tr("No charts to write to %1.").arg(QDir::toNativeSeparators(path))};
  ExportOptions first = options;   // the first page's size, for the result
  QByteArray bytes;
  {
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    QPdfWriter writer(&buffer);
    QStringList description;
    for (ChartFrame* c : charts) {
      c->refreshNow();
      description << c->exportDescription();
    }
    setUpPdf(writer, charts.size() == 1 ? charts.front()->title() : QObject::tr("AccelLab charts"),
             description.join("\n\n"));
    QCPPainter painter;
    for (int i = 0; i < charts.size(); ++i) {
      charts[i]->refreshNow();
      const ExportOptions page = fittedOptions(*charts[i], options);
      if (i == 0) first = page;
      setPdfPage(writer, page);
      if (i == 0) {
        if (!painter.begin(&writer))
          return {QObject::tr("Cannot render the PDF for %1.").arg(QDir::toNativeSeparators(path))};
      } else if (!writer.newPage()) {
        return {QObject::tr("Cannot add page %1 to %2.").arg(i + 1).arg(QDir::toNativeSeparators(path))};
      }
      // The painter keeps the viewport of the page it began on: each page its own size.
      painter.setViewport(0, 0, writer.width(), writer.height());
      drawChartPage(*charts[i], painter, page);
    }
    painter.end();
  }
  ExportResult written = writeFileAtomically(path, bytes);
  written.figure = first;
  return written;
}

ExportResult exportChartSvg(ChartFrame& chart, const QString& path, const ExportOptions& options) {
  if (QString bad = badOptions(options, path); !bad.isEmpty()) return {bad};
  chart.refreshNow();
  const ExportOptions figure = fittedOptions(chart, options);
  const QByteArray bytes = renderSvg(chart, figure);
  if (bytes.isEmpty())
    return {QObject::tr("Cannot render the SVG for %1.").arg(QDir::toNativeSeparators(path))};
  ExportResult written = writeFileAtomically(path, bytes);
  written.figure = figure;
  return written;
}

ExportResult exportChart(ChartFrame& chart, const QString& path, const ExportOptions& options) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (suffix == "png") return exportChartPng(chart, path, options);
  if (suffix == "pdf") return exportChartPdf(chart, path, options);
  if (suffix == "svg") return exportChartSvg(chart, path, options);
  return {QObject::tr("Cannot export %1: unknown format \"%2\" (use .png, .pdf or .svg).")
              .arg(QDir::toNativeSeparators(path), suffix)};
}

void copyChartToClipboard(ChartFrame& chart, const ExportOptions& options) {
  chart.refreshNow();
  const ExportOptions usable = fittedOptions(chart, options.validate().isEmpty() ? options : ExportOptions::screen());
  auto* mime = new QMimeData;
  mime->setImageData(renderImage(chart, usable));
  mime->setData(QStringLiteral("image/svg+xml"), renderSvg(chart, usable));
  QApplication::clipboard()->setMimeData(mime);
}

QString chartFileName(const QString& dir, const ChartFrame& chart, ChartFormat format,
                      const QString& prefix) {
  const char* ext = format == ChartFormat::Png ? "png" : format == ChartFormat::Pdf ? "pdf" : "svg";
  return QDir(dir).filePath(QStringLiteral("%1%2.%3").arg(prefix, chart.chartId(), ext));
}

}  // namespace widgets
