#include <QDockWidget>
#include <QtTest>

#include "app/gui/main_window.h"

class TestMainWindow : public QObject {
  Q_OBJECT
private slots:
  void opensWithItsDocks() {
    app::gui::MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QCOMPARE(w.windowTitle(), QString("AccelLab"));
    QVERIFY(w.experimentDock() && w.experimentDock()->isVisible());
    QVERIFY(w.hardwareDock() && w.hardwareDock()->isVisible());
  }
};

QTEST_MAIN(TestMainWindow)
#include "test_main_window.moc"
