// Every preset's published comparisons, re-computed the way the Guide does (the preset's own
// settings and devices, its stack). One data row per preset (CTest runs each preset as its own
// test, app.preset.<id>): every row agrees within its tolerance or carries its known cause,
// and every figure the guide states is one of the comparisons' own. A last function prints
// the whole table and holds the number of agreeing rows at least where it is.
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <cmath>

#include "app/gui/comparisons.h"
#include "app/gui/guide_panel.h"
#include "widgets/run_store.h"
#include "widgets/palette.h"
#include "app/gui/preset.h"
#include "app/gui/sim_service.h"
#include "app_test_env.h"

using namespace app::gui;

namespace {

struct Evaluated {
  const Preset* preset = nullptr;
  QVector<ComparisonResult> results;
};

// As the Guide does: the chosen devices' settings, any other device at its defaults, each
// under the preset's stack.
QVector<ComparisonResult> evaluate(const SimService& sim, const Preset& p) {
  QVector<core::experiment::DeviceChoice> devices(p.experiment.devices.begin(), p.experiment.devices.end());
  for (const Comparison& c : p.comparisons)
    for (const std::string& id : {c.device.deviceId, c.versus.deviceId}) {
      if (id.empty()) continue;
      const bool chosen = std::any_of(devices.begin(), devices.end(), [&](const auto& d) { return d.deviceId == id; });
      if (!chosen) {
        core::experiment::DeviceChoice d;
        d.deviceId = id;
        devices << d;
      }
    }
  for (auto& d : devices) d.stackId = core::experiment::stackFor(p.experiment, d);
  QVector<ComparisonResult> out;
  for (const Comparison& c : p.comparisons) out << evaluateComparison(sim, c, p.experiment.train, devices);
  return out;
}

}  // namespace

class TestPresetComparisons : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;
  PresetLibrary m_lib;

private slots:
  void initTestCase() {
    app_test::isolate(m_dir);
    m_lib.load(PresetLibrary::builtinFolder(), QString());
    QVERIFY2(m_lib.errors().isEmpty(), qPrintable(m_lib.errors().join('\n')));
    QVERIFY(m_lib.presets().size() >= 6);
  }

  void presetTellsOneStory_data() {
    QTest::addColumn<QString>("id");
    for (const Preset& p : m_lib.presets()) QTest::newRow(qPrintable(p.id)) << p.id;
  }

  void presetTellsOneStory() {
    QFETCH(QString, id);
    const Preset* p = m_lib.find(id);
    QVERIFY(p);
    const SimService sim;
    const QVector<ComparisonResult> results = evaluate(sim, *p);
    // 1. Every row agrees within its tolerance, or says why it does not.
    for (qsizetype i = 0; i < p->comparisons.size(); ++i) {
      const Comparison& c = p->comparisons[i];
      const ComparisonResult& r = results[i];
      QVERIFY2(r.ok, qPrintable(QString::fromStdString(c.label) + ": " + r.text));
      const QString line = QStringLiteral("%1: published %2, AccelLab %3, error %4, tolerance ±%5%")
                               .arg(QString::fromStdString(c.label), publishedText(c), r.text, errorText(r.error))
                               .arg(100 * c.toleranceOrDefault(), 0, 'f', 0);
      QVERIFY2(r.agrees || !c.explanation.empty(), qPrintable(line + " disagrees and gives no known cause"));
    }
    // 2. Every figure the guide states ("≈100×", "448×") is one of the rows' own, published
    //    or computed: no hand-typed number contradicts the table and the charts.
    const QString guide = renderGuideText(p->explanation, p->comparisons, results);
    QVERIFY2(!guide.contains('{') && !guide.contains(QStringLiteral("…")), qPrintable(guide));
    QStringList figures;
    for (qsizetype i = 0; i < p->comparisons.size(); ++i) figures << publishedText(p->comparisons[i]) << results[i].text;
    static const QRegularExpression ratio(QStringLiteral("≈?\\d[\\d.,]*×"));
    auto it = ratio.globalMatch(guide);
    while (it.hasNext()) {
      const QString figure = it.next().captured(0);
      QVERIFY2(figures.contains(figure), qPrintable(QStringLiteral("the guide of %1 states %2, which no comparison gives (%3)")
                                                       .arg(id, figure, figures.join(", "))));
    }
  }

  // The Error column's colours (agrees, known cause, disagrees) read at 4.5:1 in both themes,
  // and follow a theme change.
  void errorColoursAreReadableInBothThemes() {
    const Preset* p = m_lib.find("E3");
    QVERIFY(p);
    const SimService sim;
    GuidePanel guide;
    guide.setPreset(p);
    guide.setResults(evaluate(sim, *p));
    for (const QColor base : {QColor(255, 255, 255), QColor(30, 30, 33)}) {
      QPalette pal = guide.palette();
      pal.setColor(QPalette::Base, base);
      guide.setPalette(pal);
      QCOMPARE(guide.tableBase(), base);
      for (int row = 0; row < guide.comparisonRows(); ++row) {
        const double ratio = widgets::contrastRatio(guide.errorColor(row), base);
        QVERIFY2(ratio >= 4.5, qPrintable(QStringLiteral("row %1 (%2): %3:1 on %4").arg(row).arg(guide.errorValue(row))
                                              .arg(ratio, 0, 'f', 2).arg(base.name())));
      }
    }
  }

  // The This-run column: the same figure off a run's own devices, and no figure where the row's
  // sides are not the run's (E4's 32 vs 64 vCPUs is not one CPU against itself).
  void theRunColumnReadsTheRunsOwnDevices() {
    const Preset* p = m_lib.find("E4");
    QVERIFY(p);
    widgets::Run run;
    run.presetId = p->id;
    run.config = p->experiment.train;
    run.status = core::experiment::RunStatus::Finished;
    auto device = [](const char* id, int vcpus, double seconds) {
      widgets::DeviceResult d;
      d.deviceId = id;
      d.vcpus = vcpus;
      d.report.fitsInMemory = true;
      d.epochSeconds = {seconds, seconds};
      return d;
    };
    run.devices = {device("k80", 0, 10.0), device("cpu-skylake", 16, 25.0)};
    const ComparisonResult k80 = comparisonOnRun(p->comparisons[0], run);   // K80 vs 16 vCPUs
    QVERIFY2(k80.ok, qPrintable(k80.detail));
    QCOMPARE(k80.value, 2.5);
    const ComparisonResult cpus = comparisonOnRun(p->comparisons[1], run);  // 32 vs 64 vCPUs
    QVERIFY(!cpus.ok);
    QVERIFY2(cpus.detail.contains("32 vCPUs"), qPrintable(cpus.detail));
    run.devices[1].report.fitsInMemory = false;
    const ComparisonResult oom = comparisonOnRun(p->comparisons[0], run);
    QVERIFY(!oom.ok && oom.text.contains("out of memory"));
  }

  // The whole table, for the note, and a ratchet on the agreeing rows.
  void tableOfAllPresets() {
    const SimService sim;
    int rows = 0, agree = 0;
    for (const Preset& p : m_lib.presets()) {
      const QVector<ComparisonResult> results = evaluate(sim, p);
      for (qsizetype i = 0; i < p.comparisons.size(); ++i) {
        const Comparison& c = p.comparisons[i];
        const ComparisonResult& r = results[i];
        ++rows;
        agree += r.agrees;
        qInfo("%s | %s | published %s | AccelLab %s | error %s | tolerance ±%.0f%% | %s%s", qPrintable(p.id),
              c.label.c_str(), qPrintable(publishedText(c)), qPrintable(r.text), qPrintable(errorText(r.error)),
              100 * c.toleranceOrDefault(), r.agrees ? "agrees" : "DISAGREES",
              r.agrees || c.explanation.empty() ? "" : (" (why: " + c.explanation + ")").c_str());
      }
    }
    qInfo("%d of %d comparison rows agree within their tolerance", agree, rows);
    QVERIFY(rows > 0);
    // The bar: 80% of the rows agree without an explanation (13 of 16 since 2026-11-26, when the
    // Kaggle CPU rows got their reading and keras-2020 its own CPU efficiency). Raise the
    // count as the models improve, never lower it.
    QVERIFY2(agree >= 13 && agree >= 0.8 * rows, qPrintable(QString("only %1 of %2 rows agree").arg(agree).arg(rows)));
  }
};

QTEST_MAIN(TestPresetComparisons)
#include "test_preset_comparisons.moc"
