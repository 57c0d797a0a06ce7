// Idle means idle: with a preset loaded and nothing running, the app takes under 2% of a core,
// at 1280x800 and 1920x1080 and after a presentation-mode round trip (the Guide's table once
// flipped between two layouts every frame, 85-100% of a core). CTest runs each window size as
// its own test (app.idle.<size>), in parallel.
#include <sys/resource.h>

#include <QtTest>

#include "app/gui/app_actions.h"
#include "app/gui/main_window.h"
#include "app/gui/preset_controller.h"
#include "app_test_env.h"

namespace {

double cpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

// The share of one core the app takes over `seconds` of doing nothing, its event loop running.
double idleShare(double seconds) {
  QTest::qWait(2000);   // what a preset starts (simulations, the sweep, the first paint) settles
  // The app's own event loop, blocked in its dispatcher until something happens (QTest::qWait
  // would wake it every 10 ms: 1% of a core by itself).
  QEventLoop loop;
  QTimer::singleShot(static_cast<int>(seconds * 1000), &loop, &QEventLoop::quit);
  const double before = cpuSeconds();
  QElapsedTimer wall;
  wall.start();
  loop.exec();
  return (cpuSeconds() - before) / (static_cast<double>(wall.elapsed()) / 1000.0);
}

}  // namespace

class TestIdle : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;

private slots:
  void initTestCase() { app_test::isolate(m_dir); }

  void idleTakesUnderTwoPercentOfACore_data() {
    QTest::addColumn<QSize>("size");
    QTest::newRow("1280x800") << QSize(1280, 800);
    QTest::newRow("1920x1080") << QSize(1920, 1080);
  }

  void idleTakesUnderTwoPercentOfACore() {
    QFETCH(QSize, size);
    qInfo("the test's own event loop, no window: %.2f%% of a core", 100 * idleShare(3.0));
    app::gui::MainWindow w;
    w.resize(size);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QStringList over;
    auto measure = [&](const QString& what) {
      const double share = idleShare(10.0);
      qInfo("%s: %.2f%% of a core", qPrintable(what), 100 * share);
      if (share >= 0.02) over << QStringLiteral("%1 %2%").arg(what).arg(100 * share, 0, 'f', 1);
    };
    const auto& presets = w.presetController()->library().presets();
    QVERIFY(presets.size() >= 6);
    for (const auto& p : presets) {
      QVERIFY(w.presetController()->apply(p.id));
      measure(p.id);
    }
    // F11 twice (into presentation mode and out) with the last preset, then idle again.
    w.actions().presentation->trigger();
    QTest::qWait(500);
    w.actions().presentation->trigger();
    measure(QStringLiteral("after presentation mode"));
    QVERIFY2(over.isEmpty(), qPrintable(over.join("; ")));
  }
};

QTEST_MAIN(TestIdle)
#include "test_idle.moc"
