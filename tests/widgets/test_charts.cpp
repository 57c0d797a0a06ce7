// The charts, fed from a RunStore with a synthetic run: every chart shows every device,
// legend clicks hide series, log-y toggles, hover names values, references sit beside what
// they measure. How the charts look (themes, fonts, layouts) is in test_chart_layout.cpp.
#include <qcustomplot.h>

#include <QCheckBox>
#include <QtTest>
#include <cmath>

#include "synthetic_run.h"
#include "widgets/accuracy_chart.h"
#include "widgets/batch_loss_chart.h"
#include "widgets/breakdown_chart.h"
#include "widgets/chart_deck.h"
#include "widgets/run_data.h"
#include "widgets/cost_chart.h"
#include "widgets/epoch_time_chart.h"
#include "widgets/host_check_chart.h"
#include "widgets/sweep_chart.h"
#include "widgets/throughput_chart.h"

using namespace widgets;

namespace {

bool hasPointsFor(const QVector<Series>& series, const QString& deviceId) {
  for (const Series& s : series) {
    if (s.deviceId != deviceId || s.source == SeriesSource::Reference) continue;
    for (double y : s.y)
      if (std::isfinite(y)) return true;
  }
  return false;
}

const Series* findSeries(const QVector<Series>& all, const QString& name, const QString& device) {
  for (const Series& s : all)
    if (s.name == name && s.deviceId == device) return &s;
  return nullptr;
}

}  // namespace

class TestCharts : public QObject {
  Q_OBJECT
private slots:
  void init() {
    m_store = new RunStore;
    m_runId = m_store->addRun(testdata::syntheticRun());
    m_deck = testdata::newTestDeck(m_store);
  }
  void cleanup() {
    delete m_deck;
    delete m_store;
  }

  void deckHasEveryChart() {
    QStringList ids;
    for (ChartBase* c : m_deck->charts()) ids << c->chartId();
    QCOMPARE(ids, (QStringList{"epoch_time", "accuracy", "batch_loss", "throughput", "cost",
                               "breakdown", "sweep", "host_check"}));
    for (ChartBase* c : m_deck->charts()) QVERIFY2(!c->explanation().isEmpty(), qPrintable(c->chartId()));
  }

  void everyDeviceChartHasPointsForEveryDevice() {
    auto* accuracy = static_cast<AccuracyChart*>(m_deck->chart("accuracy"));
    accuracy->setAxis(AccuracyChart::Axis::Seconds);
    for (const QString id : {"epoch_time", "accuracy", "throughput", "breakdown"}) {
      ChartBase* c = m_deck->chart(id);
      c->refreshNow();
      QVERIFY2(c->visibleGraphPoints() > 0, qPrintable(id));
      for (const QString& dev : testdata::syntheticDevices())
        QVERIFY2(hasPointsFor(c->series(), dev), qPrintable(id + " / " + dev));
    }
    // Drawn, not only listed: one point per epoch per device.
    for (const QString& dev : testdata::syntheticDevices())
      QCOMPARE(m_deck->chart("epoch_time")->visibleGraphPoints(dev), 3);
    // Cost: the priced devices have bars; the host has no price and says so.
    const auto cost = m_deck->chart("cost")->series();
    QVERIFY(hasPointsFor(cost, "v100"));
    QVERIFY(hasPointsFor(cost, "tpu-v2-8"));
    QCOMPARE(findSeries(cost, "usd_per_million_images", "host")->note, QString("no price"));
    // The sweep's devices; the host check holds the measured host and its prediction.
    QVERIFY(hasPointsFor(m_deck->chart("sweep")->series(), "v100"));
    QVERIFY(hasPointsFor(m_deck->chart("sweep")->series(), "tpu-v2-8"));
    const auto host = m_deck->chart("host_check")->series();
    QVERIFY(findSeries(host, "measured_step_ms", "host")->y.size() == 60);
    QCOMPARE(findSeries(host, "predicted_step_ms", "host")->y.value(0), 45.0);
    // Measured 1.11x the predicted step: AccelLab predicted 11% more throughput, said in words.
    const QString hostNote = m_deck->chart("host_check")->notes();
    QVERIFY2(hostNote.contains("AccelLab predicted 11% faster than measured (+11."), qPrintable(hostNote));
    QVERIFY2(hostNote.contains("Re-measure This Machine"), qPrintable(hostNote));
    QVERIFY(m_deck->chart("batch_loss")->visibleGraphPoints() >= 120);
  }

  void measuredAndSimulatedAreNamedInLegends() {
    ChartBase* c = m_deck->chart("epoch_time");
    QStringList names;
    for (int i = 0; i < c->plot()->legend->itemCount(); ++i)
      if (auto* item = qobject_cast<QCPPlottableLegendItem*>(c->plot()->legend->item(i)))
        names << item->plottable()->name();
    QVERIFY(names.filter("(measured)").size() == 1);
    QVERIFY(names.filter("(simulated)").size() == 2);
    QVERIFY(names.contains("published (reference)"));
  }

  void firstEpochCompilationIsNoted() {
    const QString notes = m_deck->chart("epoch_time")->notes();
    QVERIFY2(notes.contains("compilation"), qPrintable(notes));
  }

  void trainAndTestDifferByLineAndMarkerNotOnlyShade() {
    auto* c = static_cast<AccuracyChart*>(m_deck->chart("accuracy"));
    c->setAxis(AccuracyChart::Axis::Epoch);
    c->refreshNow();
    QMap<QString, QCPGraph*> byLabel;   // "train accuracy" -> its line
    for (int i = 0; i < c->plot()->graphCount(); ++i) {
      QCPGraph* g = c->plot()->graph(i);
      for (const char* kind : {"train accuracy", "test accuracy", "train loss", "test loss"})
        if (g->name().endsWith(QLatin1String(kind))) byLabel[kind] = g;
    }
    QCOMPARE(byLabel.size(), 4);
    for (const char* what : {"accuracy", "loss"}) {
      QCPGraph* train = byLabel[QStringLiteral("train %1").arg(what)];
      QCPGraph* test = byLabel[QStringLiteral("test %1").arg(what)];
      QCOMPARE(test->pen().style(), Qt::SolidLine);
      QCOMPARE(train->pen().style(), Qt::DashLine);
      // Filled against hollow: the marker's brush is the line's colour only for test.
      QCOMPARE(test->scatterStyle().brush().color(), test->pen().color());
      QVERIFY(train->scatterStyle().brush().color() != train->pen().color());
    }
    // Accuracy and loss of one run: different marker shapes.
    QVERIFY(byLabel["test accuracy"]->scatterStyle().shape() != byLabel["test loss"]->scatterStyle().shape());
  }

  void legendClickHidesAndShowsTheSeries() {
    ChartBase* c = m_deck->chart("epoch_time");
    m_deck->show();
    m_deck->maximise(c);
    QVERIFY(QTest::qWaitForWindowExposed(m_deck));
    c->refreshNow();
    c->plot()->replot(QCustomPlot::rpImmediateRefresh);
    QCPLegend* legend = c->plot()->legend;
    QCPPlottableLegendItem* target = nullptr;
    for (int i = 0; i < legend->itemCount(); ++i) {
      auto* item = qobject_cast<QCPPlottableLegendItem*>(legend->item(i));
      if (item && item->plottable()->property("deviceId").toString() == "v100") target = item;
    }
    QVERIFY(target);
    const QString key = target->plottable()->property("seriesKey").toString();
    const int before = c->visibleGraphPoints("v100");
    QCOMPARE(before, 3);
    QTest::mouseClick(c->plot(), Qt::LeftButton, {}, target->outerRect().center());
    QVERIFY(c->isSeriesHidden(key));
    QVERIFY(!target->plottable()->visible());
    QCOMPARE(c->visibleGraphPoints("v100"), 0);
    QCOMPARE(c->visibleGraphPoints("tpu-v2-8"), 3);
    // Stays hidden when new data arrives, and a second click shows it again.
    m_store->appendSamples(m_runId, {}, {core::experiment::EpochSample{}});
    c->refreshNow();
    QCOMPARE(c->visibleGraphPoints("v100"), 0);
    c->plot()->replot(QCustomPlot::rpImmediateRefresh);
    for (int i = 0; i < legend->itemCount(); ++i) {
      auto* item = qobject_cast<QCPPlottableLegendItem*>(legend->item(i));
      if (item && item->plottable()->property("seriesKey").toString() == key) target = item;
    }
    QTest::mouseClick(c->plot(), Qt::LeftButton, {}, target->outerRect().center());
    QVERIFY(!c->isSeriesHidden(key));
    QCOMPARE(c->visibleGraphPoints("v100"), 3);
  }

  void logYFollowsTheSpanUntilTheUserChooses() {
    ChartBase* c = m_deck->chart("epoch_time");
    QVERIFY(c->supportsLogY());
    auto* box = c->findChild<QCheckBox*>();
    QVERIFY(box);
    QCPAxis* y = c->plot()->axisRect()->axis(QCPAxis::atLeft);
    // Epoch times span 0.06 s (TPU) … 2.7 s (host), 45×: log-y comes on by itself.
    QVERIFY(c->logY() && box->isChecked());
    QCOMPARE(y->scaleType(), QCPAxis::stLogarithmic);
    QVERIFY(y->range().lower > 0);
    QVERIFY(y->range().lower < 0.06 && y->range().upper > 2.7);
    // Throughput spans 2,560 … 42,667 images/s (17×): stays linear.
    ChartBase* tp = m_deck->chart("throughput");
    QCOMPARE(tp->plot()->axisRect()->axis(QCPAxis::atLeft)->scaleType(), QCPAxis::stLinear);
    // The user's choice wins and sticks through new data.
    box->click();
    QVERIFY(!c->logY());
    QCOMPARE(y->scaleType(), QCPAxis::stLinear);
    m_store->appendSamples(m_runId, {}, {core::experiment::EpochSample{}});
    c->refreshNow();
    QCOMPARE(y->scaleType(), QCPAxis::stLinear);
    box->click();
    QCOMPARE(y->scaleType(), QCPAxis::stLogarithmic);
    QVERIFY(!m_deck->chart("accuracy")->supportsLogY());
    // The choice is remembered per chart: a new window's chart starts where the user left it,
    // and no longer switches by itself.
    box->click();  // linear, though the data span 45x
    ChartDeck again(m_store);
    again.refreshAll();
    QVERIFY(!again.chart("epoch_time")->logY());
    QCOMPARE(again.chart("epoch_time")->plot()->axisRect()->axis(QCPAxis::atLeft)->scaleType(), QCPAxis::stLinear);
  }

  void aSimulatedLegendCarriesTheMeasuredErrorBand() {
    widgets::DeviceResult d;
    d.deviceId = "p100";
    d.label = "p100 (simulated)";
    QCOMPARE(widgets::deviceLabel(d), QString("p100 (simulated)"));
    d.errorBand = QString::fromUtf8("±9%");
    QCOMPARE(widgets::deviceLabel(d), QString::fromUtf8("p100 (simulated ±9%)"));
    d.measured = true;  // a measured figure has no simulator band
    QCOMPARE(widgets::deviceLabel(d), QString("p100 (measured)"));
  }

  void barChartsStayLinearUntilTheUserChoosesLog() {
    // Log bars exaggerate differences (11% looked 1.4x): bars never switch by themselves,
    // whatever the span. Spread the throughput bars 1000x to be sure.
    ChartBase* tp = m_deck->chart("throughput");
    widgets::Run* r = m_store->run(m_runId);
    QVector<widgets::DeviceResult> devices = r->devices;
    for (int i = 0; i < devices.size(); ++i) devices[i].report.imagesPerSecond = std::pow(10.0, 2 * i);  // 100 and 10,000 beside the host
    m_store->setDevices(m_runId, devices);
    tp->refreshNow();
    QVERIFY(!tp->logY());
    QCOMPARE(tp->plot()->axisRect()->axis(QCPAxis::atLeft)->scaleType(), QCPAxis::stLinear);
    tp->setLogY(true);
    QCOMPARE(tp->plot()->axisRect()->axis(QCPAxis::atLeft)->scaleType(), QCPAxis::stLogarithmic);
  }

  void hoverShowsExactValues() {
    ChartBase* c = m_deck->chart("epoch_time");
    c->resize(900, 600);
    c->plot()->replot(QCustomPlot::rpImmediateRefresh);
    QCPGraph* v100 = nullptr;
    for (int i = 0; i < c->plot()->graphCount(); ++i)
      if (c->plot()->graph(i)->property("deviceId").toString() == "v100") v100 = c->plot()->graph(i);
    QVERIFY(v100);
    const double x = v100->keyAxis()->coordToPixel(2);
    const double y = v100->valueAxis()->coordToPixel(0.08);
    const QString text = c->hoverText(QPointF(x, y));
    QVERIFY2(text.contains("4× v100"), qPrintable(text));
    QVERIFY2(text.contains("epoch 2"), qPrintable(text));
    QVERIFY2(text.contains("0.08 s"), qPrintable(text));
    // The other devices' values at epoch 2 come with it, one line each.
    QVERIFY2(text.contains("this machine (measured): ") && text.contains("tpu-v2-8"), qPrintable(text));
    QCOMPARE(text.count('\n'), 2 + 1 + 2);   // the nearest (3 lines), a blank line, 2 others
    QVERIFY(c->hoverText(QPointF(2, 2)).isEmpty());
  }

  void logBarsKeepTheirValues() {
    ChartBase* c = m_deck->chart("throughput");
    c->resize(900, 600);
    c->setLogY(true);
    c->plot()->replot(QCustomPlot::rpImmediateRefresh);
    QCPAxis* y = c->plot()->axisRect()->axis(QCPAxis::atLeft);
    QVERIFY(y->range().lower > 1000 && y->range().upper > 42667);   // fitted to the bars alone
    QCPBars* v100 = nullptr;
    for (int i = 0; i < c->plot()->plottableCount(); ++i)
      if (auto* bars = qobject_cast<QCPBars*>(c->plot()->plottable(i));
          bars && bars->property("deviceId").toString() == "v100")
        v100 = bars;
    QVERIFY(v100);
    // Bars on a log axis grow from the axis bottom; their top and hover stay at the value.
    const double key = v100->data()->begin()->key;
    const QPointF top(v100->keyAxis()->coordToPixel(key), y->coordToPixel(8000));
    const QString text = c->hoverText(top);
    QVERIFY2(text.contains("32,000 images/s"), qPrintable(text));
    QCOMPARE(v100->data()->begin()->value + v100->baseValue(), 32000.0);
    c->fitToData();
    c->fitToData();
    QVERIFY(y->range().lower > 1000);   // fitting again does not drift
  }

  void outOfMemoryDevicesAreShownAsSuch() {
    Run run = testdata::syntheticRun();
    run.devices.push_back(testdata::device("k80", 1, false, 0.02, 0.7, /*fits=*/false));
    m_store->clear();
    m_store->addRun(run);
    m_deck->refreshAll();
    const auto tp = m_deck->chart("throughput")->series();
    const Series* k80 = findSeries(tp, "images_per_second", "k80");
    QVERIFY(k80);
    QCOMPARE(k80->note, QString("out of memory"));
    QVERIFY(!std::isfinite(k80->y.value(0)));   // not a zero bar
    QVERIFY2(m_deck->chart("epoch_time")->notes().contains("Does not fit in memory at this batch: k80"),
             qPrintable(m_deck->chart("epoch_time")->notes()));
    QCOMPARE(findSeries(m_deck->chart("cost")->series(), "usd_per_run", "k80")->note,
             QString("out of memory"));
  }

  void sweepMarksOutOfMemoryAndNamesTheCrossover() {
    auto* sweep = m_deck->sweepChart();
    const auto all = sweep->series();
    const Series* oom = findSeries(all, "out_of_memory", "v100");
    QVERIFY(oom);
    QCOMPARE(oom->x, QVector<double>{1024});
    const Series* gpu = findSeries(all, "images_per_second", "v100");
    QCOMPARE(gpu->x.size(), 6);   // 16 … 512
    QCOMPARE(sweep->plot()->axisRect()->axis(QCPAxis::atBottom)->scaleType(), QCPAxis::stLogarithmic);
    QVERIFY2(sweep->notes().contains("Fastest: v100") && sweep->notes().contains("tpu-v2-8"),
             qPrintable(sweep->notes()));
    // The crosses have a legend entry.
    sweep->refreshNow();
    QStringList legend;
    for (int i = 0; i < sweep->plot()->legend->itemCount(); ++i)
      if (auto* item = qobject_cast<QCPPlottableLegendItem*>(sweep->plot()->legend->item(i)))
        legend << item->plottable()->name();
    QVERIFY2(legend.contains("does not fit in memory"), qPrintable(legend.join(" | ")));
    // Two devices out of memory at the same batch: their crosses on different rows.
    auto reports = testdata::sweepReports();
    for (auto& r : reports)
      if (r.config.batch == 1024) r.fitsInMemory = false;
    sweep->setReports(reports);
    sweep->refreshNow();
    QSet<double> rows;
    for (int i = 0; i < sweep->plot()->itemCount(); ++i)
      if (auto* t = qobject_cast<QCPItemText*>(sweep->plot()->item(i)); t && t->text() == QStringLiteral("✕"))
        rows.insert(t->position->coords().y());
    QCOMPARE(rows.size(), 2);
    sweep->setMetric(SweepChart::Metric::UsdPerMillionImages);
    QVERIFY(findSeries(sweep->series(), "usd_per_million_images", "tpu-v2-8"));
  }

  void timeToAccuracyNamesWhereTheTargetIsReached() {
    auto* accuracy = static_cast<AccuracyChart*>(m_deck->chart("accuracy"));
    accuracy->setAxis(AccuracyChart::Axis::Seconds);
    const auto all = accuracy->series();
    const Series* tpu = findSeries(all, "test_accuracy_vs_seconds", "tpu-v2-8");
    QVERIFY(tpu);
    // Test accuracy 68%, 78%, 88%: 80% is reached in epoch 3, after 0.18 + 0.06 + 0.06 s.
    QVERIFY2(tpu->label.contains("80.0% at"), qPrintable(tpu->label));
    QCOMPARE(reachedAtSeconds({1, 2, 3}, {0.5, 0.7, 0.9}, 0.8), 3.0);
    QVERIFY(std::isnan(reachedAtSeconds({1, 2}, {0.5, 0.7}, 0.8)));
  }

  void smoothingIsADebiasedEma() {
    const QVector<double> flat(10, 2.0);
    for (double v : debiasedEma(flat, 0.9)) QCOMPARE(v, 2.0);   // no pull towards zero
    QCOMPARE(debiasedEma({1, 3}, 0.0), (QVector<double>{1, 3}));
    const auto s = debiasedEma({1, 3}, 0.5);
    QCOMPARE(s[0], 1.0);
    QCOMPARE(s[1], (0.5 * 0.5 + 0.5 * 3) / 0.75);
    QVERIFY(std::isnan(debiasedEma({1, NAN, 3}, 0.5)[1]));
    auto* loss = static_cast<BatchLossChart*>(m_deck->chart("batch_loss"));
    loss->setSmoothing(0.9);
    loss->refreshNow();
    QVERIFY(findSeries(loss->series(), "batch_loss_smoothed", "")->label.contains("0.90"));
  }

  void breakdownStacksEveryPartAndSaysWhatBinds() {
    auto* c = static_cast<BreakdownChart*>(m_deck->chart("breakdown"));
    const auto all = c->series();
    QCOMPARE(all.size(), 15);   // 3 devices × 5 parts
    QVERIFY(c->showShare());    // proportions first: devices 100× apart stay readable
    QCOMPARE(findSeries(all, "memory_share", "v100")->y.value(0), 30.0);
    QVERIFY(c->notes().contains("compute-bound"));
    c->setShowShare(false);
    QVERIFY(findSeries(c->series(), "compute_ms", "v100"));
    QCOMPARE(findSeries(c->series(), "compute_ms", "v100")->y.value(0), 2.0);
    QCOMPARE(c->visibleGraphPoints(), 15);
  }

  void hiddenRunsLeaveTheCharts() {
    Run second = testdata::syntheticRun();
    second.name = "second";
    const int id2 = m_store->addRun(second);
    m_deck->refreshAll();
    ChartBase* c = m_deck->chart("epoch_time");
    QCOMPARE(c->visibleGraphPoints("v100"), 6);
    QVERIFY(c->series().front().label.startsWith("#"));   // runs told apart when overlaid
    m_store->setVisible(id2, false);
    c->refreshNow();
    QCOMPARE(c->visibleGraphPoints("v100"), 3);
  }

  void overlaidRunsShareDeviceAndRunEntries() {
    Run second = testdata::syntheticRun();
    second.name = "second";
    const int id2 = m_store->addRun(second);
    ChartBase* c = m_deck->chart("epoch_time");
    c->refreshNow();
    // 3 devices + 2 runs + published, instead of 2 × 3 device lines.
    QStringList keys = c->seriesKeys();
    QCOMPARE(keys.size(), 6);
    QVERIFY(keys.contains("device:v100"));
    QCOMPARE(keys.mid(4, 2), (QStringList{QString("run:%1").arg(m_runId), QString("run:%1").arg(id2)}));
    c->setSeriesHidden("device:v100", true);   // what a click on the entry does
    QCOMPARE(c->visibleGraphPoints("v100"), 0);
    QCOMPARE(c->visibleGraphPoints("tpu-v2-8"), 6);
    c->setSeriesHidden("device:v100", false);
    c->setSeriesHidden(QString("run:%1").arg(id2), true);
    QCOMPARE(c->visibleGraphPoints("v100"), 3);
    QCOMPARE(c->visibleGraphPoints(), 9);
    // Bar charts do the same.
    ChartBase* tp = m_deck->chart("throughput");
    tp->refreshNow();
    QCOMPARE(tp->seriesKeys().size(), 6);
  }

  // A run with nothing on a chart (it diverged before its first epoch) is not in its legend.
  void aRunWithNothingDrawnIsLeftOutOfTheLegend() {
    Run empty = testdata::syntheticRun();
    empty.name = "diverged";
    empty.epochs.clear();
    for (auto& d : empty.devices) d.epochSeconds.clear();
    const int id2 = m_store->addRun(empty);
    ChartBase* c = m_deck->chart("epoch_time");
    c->refreshNow();
    const QStringList keys = c->seriesKeys();
    QVERIFY2(keys.contains(QString("run:%1").arg(m_runId)), qPrintable(keys.join(", ")));
    QVERIFY2(!keys.contains(QString("run:%1").arg(id2)), qPrintable(keys.join(", ")));
  }

  void redrawsAreCoalesced() {
    ChartBase* c = m_deck->chart("batch_loss");
    QTest::qWait(60);   // let pending refreshes run
    int count = 0;
    connect(c, &ChartBase::refreshed, this, [&count] { ++count; });
    for (int i = 0; i < 200; ++i) {
      core::experiment::BatchSample b;
      b.step = 100 + i;
      b.loss = 1.0;
      m_store->appendSamples(m_runId, {b}, {});
    }
    QCOMPARE(count, 0);   // nothing redrawn per sample
    QTRY_COMPARE_WITH_TIMEOUT(count, 1, 1000);
    QTest::qWait(80);
    QCOMPARE(count, 1);
  }

  // Streaming: a new batch appends its points to the lines already drawn (same graphs,
  // addData) instead of drawing every line again, and the legend reads as if drawn afresh.
  void newPointsAreAppendedToTheLinesAlreadyDrawn() {
    ChartBase* c = m_deck->chart("batch_loss");
    c->refreshNow();
    QVector<QCPGraph*> before;
    int pointsBefore = 0;
    for (int i = 0; i < c->plot()->graphCount(); ++i) {
      before << c->plot()->graph(i);
      pointsBefore += c->plot()->graph(i)->dataCount();
    }
    QVERIFY(!before.isEmpty());
    const widgets::Run* run = m_store->run(m_runId);
    std::int64_t step = run->batches.back().step;
    std::vector<core::experiment::BatchSample> more;
    for (int i = 0; i < 5; ++i) {
      core::experiment::BatchSample b = run->batches.back();
      b.step = ++step;
      b.loss *= 0.99;
      more.push_back(b);
    }
    m_store->appendSamples(m_runId, more, {});
    c->refreshNow();
    QCOMPARE(c->lastRedrawnLines(), 0);
    QCOMPARE(c->lastAppendedPoints(), 5 * 2);   // the raw and the smoothed line
    QVector<QCPGraph*> after;
    int pointsAfter = 0;
    for (int i = 0; i < c->plot()->graphCount(); ++i) {
      after << c->plot()->graph(i);
      pointsAfter += c->plot()->graph(i)->dataCount();
    }
    for (QCPGraph* g : before) QVERIFY(after.contains(g));
    QCOMPARE(pointsAfter, pointsBefore + 10);
    // Nothing new: nothing appended, nothing redrawn.
    c->refreshNow();
    QCOMPARE(c->lastAppendedPoints(), 0);
    QCOMPARE(c->lastRedrawnLines(), 0);
    // A second run's lines are new; the legend is in the order a fresh chart gives.
    m_store->addRun(testdata::syntheticRun());
    for (ChartBase* chart : m_deck->charts()) chart->refreshNow();
    ChartDeck fresh(m_store);
    fresh.sweepChart()->setReports(testdata::sweepReports());
    fresh.resize(1200, 900);
    fresh.refreshAll();
    for (ChartBase* chart : m_deck->charts())
      QVERIFY2(chart->seriesKeys() == fresh.chart(chart->chartId())->seriesKeys(), qPrintable(chart->chartId()));
  }

  // A published epoch time is the article's full epoch: on a subset the steady figure is
  // drawn per image at the subset's size, a first-epoch figure as its warm-up plus that, and
  // each label says so. (The subset's own run is what they are drawn beside.)
  void publishedEpochTimesScaleWithTheSubset() {
    widgets::Run run = testdata::syntheticRun();
    run.config.datasetId = "fashion-mnist";   // 60,000 training images
    run.config.limit = 6000;                  // a tenth
    run.references = {
        {"epoch_time", "k80", NAN, 14.3, "published 14.3 s/epoch"},
        {"epoch_time", "k80", 1, 15.5, "published 15.5 s"},
        {"epoch_time", "tpu-v2-8", 1, 0.5, "published: TPU 1st epoch"},   // no steady figure
    };
    m_store->clear();
    m_store->addRun(run);
    QVector<Series> published;
    for (const Series& s : m_deck->chart("epoch_time")->series())
      if (s.source == SeriesSource::Reference) published << s;
    QCOMPARE(published.size(), 3);
    QVERIFY(std::abs(published[0].y[0] - 1.43) < 1e-9);
    QVERIFY2(published[0].label.contains("→ 1.43 s at 6,000 images"), qPrintable(published[0].label));
    QVERIFY(std::abs(published[1].y[0] - (15.5 - 14.3 + 1.43)) < 1e-9);
    QCOMPARE(published[2].y[0], 0.5);
    QVERIFY2(published[2].label.contains("full epoch of 60,000"), qPrintable(published[2].label));
    // The whole data set: drawn as published.
    run.config.limit = 0;
    m_store->clear();
    m_store->addRun(run);
    for (const Series& s : m_deck->chart("epoch_time")->series())
      if (s.source == SeriesSource::Reference) QVERIFY(!s.label.contains(QStringLiteral("→")));
  }

  // A published whole-run average (compilation included) is set beside the simulated device's
  // figure for a run of the same images, not beside its steady bar.
  void aWholeRunFigureIsComparedWithASimulatedWholeRun() {
    widgets::Run run = testdata::syntheticRun();
    widgets::ReferenceMark whole{"throughput", "tpu-v2-8", NAN, 12800, "published ≤12,800 img/s (whole run)"};
    whole.measures = "whole_run";
    whole.runImages = 512000;
    run.references = {whole};
    m_store->clear();
    m_store->addRun(run);
    const widgets::DeviceResult& tpu = run.devices[2];
    QCOMPARE(tpu.deviceId, QString("tpu-v2-8"));
    const double warmUp = tpu.report.firstEpochSeconds - tpu.report.epochSeconds;
    const double expected = 512000 / (warmUp + 512000 / tpu.report.imagesPerSecond);
    int found = 0;
    for (const Series& s : m_deck->chart("throughput")->series()) {
      if (s.name != "whole_run_images_per_second") continue;
      ++found;
      QCOMPARE(s.deviceId, QString("tpu-v2-8"));
      QVERIFY(std::abs(s.y[0] - expected) < 1e-6 * expected);
      QVERIFY(s.y[0] < tpu.report.imagesPerSecond || warmUp <= 0);
    }
    QCOMPARE(found, 1);
  }

private:
  RunStore* m_store = nullptr;
  ChartDeck* m_deck = nullptr;
  int m_runId = 0;
};

QTEST_MAIN(TestCharts)
#include "test_charts.moc"
