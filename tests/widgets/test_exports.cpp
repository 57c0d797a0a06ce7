// Chart and data exports from a finished synthetic run: PNG decodes at 2×, PDF starts with
// %PDF, SVG parses as XML and carries axis titles and legend, CSV has one row per point,
// JSON parses, the all-charts PDF has one page per chart, failures name the file. The export
// options give a paper's physical size, resolution and text size; the CSV can carry a BOM.
#include <qcustomplot.h>
#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <functional>

#include <QClipboard>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMimeData>
#include <QRegularExpression>
#include <QXmlStreamReader>
#include <QSettings>
#include <QtTest>

#include "file_size_limit.h"
#include "synthetic_run.h"
#include "widgets/accuracy_chart.h"
#include "widgets/chart_base.h"
#include "widgets/chart_deck.h"
#include "widgets/chart_export.h"
#include "widgets/data_export.h"
#include "widgets/sweep_chart.h"

using namespace widgets;

namespace {

QByteArray readAll(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// Text content of every element of an SVG document (fails on malformed XML).
QString svgText(const QByteArray& svg, bool* ok) {
  QXmlStreamReader xml(svg);
  QString text;
  while (!xml.atEnd()) {
    xml.readNext();
    if (xml.isCharacters()) text += xml.text().toString() + "\n";
  }
  *ok = !xml.hasError();
  return text;
}

// The screen export at 1× (for looking at, not for the page).
const ExportOptions kScreen1x{1000, 620, ExportOptions::Unit::Px, 96, 1.0};

// Width and height in points of the first page's MediaBox.
QSizeF pdfMediaBox(const QByteArray& pdf) {
  static const QRegularExpression box(R"(/MediaBox\s*\[\s*0\s+0\s+([0-9.]+)\s+([0-9.]+)\s*\])");
  const QRegularExpressionMatch m = box.match(QString::fromLatin1(pdf));
  return m.hasMatch() ? QSizeF(m.captured(1).toDouble(), m.captured(2).toDouble()) : QSizeF();
}

int pdfPageCount(const QByteArray& pdf) {
  static const QRegularExpression page(R"(/Type\s*/Page(?!s))");
  int n = 0;
  auto it = page.globalMatch(QString::fromLatin1(pdf));
  while (it.hasNext()) {
    it.next();
    ++n;
  }
  return n;
}

}  // namespace

class TestExports : public QObject {
  Q_OBJECT
private slots:
  void initTestCase() {
    QSettings().clear();  // no remembered chart choices from an earlier run
    QVERIFY(m_dir.isValid());
    m_store = new RunStore(this);
    m_store->addRun(testdata::syntheticRun());
    m_deck = new ChartDeck(m_store);
    std::vector<core::sim::SimReport> sweep;
    for (int b = 32; b <= 512; b *= 2) {
      auto r = testdata::report("v100", 1, 0.001 + b * 0.0001, 3.06);
      r.config.batch = b;
      r.imagesPerSecond = b / r.stepSeconds;
      sweep.push_back(r);
    }
    core::experiment::TrainConfig swept = m_store->runs().front().config;
    swept.seed = 5;   // the experiment the sweep varies the batch of
    m_deck->sweepChart()->setReports(sweep, swept);
    m_deck->refreshAll();
    m_epoch = m_deck->chart("epoch_time");
  }
  void cleanupTestCase() { delete m_deck; }

  void pngIsTwiceTheSizeAndDecodes() {
    const QString path = m_dir.filePath("epoch.png");
    const ExportResult r = exportChartPng(*m_epoch, path);
    QVERIFY2(r.ok(), qPrintable(r.error));
    QImage image(path);
    QVERIFY(!image.isNull());
    QCOMPARE(image.size(), QSize(2000, 1240));
    QCOMPARE(image.size(), ExportOptions::screen().imageSize());
    // Not blank: many distinct colours (lines, text, legend).
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 7)
      for (int x = 0; x < image.width(); x += 7) colours.insert(image.pixel(x, y));
    QVERIFY(colours.size() > 20);
  }

  void pdfStartsWithPdfMagic() {
    const QString path = m_dir.filePath("epoch.pdf");
    QVERIFY(exportChartPdf(*m_epoch, path).ok());
    const QByteArray bytes = readAll(path);
    QVERIFY(bytes.startsWith("%PDF"));
    QCOMPARE(pdfPageCount(bytes), 1);
  }

  void svgParsesAndCarriesTitlesAndLegend() {
    const QString path = m_dir.filePath("epoch.svg");
    QVERIFY(exportChartSvg(*m_epoch, path).ok());
    bool ok = false;
    const QString text = svgText(readAll(path), &ok);
    QVERIFY(ok);
    QVERIFY2(text.contains("seconds per epoch"), qPrintable(text.left(400)));
    QVERIFY(text.contains("epoch"));
    QVERIFY(text.contains("Time per epoch"));
    QVERIFY(text.contains("(simulated)"));
    QVERIFY(text.contains("(measured)"));
    QVERIFY(readAll(path).contains("width=\"264.583mm\"") ||
            readAll(path).contains("width=\"264.58"));   // 1000 px at 96 dpi
  }

  void exportByNameAndErrorsNameTheFile() {
    QVERIFY(exportChart(*m_epoch, m_dir.filePath("x.svg")).ok());
    const ExportResult bad = exportChart(*m_epoch, m_dir.filePath("x.gif"));
    QVERIFY(!bad.ok());
    QVERIFY(bad.error.contains("x.gif") && bad.error.contains("gif"));
    const QString missing = m_dir.filePath("no/such/folder/chart.png");
    const ExportResult r = exportChartPng(*m_epoch, missing);
    QVERIFY(!r.ok());
    QVERIFY2(r.error.contains("chart.png"), qPrintable(r.error));
    QVERIFY(!QFile::exists(missing));
  }

  void exportReplacesAtomically() {
    const QString path = m_dir.filePath("again.png");
    QVERIFY(writeFileAtomically(path, "old").ok());
    QVERIFY(exportChartPng(*m_epoch, path).ok());
    QVERIFY(!QImage(path).isNull());
    QCOMPARE(QDir(m_dir.path()).entryList({"again.png*"}, QDir::Files).size(), 1);   // no temp left
  }

  // A disk that fills up mid-write: the file-size limit stands in for it (no mount needed).
  // The message names the file and the cause, never "Unknown error", and the old file stays.
  void aFullDiskIsNamedAndTheOldFileKept() {
    const QString path = m_dir.filePath("full.png");
    QVERIFY(writeFileAtomically(path, "old").ok());
    struct rlimit old{};
    getrlimit(RLIMIT_FSIZE, &old);
    const auto previous = std::signal(SIGXFSZ, SIG_IGN);
    struct rlimit small = old;
    small.rlim_cur = 4096;
    QCOMPARE(setrlimit(RLIMIT_FSIZE, &small), 0);
    const ExportResult r = writeFileAtomically(path, QByteArray(1 << 20, 'x'));
    setrlimit(RLIMIT_FSIZE, &old);
    std::signal(SIGXFSZ, previous);
    QVERIFY(!r.ok());
    QVERIFY2(r.error.contains("full.png") && r.error.contains("disk is full"), qPrintable(r.error));
    QVERIFY2(!r.error.contains("Unknown error"), qPrintable(r.error));
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(f.readAll(), QByteArray("old"));
    QCOMPARE(QDir(m_dir.path()).entryList({"full.png*"}, QDir::Files).size(), 1);  // no temp left
  }

  // The issue's case: data.csv of ~11 KB on a disk with 8 KB free. Qt 6.4's QSaveFile cut it
  // at 8,192 bytes inside a row and reported success; every export now fails, names its file,
  // and leaves the old file whole and no temporary file behind.
  void aFullDiskLosesNoExport() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QList<QPair<QString, std::function<ExportResult(const QString&)>>> exports = {
        {"data.csv", [this](const QString& p) { return exportSeriesCsv(m_deck->charts(), p); }},
        {"data.json", [this](const QString& p) { return exportSeriesJson(m_deck->charts(), p); }},
        {"epoch.png", [this](const QString& p) { return exportChartPng(*m_epoch, p); }},
        {"epoch.pdf", [this](const QString& p) { return exportChartPdf(*m_epoch, p); }},
        {"epoch.svg", [this](const QString& p) { return exportChartSvg(*m_epoch, p); }},
        {"all-charts.pdf", [this](const QString& p) { return exportChartsPdf(m_deck->charts(), p); }},
    };
    QVERIFY(seriesToCsv(collectSeries(m_deck->charts()), m_store).size() > 8192);  // larger than the free space
    for (const auto& [name, run] : exports) {
      const QString path = dir.filePath(name);
      const QByteArray old = "old " + name.toUtf8() + "\n";
      QVERIFY(writeFileAtomically(path, old).ok());
      ExportResult r;
      {
        const testdata::FileSizeLimit full(8192);
        QVERIFY(full.ok());
        r = run(path);
      }
      QVERIFY2(!r.ok(), qPrintable(name + " reported success on a full disk"));
      QVERIFY2(r.error.contains(name), qPrintable(r.error));
      QVERIFY2(r.error.contains("disk is full") && !r.error.contains("Unknown error"), qPrintable(r.error));
      QCOMPARE(readAll(path), old);
      // And the same export with room to spare is written whole.
      QVERIFY(run(path).ok());
      QVERIFY(readAll(path).size() > 8192 || !name.endsWith(".csv"));
    }
    QCOMPARE(testdata::allEntries(dir.path()).size(), exports.size());  // no temporary file left
  }

  void csvFieldsEscapeQuotesCommasAndLineBreaks() {
    QCOMPARE(csvField("h100"), QString("h100"));
    QCOMPARE(csvField("a,b"), QString("\"a,b\""));
    QCOMPARE(csvField("say \"hi\""), QString("\"say \"\"hi\"\"\""));
    QCOMPARE(csvField("two\nlines"), QString("\"two\nlines\""));
    QCOMPARE(csvField("cr\r"), QString("\"cr\r\""));
  }

  void csvHasHeaderAndOneRowPerPoint() {
    const QString path = m_dir.filePath("series.csv");
    QVERIFY(exportSeriesCsv(m_deck->charts(), path).ok());
    const QStringList lines = QString::fromUtf8(readAll(path)).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.front(), QString("chart,run_id,run,device,series,x,x_unit,y,unit,source,note,model,dataset,subset,"
                                    "batch,epochs,optimizer,learning_rate,weight_decay,precision,seed,device_count,"
                                    "vcpus,device_precision,stack,usd_per_hour,price_kind,price_seller,price_date,"
                                    "energy_kwh_per_run,co2e_kg_per_run"));
    const int rows = seriesRowCount(collectSeries(m_deck->charts()));
    QCOMPARE(lines.size() - 1, rows);
    // Counted independently for one chart: 3 devices × 3 epochs + 1 published mark.
    const QStringList epochRows = lines.filter(QRegularExpression("^epoch_time,"));
    QCOMPARE(epochRows.size(), 10);
    QCOMPARE(lines.filter(QRegularExpression("^epoch_time,.*,measured,")).size(), 3);
    QCOMPARE(lines.filter(QRegularExpression("^epoch_time,.*,reference,")).size(), 1);
    // Per-batch loss: 60 raw + 60 smoothed; the host's "no price" is one row with a note.
    QCOMPARE(lines.filter(QRegularExpression("^batch_loss,")).size(), 120);
    QCOMPARE(lines.filter(QRegularExpression("^cost,.*,host,usd_per_run,.*,no price,")).size(), 1);
    // The run name has a comma-free "·" and is written as UTF-8.
    QVERIFY(lines[1].contains(QString::fromUtf8("colab-cnn · fashion-mnist")));
    for (const QString& line : lines) QCOMPARE(line.count(','), 30);   // no stray commas
  }

  void jsonParsesWithEverySeries() {
    const QString path = m_dir.filePath("series.json");
    QVERIFY(exportSeriesJson(m_deck->charts(), path).ok());
    QJsonParseError err;
    const QJsonDocument doc = QJsonDocument::fromJson(readAll(path), &err);
    QCOMPARE(err.error, QJsonParseError::NoError);
    const QJsonArray series = doc.object()["series"].toArray();
    QCOMPARE(series.size(), collectSeries(m_deck->charts()).size());
    int points = 0;
    for (const auto& s : series) points += s.toObject()["points"].toArray().size();
    QVERIFY(points > 100);
    QCOMPARE(series[0].toObject()["source"].toString(), QString("measured"));
  }

  // A figure for a paper says how it was made: every export carries each run's configuration.
  void exportsCarryTheRunConfiguration() {
    const Run& run = m_store->runs().front();
    const QString model = QString::fromStdString(run.config.modelId);
    const QString batch = QStringLiteral("batch %1").arg(run.config.batch);
    const QString seed = QStringLiteral("seed %1").arg(run.config.seed);
    // CSV: every row has the run's model, batch and seed, and per device its count and price.
    QVERIFY(exportSeriesCsv(m_deck->charts(), m_dir.filePath("config.csv")).ok());
    const QStringList lines = QString::fromUtf8(readAll(m_dir.filePath("config.csv"))).split('\n', Qt::SkipEmptyParts);
    const QStringList v100 = lines.filter(QRegularExpression("^epoch_time,[0-9]+,[^,]*,v100,"));
    QVERIFY(!v100.isEmpty());
    const QStringList cells = v100.front().split(',');
    QCOMPARE(cells[11], model);
    QCOMPARE(cells[14], QString::number(run.config.batch));
    QCOMPARE(cells[20], QString::number(run.config.seed));
    QCOMPARE(cells[21], QString("4"));       // 4× V100
    QCOMPARE(cells[22], QString());          // a GPU has no vCPU count
    QCOMPARE(cells[25].toDouble(), 12.24);  // its price per hour
    QCOMPARE(cells[26], QString("on-demand"));
    QVERIFY(!cells[27].isEmpty() && !cells[28].isEmpty());  // the price's seller and date
    QVERIFY2(cells[29].toDouble() > 0 && cells[30].toDouble() > 0, qPrintable(v100.front()));  // energy, CO2e
    // The sweep's rows (run_id 0) carry the whole configuration too, with each point's batch.
    const QStringList sweep = lines.filter(QRegularExpression("^sweep,0,"));
    QCOMPARE(sweep.size(), 5);   // batches 32 … 512
    for (const QString& line : sweep) {
      const QStringList c = line.split(',');
      QCOMPARE(c[11], model);
      QCOMPARE(c[14], c[5]);                      // the batch column is the point's x
      QCOMPARE(c[16], QString("adam"));
      QCOMPARE(c[20], QString("5"));
      QCOMPARE(c[21], QString("1"));
      QCOMPARE(c[25].toDouble(), 3.06);
      QCOMPARE(c[26], QString("on-demand"));
    }
    // JSON: a "runs" list with the experiment's own keys.
    QVERIFY(exportSeriesJson(m_deck->charts(), m_dir.filePath("config.json")).ok());
    const QJsonObject root = QJsonDocument::fromJson(readAll(m_dir.filePath("config.json"))).object();
    const QJsonArray runs = root["runs"].toArray();
    QCOMPARE(runs.size(), 1);
    QCOMPARE(runs[0].toObject()["config"].toObject()["batch"].toInt(), run.config.batch);
    QCOMPARE(runs[0].toObject()["config"].toObject()["model"].toString(), model);
    QCOMPARE(runs[0].toObject()["devices"].toArray().size(), run.devices.size());
    // Each simulated device carries its whole report, in the CLI's and the history's form.
    bool sawV100 = false;
    for (const auto& v : runs[0].toObject()["devices"].toArray()) {
      const QJsonObject d = v.toObject();
      if (d["device"].toString() != "v100") continue;
      sawV100 = true;
      const QJsonObject report = d["report"].toObject();
      const auto it = std::find_if(run.devices.begin(), run.devices.end(), [](const DeviceResult& r) { return r.deviceId == "v100"; });
      QVERIFY(it != run.devices.end());
      QVERIFY(report["simulated"].toBool());
      QCOMPARE(report["count"].toInt(), 4);
      QCOMPARE(report["usd_per_hour"].toDouble(), 12.24);
      QVERIFY(std::abs(report["step_seconds"].toDouble() / it->report.stepSeconds - 1) < 1e-5);
      QCOMPARE(report["breakdown"].toObject().size(), 5);  // a CNN's: no transformer plan part
    }
    QVERIFY(sawV100);
    // The sweep's series: its experiment and each point's report.
    bool sawSweep = false;
    for (const auto& v : root["series"].toArray()) {
      const QJsonObject s = v.toObject();
      if (s["chart"].toString() != "sweep" || s["series"].toString() != "images_per_second") continue;
      sawSweep = true;
      QCOMPARE(s["config"].toObject()["seed"].toInt(), 5);
      QCOMPARE(s["reports"].toArray().size(), s["points"].toArray().size());
    }
    QVERIFY(sawSweep);
    // SVG description, PNG text chunk and the PDF's XMP metadata.
    QVERIFY(exportChartSvg(*m_epoch, m_dir.filePath("config.svg")).ok());
    const QByteArray svg = readAll(m_dir.filePath("config.svg"));
    QVERIFY2(svg.contains(batch.toUtf8()) && svg.contains(seed.toUtf8()), svg.left(600).constData());
    QVERIFY(exportChartPng(*m_epoch, m_dir.filePath("config.png")).ok());
    const QImage png(m_dir.filePath("config.png"));
    QVERIFY2(png.text("Description").contains(batch), qPrintable(png.text("Description")));
    QVERIFY(png.text("Description").contains("v100"));
    QVERIFY(exportChartPdf(*m_epoch, m_dir.filePath("config.pdf")).ok());
    const QByteArray pdf = readAll(m_dir.filePath("config.pdf"));
    QVERIFY(pdf.contains("dc:description"));
    QVERIFY(pdf.contains(batch.toUtf8()));
  }

  // A one-column figure is 8.5 cm wide on the page with 9 pt text, whatever the format: the
  // PDF page, the SVG's physical width, the PNG's pixels and recorded dpi. The chart on screen
  // keeps its own scale afterwards.
  void oneColumnPaperHasItsPhysicalSizeAndTextSize() {
    const ExportPreset* preset = nullptr;
    for (const ExportPreset& p : exportPresets())
      if (p.id == "one-column") preset = &p;
    QVERIFY(preset);
    const ExportOptions o = preset->options;
    QCOMPARE(o.width, 8.5);
    QCOMPARE(o.unit, ExportOptions::Unit::Cm);
    QCOMPARE(o.layoutSize().width(), 321);   // 8.5 cm at 96 dpi
    m_epoch->setPresentationScale(1.3);
    QVERIFY(exportChartPdf(*m_epoch, m_dir.filePath("col.pdf"), o).ok());
    const QSizeF page = pdfMediaBox(readAll(m_dir.filePath("col.pdf")));
    QVERIFY2(std::abs(page.width() - 8.5 / 2.54 * 72) < 0.5, qPrintable(QString::number(page.width())));
    QVERIFY2(std::abs(page.height() - 6.5 / 2.54 * 72) < 0.5, qPrintable(QString::number(page.height())));
    QVERIFY(exportChartSvg(*m_epoch, m_dir.filePath("col.svg"), o).ok());
    const QByteArray svg = readAll(m_dir.filePath("col.svg"));
    static const QRegularExpression widthMm(R"(<svg[^>]*width="([0-9.]+)mm")");
    const QRegularExpressionMatch w = widthMm.match(QString::fromUtf8(svg));
    QVERIFY2(w.hasMatch() && std::abs(w.captured(1).toDouble() - 85.0) < 0.5, svg.left(400).constData());
    // The tick labels are 9 pt: QSvgGenerator writes sizes in the 96-dpi view box, where 9 pt
    // is 12 units (and the view box is the page's 85 mm).
    QVERIFY(svg.contains("viewBox=\"0 0 321 246\""));
    QVERIFY2(svg.contains("font-size=\"12\""), svg.left(2000).constData());
    // The legend is kept at this size (on screen a chart this small leaves it out).
    bool ok = false;
    const QString text = svgText(svg, &ok);
    QVERIFY(ok);
    QVERIFY2(text.contains("(measured)") && text.contains("(simulated)"), qPrintable(text));
    QVERIFY(exportChartPng(*m_epoch, m_dir.filePath("col.png"), o).ok());
    const QImage png(m_dir.filePath("col.png"));
    QCOMPARE(png.size(), o.imageSize());
    QCOMPARE(png.width(), 2008);             // 8.5 cm at 600 dpi
    QVERIFY(std::abs(png.dotsPerMeterX() * 0.0254 - 600) < 1);
    QCOMPARE(m_epoch->presentationScale(), 1.3);   // the screen's scale is back
    m_epoch->setPresentationScale(1.0);
  }

  // Every export preset, three runs overlaid: the legend sits under the plot in columns (the
  // runs' differences once, in its caption), nothing of it leaves the figure, and the plot keeps
  // at least 60% of the height: a one-column figure grows taller rather than squeeze it.
  void figuresKeepThePlotAndTheLegendBelowIt() {
    QList<int> added;
    for (int i = 0; i < 2; ++i) {
      Run r = testdata::syntheticRun();
      r.config.learningRate = 0.1 * (i + 1);
      r.devices.push_back(testdata::device(i ? "a100" : "t4", 1, false, 0.01 + 0.01 * i, 1.5));
      added << m_store->addRun(r);
    }
    bool grew = false;
    for (const ExportPreset& p : exportPresets()) {
      for (const char* id : {"epoch_time", "accuracy", "cost", "throughput"}) {
        ChartBase* c = m_deck->chart(id);
        c->refreshNow();
        const ExportOptions o = fittedOptions(*c, p.options);
        QCOMPARE(o.width, p.options.width);
        QVERIFY(o.height >= p.options.height);
        grew = grew || o.height > p.options.height;
        const QSize size = o.layoutSize();
        c->setPresentationScale(o.fontScale);
        c->layoutForSize(size, /*keepLegend=*/true);
        QVERIFY(!c->plot()->toPixmap(size.width(), size.height()).isNull());   // lays it out at that size
        const QString where = QStringLiteral("%1 at %2").arg(id, p.id);
        QCPLegend* legend = c->plot()->legend;
        QVERIFY2(legend->visible(), qPrintable(where));
        const QRect box = legend->outerRect();
        QVERIFY2(box.top() >= 0.6 * size.height() - 1,
                 qPrintable(QStringLiteral("%1: the legend starts at %2 of %3 px").arg(where).arg(box.top()).arg(size.height())));
        for (QCPAxisRect* rect : c->plot()->axisRects()) QVERIFY2(rect->outerRect().bottom() <= box.top(), qPrintable(where));
        if (p.id != "one-column") QVERIFY2(legend->columnCount() >= 2, qPrintable(where));
        QVERIFY2(box.right() <= size.width() && box.bottom() <= size.height(), qPrintable(where));
        // The caption names the three runs by what sets them apart, inside the figure.
        const QString caption = c->legendCaptionText();
        const QString joined = QString(caption).replace('\n', ' ');   // a part may wrap at a space
        for (int run : added) QVERIFY2(joined.contains(QStringLiteral("#%1: ").arg(run)), qPrintable(where + ": " + caption));
        QVERIFY2(joined.contains("lr 0.2"), qPrintable(caption));
        for (QCPLayoutElement* e : c->plot()->plotLayout()->elements(true))
          if (e && e->property("legendCaption").toBool()) {
            QVERIFY2(e->outerRect().bottom() <= size.height(), qPrintable(where));
            const QFontMetrics metrics(static_cast<QCPTextElement*>(e)->font());
            for (const QString& line : caption.split('\n'))
              QVERIFY2(metrics.horizontalAdvance(line) <= e->rect().width(), qPrintable(where + ": " + line));
          }
        // Labels on the plot (bar values, "out of memory", published figures) are inside it
        // and clear of each other.
        QVector<QRectF> labels;
        for (int i = 0; i < c->plot()->itemCount(); ++i) {
          auto* t = qobject_cast<QCPItemText*>(c->plot()->item(i));
          if (!t || !t->visible() || !(t->property("valueLabel").toBool() || t->property("missingLabel").toBool() ||
                                       t->property("referenceLabel").toBool()))
            continue;
          const QRectF r = ChartFrame::itemTextRect(t).adjusted(1, 1, -1, -1);
          QVERIFY2(QRectF(t->clipAxisRect()->rect()).contains(r),
                   qPrintable(QStringLiteral("%1: \"%2\" leaves its plot").arg(where, t->text())));
          for (const QRectF& other : labels)
            QVERIFY2(!other.intersects(r), qPrintable(QStringLiteral("%1: \"%2\" overlaps another label").arg(where, t->text())));
          labels << r;
        }
        c->setPresentationScale(1.0);
        c->layoutForSize(c->plot()->size());
      }
    }
    QVERIFY(grew);   // three runs' accuracy legend does not fit 40% of a one-column 6.5 cm
    for (int run : added) m_store->removeRun(run);
  }

  void unusableExportOptionsAreNamedAndWriteNothing() {
    ExportOptions tiny{2, 2, ExportOptions::Unit::Cm, 300, 1.0};
    QVERIFY2(tiny.validate().contains("too small"), qPrintable(tiny.validate()));
    const QString path = m_dir.filePath("tiny.png");
    const ExportResult r = exportChartPng(*m_epoch, path, tiny);
    QVERIFY(!r.ok());
    QVERIFY2(r.error.contains("tiny.png") && r.error.contains("too small"), qPrintable(r.error));
    QVERIFY(!QFile::exists(path));
    using U = ExportOptions::Unit;
    const ExportOptions lowDpi{1000, 620, U::Px, 50, 1.0}, hugeFont{1000, 620, U::Px, 96, 4.0},
        negative{-3, 620, U::Px, 96, 1.0}, poster{100, 50, U::Cm, 1200, 1.0};
    QVERIFY(lowDpi.validate().contains("dpi 50"));
    QVERIFY(hugeFont.validate().contains("font scale 4"));
    QVERIFY(negative.validate().contains("positive"));
    QVERIFY(poster.validate().contains("at most"));
    for (const ExportPreset& p : exportPresets()) QVERIFY2(p.options.validate().isEmpty(), qPrintable(p.id));
  }

  // Excel reads a CSV without a BOM in the legacy code page ("×" becomes "Ã—"); with the
  // option the file starts with EF BB BF and is otherwise the same bytes.
  void csvCanStartWithAUtf8ByteOrderMark() {
    QVERIFY(exportSeriesCsv(m_deck->charts(), m_dir.filePath("plain.csv")).ok());
    QVERIFY(exportSeriesCsv(m_deck->charts(), m_dir.filePath("bom.csv"), true).ok());
    const QByteArray plain = readAll(m_dir.filePath("plain.csv")), bom = readAll(m_dir.filePath("bom.csv"));
    QVERIFY(!plain.startsWith("\xEF\xBB\xBF"));
    QVERIFY(bom.startsWith("\xEF\xBB\xBF"));
    QCOMPARE(bom.mid(3), plain);
  }

  void allChartsPdfHasOnePagePerChart() {
    const QString path = m_dir.filePath("all.pdf");
    QVERIFY(exportChartsPdf(m_deck->charts(), path).ok());
    const QByteArray bytes = readAll(path);
    QVERIFY(bytes.startsWith("%PDF"));
    QCOMPARE(pdfPageCount(bytes), m_deck->charts().size());
  }

  void clipboardGetsImageAndSvg() {
    copyChartToClipboard(*m_epoch);
    const QMimeData* mime = QGuiApplication::clipboard()->mimeData();
    QVERIFY(mime);
    QVERIFY(mime->hasImage());
    QVERIFY(mime->data("image/svg+xml").contains("<svg"));
  }

  // Not a check: with ACCELLAB_CHART_SHOTS=<dir>, writes every chart as PNG for a look.
  void writeShotsWhenAsked() {
    const QString dir = qEnvironmentVariable("ACCELLAB_CHART_SHOTS");
    if (dir.isEmpty()) QSKIP("set ACCELLAB_CHART_SHOTS=<dir> to write chart images");
    QDir().mkpath(dir);
    for (ChartBase* c : m_deck->charts())
      QVERIFY(exportChartPng(*c, chartFileName(dir, *c, ChartFormat::Png), kScreen1x).ok());
    m_deck->setTheme(ChartTheme::Dark);
    for (ChartBase* c : m_deck->charts())
      QVERIFY(exportChartPng(*c, chartFileName(dir, *c, ChartFormat::Png, "dark-"), kScreen1x).ok());
    m_deck->setTheme(ChartTheme::Light);
    auto* accuracy = static_cast<AccuracyChart*>(m_deck->chart("accuracy"));
    accuracy->setAxis(AccuracyChart::Axis::Seconds);
    QVERIFY(exportChartPng(*accuracy, QDir(dir).filePath("accuracy-time.png"), kScreen1x).ok());
    accuracy->setLogTime(true);
    QVERIFY(exportChartPng(*accuracy, QDir(dir).filePath("accuracy-logtime.png"), kScreen1x).ok());
    accuracy->setLogTime(false);
    accuracy->setAxis(AccuracyChart::Axis::Epoch);
    ExportOptions big = kScreen1x;
    big.fontScale = 1.6;
    QVERIFY(exportChartPng(*m_epoch, QDir(dir).filePath("presentation-epoch_time.png"), big).ok());
    for (const ExportPreset& p : exportPresets()) {
      ExportOptions look = p.options;
      look.dpi = std::min(look.dpi, 200);   // the layout is the same; a smaller file to look at
      QVERIFY(exportChartPng(*m_epoch, QDir(dir).filePath("preset-" + p.id + ".png"), look).ok());
    }
    m_deck->resize(1400, 1000);
    m_deck->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_deck));
    m_deck->refreshAll();
    QTest::qWait(100);
    m_deck->grab().save(QDir(dir).filePath("deck.png"));
    // Overlaid runs, an out-of-memory device and a sweep with a crossover and OOM points.
    Run second = testdata::syntheticRun();
    second.devices.push_back(testdata::device("k80", 1, false, 0.02, 0.7, /*fits=*/false));
    m_store->addRun(second);
    m_deck->sweepChart()->setReports(testdata::sweepReports(4));
    m_deck->sweepChart()->setMarkedBatch(128);
    for (ChartBase* c : m_deck->charts())
      QVERIFY(exportChartPng(*c, chartFileName(dir, *c, ChartFormat::Png, "two-runs-"), kScreen1x).ok());
    for (const ExportPreset& p : exportPresets()) {
      ExportOptions look = p.options;
      look.dpi = std::min(look.dpi, 200);
      for (const char* id : {"epoch_time", "accuracy", "cost"})
        QVERIFY(exportChartPng(*m_deck->chart(id), QDir(dir).filePath("two-runs-preset-" + p.id + "-" + id + ".png"), look).ok());
    }
    QVERIFY(exportChartsPdf(m_deck->charts(), QDir(dir).filePath("all-charts.pdf")).ok());
    QVERIFY(exportChartSvg(*m_deck->chart("cost"), QDir(dir).filePath("cost.svg")).ok());
    m_deck->chart("throughput")->setLogY(true);
    m_deck->chart("throughput")->fitToData();
    m_deck->chart("throughput")->fitToData();   // fitting twice must not drift
    QVERIFY(exportChartSvg(*m_deck->chart("throughput"), QDir(dir).filePath("throughput-log.svg")).ok());
  }

private:
  QTemporaryDir m_dir;
  RunStore* m_store = nullptr;
  ChartDeck* m_deck = nullptr;
  ChartBase* m_epoch = nullptr;
};

QTEST_MAIN(TestExports)
#include "test_exports.moc"
