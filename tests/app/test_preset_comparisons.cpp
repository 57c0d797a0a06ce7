// Every preset's published comparisons, re-computed the way the Guide does (the preset's own
// settings and devices, its stack): prints the table (published, AccelLab, error, tolerance,
// agreement, known cause) and holds the number of agreeing rows at least where it is.
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <cmath>

#include "app/gui/comparisons.h"
#include "app/gui/preset.h"
#include "app/gui/sim_service.h"
#include "app_test_env.h"

using namespace app::gui;

class TestPresetComparisons : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;

private slots:
  void initTestCase() { app_test::isolate(m_dir); }

  void everyRowAgreesOrSaysWhy() {
    PresetLibrary lib;
    lib.load(PresetLibrary::builtinFolder(), QString());
    QVERIFY2(lib.errors().isEmpty(), qPrintable(lib.errors().join('\n')));
    const SimService sim;
    int rows = 0, agree = 0;
    QStringList unexplained;
    for (const Preset& p : lib.presets()) {
      // As the Guide does: the chosen devices' settings, any other device at its defaults,
      // each under the preset's stack.
      QVector<core::experiment::DeviceChoice> devices(p.experiment.devices.begin(), p.experiment.devices.end());
      for (const Comparison& c : p.comparisons)
        for (const QString& id : {c.device.deviceId, c.versus.deviceId}) {
          if (id.isEmpty()) continue;
          const bool chosen = std::any_of(devices.begin(), devices.end(), [&](const auto& d) { return d.deviceId == id.toStdString(); });
          if (!chosen) {
            core::experiment::DeviceChoice d;
            d.deviceId = id.toStdString();
            devices << d;
          }
        }
      for (auto& d : devices) d.stackId = core::experiment::stackFor(p.experiment, d);
      for (const Comparison& c : p.comparisons) {
        const ComparisonResult r = evaluateComparison(sim, c, p.experiment.train, devices);
        ++rows;
        agree += r.agrees;
        qInfo("%s | %s | published %s | AccelLab %s | error %s | tolerance ±%.0f%% | %s%s", qPrintable(p.id),
              qPrintable(c.label), qPrintable(publishedText(c)), qPrintable(r.text), qPrintable(errorText(r.error)),
              100 * c.toleranceOrDefault(), r.agrees ? "agrees" : "DISAGREES",
              r.agrees || c.explanation.isEmpty() ? "" : qPrintable(" (why: " + c.explanation + ")"));
        if (!r.agrees && c.explanation.isEmpty())
          unexplained << p.id + ": " + c.label + " disagrees (" + r.text + " vs " + publishedText(c) +
                             ") and gives no known cause";
      }
    }
    qInfo("%d of %d comparison rows agree within their tolerance", agree, rows);
    QVERIFY(rows > 0);
    // A ratchet, not the bar: 10 of the 16 rows agree today (2026-11-25). The bar is 80% of the
    // rows without an explanation; raise this as the models improve, never lower it.
    qInfo("rows that disagree without a known cause:\n%s", qPrintable(unexplained.join('\n')));
    QVERIFY2(agree >= 10, qPrintable(QString("only %1 of %2 rows agree").arg(agree).arg(rows)));
  }
};

QTEST_MAIN(TestPresetComparisons)
#include "test_preset_comparisons.moc"
