// Chart and data exports from a finished synthetic run: PNG decodes at 2×, PDF starts with
// %PDF, SVG parses as XML and carries axis titles and legend, CSV has one row per point,
// JSON parses, the all-charts PDF has one page per chart, failures name the file.
#include <qcustomplot.h>
#include <sys/resource.h>

#include <csignal>

#include <QClipboard>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMimeData>
#include <QRegularExpression>
#include <QXmlStreamReader>
#include <QSettings>
#include <QtTest>

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
    m_deck->sweepChart()->setReports(sweep);
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
    QCOMPARE(image.size(), ChartBase::exportSize() * 2);
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

  void csvHasHeaderAndOneRowPerPoint() {
    const QString path = m_dir.filePath("series.csv");
    QVERIFY(exportSeriesCsv(m_deck->charts(), path).ok());
    const QStringList lines = QString::fromUtf8(readAll(path)).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.front(), QString("chart,run_id,run,device,series,x,x_unit,y,unit,source,note,model,dataset,subset,"
                                    "batch,epochs,optimizer,learning_rate,weight_decay,precision,seed,device_count,"
                                    "device_precision,stack,usd_per_hour"));
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
    for (const QString& line : lines) QCOMPARE(line.count(','), 24);   // no stray commas
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
    QCOMPARE(cells[24].toDouble(), 12.24);  // its price per hour
    // JSON: a "runs" list with the experiment's own keys.
    QVERIFY(exportSeriesJson(m_deck->charts(), m_dir.filePath("config.json")).ok());
    const QJsonObject root = QJsonDocument::fromJson(readAll(m_dir.filePath("config.json"))).object();
    const QJsonArray runs = root["runs"].toArray();
    QCOMPARE(runs.size(), 1);
    QCOMPARE(runs[0].toObject()["config"].toObject()["batch"].toInt(), run.config.batch);
    QCOMPARE(runs[0].toObject()["config"].toObject()["model"].toString(), model);
    QCOMPARE(runs[0].toObject()["devices"].toArray().size(), run.devices.size());
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
      QVERIFY(exportChartPng(*c, chartFileName(dir, *c, ChartFormat::Png), 1.0).ok());
    m_deck->setTheme(ChartTheme::Dark);
    for (ChartBase* c : m_deck->charts())
      QVERIFY(exportChartPng(*c, chartFileName(dir, *c, ChartFormat::Png, "dark-"), 1.0).ok());
    m_deck->setTheme(ChartTheme::Light);
    auto* accuracy = static_cast<AccuracyChart*>(m_deck->chart("accuracy"));
    accuracy->setAxis(AccuracyChart::Axis::Seconds);
    QVERIFY(exportChartPng(*accuracy, QDir(dir).filePath("accuracy-time.png"), 1.0).ok());
    accuracy->setLogTime(true);
    QVERIFY(exportChartPng(*accuracy, QDir(dir).filePath("accuracy-logtime.png"), 1.0).ok());
    accuracy->setLogTime(false);
    accuracy->setAxis(AccuracyChart::Axis::Epoch);
    m_deck->setPresentationScale(1.6);
    QVERIFY(exportChartPng(*m_epoch, QDir(dir).filePath("presentation-epoch_time.png"), 1.0).ok());
    m_deck->setPresentationScale(1.0);
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
    std::vector<core::sim::SimReport> sweep;
    for (int b = 16; b <= 1024; b *= 2) {
      auto gpu = testdata::report("v100", 4, 0.002 + b * 0.00004, 12.24, b < 1024);
      gpu.config.batch = b;
      gpu.imagesPerSecond = b / gpu.stepSeconds;
      auto tpu = testdata::report("tpu-v2-8", 1, 0.006 + b * 0.00002, 4.5);
      tpu.config.batch = b;
      tpu.imagesPerSecond = b / tpu.stepSeconds;
      sweep.push_back(gpu);
      sweep.push_back(tpu);
    }
    m_deck->sweepChart()->setReports(sweep);
    m_deck->sweepChart()->setMarkedBatch(128);
    for (ChartBase* c : m_deck->charts())
      QVERIFY(exportChartPng(*c, chartFileName(dir, *c, ChartFormat::Png, "two-runs-"), 1.0).ok());
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
