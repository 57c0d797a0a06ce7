// The charts as they look: series colours that read on both themes, the theme and the
// presentation scale, empty charts that say why, legends that leave the plot its room, and the
// deck's layouts (one chart maximised, a chosen set that fits without scrolling). The data and
// interaction tests are in test_charts.cpp.
#include <qcustomplot.h>

#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QtTest>

#include "synthetic_run.h"
#include "widgets/chart_base.h"
#include "widgets/chart_deck.h"
#include "widgets/palette.h"
#include "widgets/run_data.h"

using namespace widgets;

class TestChartLayout : public QObject {
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

  // Every series on every chart reads on its background: ≥ 4.5:1 on the dark theme (the
  // measured host most of all), ≥ 3:1 on the light one. Computed from the drawn pens and
  // brushes, translucent ones blended with the background first.
  void everySeriesColourHasEnoughContrast() {
    widgets::Run second = testdata::syntheticRun();
    m_store->addRun(second);   // two runs: run entries and hatched bars too
    for (ChartTheme theme : {ChartTheme::Dark, ChartTheme::Light}) {
      m_deck->setTheme(theme);
      m_deck->refreshAll();
      const QColor bg = chartColors(theme).background;
      const double bar = theme == ChartTheme::Dark ? kDarkSeriesContrast : kLightSeriesContrast;
      auto blended = [&bg](QColor c) {
        const double a = c.alphaF();
        return QColor::fromRgbF(static_cast<float>(c.redF() * a + bg.redF() * (1 - a)),
                                static_cast<float>(c.greenF() * a + bg.greenF() * (1 - a)),
                                static_cast<float>(c.blueF() * a + bg.blueF() * (1 - a)));
      };
      int checked = 0;
      for (ChartBase* chart : m_deck->charts()) {
        QCustomPlot* plot = chart->plot();
        for (int i = 0; i < plot->plottableCount(); ++i) {
          QCPAbstractPlottable* p = plot->plottable(i);
          QColor c = qobject_cast<QCPBars*>(p) ? p->brush().color() : p->pen().color();
          if (auto* g = qobject_cast<QCPGraph*>(p); g && g->lineStyle() == QCPGraph::lsNone)
            c = g->scatterStyle().pen().color();   // markers only (published stars, raw points)
          const double ratio = contrastRatio(blended(c), bg);
          QVERIFY2(ratio >= bar - 1e-9, qPrintable(QString("%1 on %2: %3 (%4) has %5:1")
                                                        .arg(p->name(), chart->chartId(), blended(c).name())
                                                        .arg(theme == ChartTheme::Dark ? "dark" : "light")
                                                        .arg(ratio, 0, 'f', 2)));
          ++checked;
        }
      }
      QVERIFY(checked > 40);
    }
    QCOMPARE(deviceColor("host", ChartTheme::Dark), chartColors(ChartTheme::Dark).text);
    QVERIFY(contrastRatio(deviceColor("host", ChartTheme::Dark), chartColors(ChartTheme::Dark).background) > 10);
  }

  void themeSwitchChangesThePlotBackground() {
    ChartBase* c = m_deck->chart("throughput");
    auto corner = [c] { return c->plot()->toPixmap(400, 300).toImage().pixelColor(3, 3); };
    QVERIFY(corner().lightness() > 200);
    m_deck->setTheme(ChartTheme::Dark);
    QVERIFY(corner().lightness() < 60);
    QCOMPARE(c->plot()->xAxis->tickLabelColor(), chartColors(ChartTheme::Dark).text);
    m_deck->setTheme(ChartTheme::Light);
    QVERIFY(corner().lightness() > 200);
  }

  void presentationScaleEnlargesFonts() {
    ChartBase* c = m_deck->chart("epoch_time");
    const double before = c->plot()->xAxis->tickLabelFont().pointSizeF();
    m_deck->setPresentationScale(1.6);
    QCOMPARE(c->plot()->xAxis->tickLabelFont().pointSizeF(), before * 1.6);
  }

  void emptyChartsSayWhy() {
    m_store->clear();
    m_deck->refreshAll();
    ChartBase* c = m_deck->chart("accuracy");
    QCOMPARE(c->visibleGraphPoints(), 0);
    QCPItemText* note = nullptr;
    for (int i = 0; i < c->plot()->itemCount(); ++i)
      if (c->plot()->item(i)->objectName() == "emptyNote") note = qobject_cast<QCPItemText*>(c->plot()->item(i));
    QVERIFY(note);
    QVERIFY(note->text().contains("No finished epochs"));
    QVERIFY(!c->plot()->legend->visible());   // no empty legend frame
    // No chart shows axes without data: not a single scale, on any chart of the deck.
    for (ChartBase* chart : m_deck->charts()) {
      if (chart->visibleGraphPoints() > 0) continue;
      for (QCPAxisRect* rect : chart->plot()->axisRects())
        for (QCPAxis* a : rect->axes()) {
          QVERIFY2(!a->visible(), qPrintable(chart->chartId() + " shows an axis without data"));
          QVERIFY2(!a->grid()->visible(), qPrintable(chart->chartId() + " shows grid lines without data"));
        }
    }
    // Data again: the axes come back as the chart had them.
    m_store->addRun(testdata::syntheticRun());
    m_deck->refreshAll();
    QVERIFY(c->visibleGraphPoints() > 0);
    QVERIFY(c->plot()->xAxis->visible() && c->plot()->yAxis->visible());
    QVERIFY(c->plot()->yAxis->grid()->visible());
    m_store->clear();
    m_deck->refreshAll();
    // …and the plot still spans the whole width (an emptied legend cell once capped it).
    m_deck->show();
    m_deck->maximise(c);
    QVERIFY(QTest::qWaitForWindowExposed(m_deck));
    c->plot()->replot(QCustomPlot::rpImmediateRefresh);
    QVERIFY(c->plot()->width() > 300);
    QVERIFY(c->plot()->axisRect()->outerRect().width() > c->plot()->width() - 10);
  }

  void oversizedLegendMakesRoomForThePlot() {
    for (int i = 0; i < 7; ++i) m_store->addRun(testdata::syntheticRun());
    ChartBase* c = m_deck->chart("epoch_time");
    m_deck->show();
    m_deck->maximise(c);
    QVERIFY(QTest::qWaitForWindowExposed(m_deck));
    m_deck->resize(420, 360);   // a small chart: 3 devices + 8 runs cannot fit below it
    QCoreApplication::processEvents();
    c->refreshNow();
    c->plot()->replot(QCustomPlot::rpImmediateRefresh);
    QVERIFY(!c->legendShown());
    QVERIFY(c->plot()->axisRect()->outerRect().width() > c->plot()->width() - 10);
    QVERIFY(c->plot()->toolTip().contains("maximise"));
    // The legend is not gone: it flows as a key under the plot, every entry named, the runs
    // by their number.
    const QString key = c->legendKeyText();
    QVERIFY2(key.contains("this machine (measured)") && key.contains("(simulated"), qPrintable(key));
    for (const widgets::Run& r : m_store->runs()) QVERIFY2(key.contains(QStringLiteral("#%1").arg(r.id)), qPrintable(key));
    // A name is never broken at its hyphens (Qt's rich text would wrap "tpu-v5e-8" there).
    QVERIFY2(key.contains(QStringLiteral("tpu") + QChar(0x2011) + QStringLiteral("v2")) && !key.contains("tpu-v2"),
             qPrintable(key));
    // Exported at full size, the legend is in the plot and the key is not needed.
    c->layoutForSize(QSize(1000, 620));
    QVERIFY(c->legendShown());
    QVERIFY(c->legendKeyText().isEmpty());
    c->layoutForSize(c->plot()->size());
    QVERIFY(!c->legendShown());
    QVERIFY(!c->legendKeyText().isEmpty());
  }

  void maximiseShowsOneChart() {
    m_deck->show();
    ChartBase* c = m_deck->chart("cost");
    m_deck->maximise(c);
    QVERIFY(c->isVisible());
    QVERIFY(!m_deck->chart("epoch_time")->isVisible());
    m_deck->maximise(nullptr);
    QVERIFY(m_deck->chart("epoch_time")->isVisible());
  }

  // A chosen set of charts: only those in the grid, and four of them fit a deck of the height
  // a 1280x800 window leaves, without a scroll bar and without squeezing below the fit height.
  void aChosenChartSetFitsWithoutScrolling() {
    m_deck->resize(780, 560);
    m_deck->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_deck));
    const QStringList four{"epoch_time", "accuracy", "throughput", "cost"};
    QSignalSpy changed(m_deck, &ChartDeck::shownChartsChanged);
    m_deck->setShownCharts({"cost", "accuracy", "epoch_time", "throughput", "no-such-chart"});
    QCOMPARE(changed.count(), 1);
    QCOMPARE(m_deck->shownCharts(), four);  // display order, unknown ids dropped
    QVERIFY(!m_deck->chart("sweep")->isVisible());
    QVERIFY(!m_deck->chart("breakdown")->isVisible());
    auto* scroll = m_deck->findChild<QScrollArea*>();
    QVERIFY(scroll);
    QTRY_VERIFY(!scroll->verticalScrollBar()->isVisible());
    for (const QString& id : four) {
      ChartBase* c = m_deck->chart(id);
      QVERIFY(c->isVisible());
      QVERIFY2(c->height() >= 250, qPrintable(id + " squeezed to " + QString::number(c->height())));
      QVERIFY(c->geometry().bottom() <= scroll->viewport()->height());
    }
    // All eight do not fit: they keep their usual height and the deck scrolls.
    m_deck->setShownCharts({});
    QCOMPARE(m_deck->shownCharts().size(), m_deck->charts().size());
    QTRY_VERIFY(scroll->verticalScrollBar()->isVisible());
    QVERIFY(m_deck->chart("sweep")->height() >= 400);
  }

  // A simulation-only run: the grid is its charts, not half "no finished epochs yet"; the
  // measured-only charts come back with a run that trains here, and the user's choice of
  // charts is untouched.
  void aSimulationOnlyRunLeavesOutTheMeasuredCharts() {
    m_deck->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_deck));
    m_store->clear();
    widgets::Run simulated = testdata::syntheticRun();
    simulated.epochs.clear();
    simulated.devices.removeIf([](const widgets::DeviceResult& d) { return d.measured; });
    m_store->addRun(simulated);
    for (const char* id : {"accuracy", "batch_loss", "host_check"}) {
      QTRY_VERIFY2(!m_deck->chart(id)->isVisible(), id);
      QVERIFY(m_deck->isShown(m_deck->chart(id)));   // still chosen in View > Charts Shown
    }
    for (const char* id : {"epoch_time", "throughput", "cost", "breakdown", "sweep"})
      QVERIFY2(m_deck->chart(id)->isVisible(), id);
    m_store->addRun(testdata::syntheticRun());
    for (const char* id : {"accuracy", "batch_loss", "host_check"}) QTRY_VERIFY2(m_deck->chart(id)->isVisible(), id);
  }

private:
  RunStore* m_store = nullptr;
  ChartDeck* m_deck = nullptr;
  int m_runId = 0;
};

QTEST_MAIN(TestChartLayout)
#include "test_chart_layout.moc"
