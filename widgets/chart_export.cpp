#include "widgets/chart_export.h"

#include <cerrno>
#include <cstring>

#include <qcustomplot.h>

#include <QApplication>
#include <QBuffer>
#include <QClipboard>
#include <QDir>
#include <QFileInfo>
#include <QMimeData>
#include <QPdfWriter>
#include <QSaveFile>
#include <QSvgGenerator>

#include "widgets/chart_base.h"

namespace widgets {

namespace {

// Lays the chart out for the export size for the lifetime of the guard, then back.
class ExportLayout {
public:
  ExportLayout(ChartBase& chart, QSize size) : m_chart(chart) { m_chart.layoutForSize(size); }
  ~ExportLayout() { m_chart.layoutForSize(m_chart.plot()->size()); }
  ExportLayout(const ExportLayout&) = delete;
  ExportLayout& operator=(const ExportLayout&) = delete;

private:
  ChartBase& m_chart;
};

QSize sizeOr(QSize size) { return size.isValid() && !size.isEmpty() ? size : ChartBase::exportSize(); }

// The PDF page of one chart: w×h pixels (96 dpi) on a page of that size, vectors kept.
void drawChartPage(ChartBase& chart, QPdfWriter& writer, QCPPainter& painter, QSize size) {
  Q_UNUSED(writer);
  painter.setMode(QCPPainter::pmVectorized);
  painter.setMode(QCPPainter::pmNoCaching);
  painter.setMode(QCPPainter::pmNonCosmetic);
  painter.setWindow(0, 0, size.width(), size.height());
  const ExportLayout layout(chart, size);
  chart.plot()->toPainter(&painter, size.width(), size.height());
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

void setUpPdf(QPdfWriter& writer, const QString& title, QSize size, const QString& description) {
  writer.setTitle(title);
  writer.setCreator(QStringLiteral("AccelLab"));
  writer.setDocumentXmpMetadata(xmpMetadata(title, description));
  // 96 dpi like the screen, so point-sized fonts keep their proportions to the plot.
  writer.setResolution(96);
  const QSizeF points(size.width() * 72.0 / 96.0, size.height() * 72.0 / 96.0);
  writer.setPageLayout(QPageLayout(QPageSize(points, QPageSize::Point, QString(),
                                             QPageSize::ExactMatch),
                                   QPageLayout::Portrait, QMarginsF(0, 0, 0, 0)));
}

QByteArray renderSvg(ChartBase& chart, QSize size) {
  const ExportLayout layout(chart, size);
  return renderPlotSvg(*chart.plot(), size, chart.title(), chart.exportDescription());
}

}  // namespace

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

ExportResult writeFileAtomically(const QString& path, const QByteArray& bytes) {
  if (path.isEmpty()) return {QObject::tr("No file name given for the export.")};
  const QFileInfo info(path);
  if (!info.absoluteDir().exists())
    return {QObject::tr("Cannot write %1: the folder %2 does not exist.")
                .arg(QDir::toNativeSeparators(path),
                     QDir::toNativeSeparators(info.absolutePath()))};
  QSaveFile file(path);
  // Qt's own text can be "Unknown error" (a short write on a full disk): then the system's
  // errno says it, and a full disk or file-size limit is named as such.
  auto why = [&file](int err) {
    QString text = file.errorString();
    if (text.isEmpty() || text == QLatin1String("Unknown error")) text = QString::fromLocal8Bit(std::strerror(err));
    if (err == ENOSPC || err == EDQUOT || err == EFBIG)
      text += QObject::tr(" (the disk is full or the file is larger than allowed; nothing was replaced)");
    return text;
  };
  if (!file.open(QIODevice::WriteOnly))
    return {QObject::tr("Cannot write %1: %2").arg(QDir::toNativeSeparators(path), why(errno))};
  errno = 0;
  if (file.write(bytes) != bytes.size()) {
    const int err = errno;
    file.cancelWriting();
    return {QObject::tr("Cannot write %1: %2").arg(QDir::toNativeSeparators(path), why(err))};
  }
  if (!file.commit()) return {QObject::tr("Cannot write %1: %2").arg(QDir::toNativeSeparators(path), why(errno))};
  return {};
}

ExportResult exportChartPng(ChartBase& chart, const QString& path, double scale, QSize size) {
  size = sizeOr(size);
  chart.refreshNow();
  QImage image;
  {
    const ExportLayout layout(chart, size);
    image = chart.plot()->toPixmap(size.width(), size.height(), scale).toImage();
  }
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
  return writeFileAtomically(path, bytes);
}

ExportResult exportChartPdf(ChartBase& chart, const QString& path, QSize size) {
  return exportChartsPdf({&chart}, path, size);
}

ExportResult exportChartsPdf(const QList<ChartBase*>& charts, const QString& path, QSize size) {
  size = sizeOr(size);
  if (charts.isEmpty()) return {QObject::tr("No charts to write to %1.").arg(QDir::toNativeSeparators(path))};
  QByteArray bytes;
  {
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    QPdfWriter writer(&buffer);
    QStringList description;
    for (ChartBase* c : charts) {
      c->refreshNow();
      description << c->exportDescription();
    }
    setUpPdf(writer, charts.size() == 1 ? charts.front()->title() : QObject::tr("AccelLab charts"), size,
             description.join("\n\n"));
    QCPPainter painter;
    for (int i = 0; i < charts.size(); ++i) {
      charts[i]->refreshNow();
      if (i == 0) {
        if (!painter.begin(&writer))
          return {QObject::tr("Cannot render the PDF for %1.").arg(QDir::toNativeSeparators(path))};
      } else if (!writer.newPage()) {
        return {QObject::tr("Cannot add page %1 to %2.").arg(i + 1).arg(QDir::toNativeSeparators(path))};
      }
      drawChartPage(*charts[i], writer, painter, size);
    }
    painter.end();
  }
  return writeFileAtomically(path, bytes);
}

ExportResult exportChartSvg(ChartBase& chart, const QString& path, QSize size) {
  size = sizeOr(size);
  chart.refreshNow();
  const QByteArray bytes = renderSvg(chart, size);
  if (bytes.isEmpty())
    return {QObject::tr("Cannot render the SVG for %1.").arg(QDir::toNativeSeparators(path))};
  return writeFileAtomically(path, bytes);
}

ExportResult exportChart(ChartBase& chart, const QString& path) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (suffix == "png") return exportChartPng(chart, path);
  if (suffix == "pdf") return exportChartPdf(chart, path);
  if (suffix == "svg") return exportChartSvg(chart, path);
  return {QObject::tr("Cannot export %1: unknown format \"%2\" (use .png, .pdf or .svg).")
              .arg(QDir::toNativeSeparators(path), suffix)};
}

void copyChartToClipboard(ChartBase& chart) {
  chart.refreshNow();
  const QSize size = ChartBase::exportSize();
  auto* mime = new QMimeData;
  {
    const ExportLayout layout(chart, size);
    mime->setImageData(chart.plot()->toPixmap(size.width(), size.height(), 2.0).toImage());
  }
  mime->setData(QStringLiteral("image/svg+xml"), renderSvg(chart, size));
  QApplication::clipboard()->setMimeData(mime);
}

QString chartFileName(const QString& dir, const ChartBase& chart, ChartFormat format,
                      const QString& prefix) {
  const char* ext = format == ChartFormat::Png ? "png" : format == ChartFormat::Pdf ? "pdf" : "svg";
  return QDir(dir).filePath(QStringLiteral("%1%2.%3").arg(prefix, chart.chartId(), ext));
}

}  // namespace widgets
