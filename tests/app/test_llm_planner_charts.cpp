// The LLM planner's four charts are ChartFrame charts like every other: they switch with the
// theme (no mark hard-coded black), say exact values on hover, and export through the one
// chart exporter at every Export Options preset (PNG, PDF, SVG) and through the one data
// exporter (the tidy CSV and JSON, one row per scenario and series).
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>
#include <qcustomplot.h>

#include "app/gui/llm_planner_window.h"
#include "app/gui/sim_service.h"
#include "app_test_env.h"
#include "core/util/csv.h"
#include "widgets/chart_export.h"
#include "widgets/chart_frame.h"
#include "widgets/data_export.h"
#include "widgets/palette.h"

using app::gui::LlmPlannerWindow;
using widgets::ChartFrame;

class TestLlmPlannerCharts : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;
  std::unique_ptr<app::gui::SimService> m_sim;

  // A window with the MLPerf preset (two scenarios, two published marks), shown at 1280x800.
  std::unique_ptr<LlmPlannerWindow> openWindow() {
    auto w = std::make_unique<LlmPlannerWindow>(m_sim.get());
    if (!w->openPreset("mlperf-llama2-70b-lora")) return nullptr;
    w->resize(1280, 800);
    w->show();
    return w;
  }

  // Every colour the chart draws data with: pens and brushes of plottables and markers.
  static QList<QColor> markColors(QCustomPlot* plot) {
    QList<QColor> out;
    for (int i = 0; i < plot->plottableCount(); ++i) {
      QCPAbstractPlottable* p = plot->plottable(i);
      auto* g = qobject_cast<QCPGraph*>(p);
      const bool lineDrawn = !g || g->lineStyle() != QCPGraph::lsNone;  // marker-only graphs draw no line
      if (lineDrawn && p->pen().style() != Qt::NoPen) out << p->pen().color();
      if (g && !g->scatterStyle().isNone()) out << g->scatterStyle().pen().color();
      if (qobject_cast<QCPBars*>(p)) out << p->brush().color();
    }
    for (int i = 0; i < plot->itemCount(); ++i)
      if (auto* text = qobject_cast<QCPItemText*>(plot->item(i))) out << text->color();
    return out;
  }

private slots:
  void initTestCase() {
    app_test::isolate(m_dir);
    const std::string res = ACCELLAB_SOURCE_RESOURCES;
    m_sim = std::make_unique<app::gui::SimService>(core::hw::DeviceCatalog::loadDirs({res + "/devices"}),
                                                   core::hw::StackCatalog::loadDirs({res + "/stacks"}));
  }

  void theChartsSwitchWithTheTheme() {
    auto w = openWindow();
    QVERIFY(w);
    QCOMPARE(w->panel()->charts().size(), 4);
    for (auto theme : {widgets::ChartTheme::Dark, widgets::ChartTheme::Light}) {
      w->setTheme(theme);
      const widgets::ChartColors c = widgets::chartColors(theme);
      for (ChartFrame* chart : w->panel()->charts()) {
        QCOMPARE(chart->theme(), theme);
        QCustomPlot* plot = chart->plot();
        QCOMPARE(plot->xAxis->labelColor(), c.text);
        QCOMPARE(plot->axisRect()->backgroundBrush().color(), c.background);
        const QList<QColor> marks = markColors(plot);
        QVERIFY2(!marks.isEmpty(), qPrintable(chart->chartId()));
        // Every mark reads on the background (the planner once drew black diamonds on any theme).
        for (const QColor& m : marks)
          QVERIFY2(widgets::contrastRatio(m, c.background) >= 2.5,
                   qPrintable(QStringLiteral("%1: %2 on %3").arg(chart->chartId(), m.name(), c.background.name())));
      }
    }
  }

  // Scenario names are names: an axis of text ticks never typesets "tpu-v5e-8" as a power of
  // ten ("beautiful powers", QCustomPlot's "gb" number format, applies to tick labels too).
  void scenarioNamesAreNotTypesetAsNumbers() {
    auto w = openWindow();
    QVERIFY(w);
    for (ChartFrame* chart : w->panel()->charts()) {
      const QList<QCPAxis*> axes = chart->plot()->axisRect()->axes();
      for (QCPAxis* axis : axes)
        if (axis->ticker().dynamicCast<QCPAxisTickerText>())
          QVERIFY2(!axis->numberFormat().contains('b'),
                   qPrintable(chart->chartId() + ": text ticks in number format " + axis->numberFormat()));
    }
  }

  void hoverSaysTheValueOfABar() {
    auto w = openWindow();
    QVERIFY(w);
    QVERIFY(QTest::qWaitForWindowExposed(w.get()));
    ChartFrame* throughput = w->panel()->charts().front();
    QCOMPARE(w->panel()->currentChart(), throughput);
    QCustomPlot* plot = throughput->plot();
    plot->replot();  // the axis rect's geometry for the pixel below
    auto* bars = qobject_cast<QCPBars*>(plot->plottable(0));
    QVERIFY(bars && !bars->data()->isEmpty());
    const double value = bars->data()->at(0)->value;
    const QPointF pixel(plot->xAxis->coordToPixel(bars->data()->at(0)->key), plot->yAxis->coordToPixel(value / 2));
    const QString text = throughput->hoverText(pixel);
    QVERIFY2(text.contains("simulated tokens/s") && text.contains("tokens/s"), qPrintable(text));
    QVERIFY2(text.contains("h200") || text.contains("H200"), qPrintable(text));  // the scenario, from the axis
    QVERIFY(throughput->hoverText(QPointF(1, 1)).isEmpty());  // nothing near the corner
  }

  void everyChartExportsAtEveryPreset() {
    auto w = openWindow();
    QVERIFY(w);
    QVERIFY(!widgets::exportPresets().isEmpty());
    for (const widgets::ExportPreset& preset : widgets::exportPresets()) {
      const QString dir = m_dir.filePath("presets/" + preset.id);
      QVERIFY(QDir().mkpath(dir));
      for (ChartFrame* chart : w->panel()->charts()) {
        for (auto format : {widgets::ChartFormat::Png, widgets::ChartFormat::Pdf, widgets::ChartFormat::Svg}) {
          const QString path = widgets::chartFileName(dir, *chart, format);
          const widgets::ExportResult r = widgets::exportChart(*chart, path, preset.options);
          QVERIFY2(r.ok(), qPrintable(r.error));
          QFile f(path);
          QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable(path));
          const QByteArray bytes = f.readAll();
          if (format == widgets::ChartFormat::Png) {
            const QImage image = QImage::fromData(bytes, "PNG");
            // The preset's width; its height, or taller where the legend needed it.
            QCOMPARE(image.size(), r.figure.imageSize());
            QCOMPARE(image.width(), preset.options.imageSize().width());
            QVERIFY(image.height() >= preset.options.imageSize().height());
            QCOMPARE(image.text("Title"), chart->title());
            QVERIFY2(image.text("Description").contains("simulated"), qPrintable(image.text("Description")));
          } else if (format == widgets::ChartFormat::Pdf) {
            QVERIFY(bytes.startsWith("%PDF"));
          } else {
            QVERIFY(bytes.contains("<svg"));
            QVERIFY2(bytes.contains(chart->title().toHtmlEscaped().toUtf8()), qPrintable(path));
          }
        }
      }
    }
  }

  void theDataGoesThroughTheOneDataExporter() {
    auto w = openWindow();
    QVERIFY(w);
    const QList<ChartFrame*> charts = w->panel()->charts();
    const QString csvPath = m_dir.filePath("llm-data.csv");
    QVERIFY(widgets::exportSeriesCsv(charts, csvPath).ok());
    QFile csv(csvPath);
    QVERIFY(csv.open(QIODevice::ReadOnly));
    std::vector<int> lines;
    const auto rows = core::util::parseCsv(csv.readAll().toStdString(), "llm-data.csv", lines);
    QVERIFY(rows.size() > 2);
    QCOMPARE(QString::fromStdString(rows[0][0]), QStringLiteral("chart"));
    QSet<QString> chartIds, sources;
    int scenarioRows = 0;
    for (std::size_t i = 1; i < rows.size(); ++i) {
      QCOMPARE(rows[i].size(), rows[0].size());
      chartIds << QString::fromStdString(rows[i][0]);
      sources << QString::fromStdString(rows[i][9]);
      if (QString::fromStdString(rows[i][2]).contains("h200")) ++scenarioRows;  // the run column names the scenario
    }
    QCOMPARE(chartIds, (QSet<QString>{"llm-throughput", "llm-cost", "llm-memory", "llm-scaling"}));
    QCOMPARE(sources, (QSet<QString>{"simulated", "reference"}));  // the published marks as reference rows
    QVERIFY(scenarioRows > 0);
    QCOMPARE(static_cast<int>(rows.size()) - 1, widgets::seriesRowCount(widgets::collectSeries(charts)));

    const QString jsonPath = m_dir.filePath("llm-data.json");
    QVERIFY(widgets::exportSeriesJson(charts, jsonPath).ok());
    QFile json(jsonPath);
    QVERIFY(json.open(QIODevice::ReadOnly));
    const QJsonObject root = QJsonDocument::fromJson(json.readAll()).object();
    QCOMPARE(root["format"].toString(), QStringLiteral("accellab-series"));
    QCOMPARE(root["series"].toArray().size(), widgets::collectSeries(charts).size());
  }

  // The batch export (--export-dir) writes the charts at the main window's export options.
  void exportAllUsesTheSharedExportOptions() {
    auto w = openWindow();
    QVERIFY(w);
    const widgets::ExportPreset* oneColumn = nullptr;
    for (const auto& p : widgets::exportPresets())
      if (p.id == "one-column") oneColumn = &p;
    QVERIFY(oneColumn);
    const widgets::ExportOptions options = oneColumn->options;
    w->shareExportOptions([options] { return options; }, nullptr);
    const QString dir = m_dir.filePath("all");
    QStringList errors;
    QVERIFY2(w->exportAll(dir, &errors), qPrintable(errors.join('\n')));
    for (ChartFrame* chart : w->panel()->charts()) {
      const QImage image(widgets::chartFileName(dir, *chart, widgets::ChartFormat::Png));
      QCOMPARE(image.width(), options.imageSize().width());
      QVERIFY(image.height() >= options.imageSize().height());
    }
  }
};

QTEST_MAIN(TestLlmPlannerCharts)
#include "test_llm_planner_charts.moc"
