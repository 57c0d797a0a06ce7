#include <QtTest>

#include "widgets/palette.h"

class TestPalette : public QObject {
  Q_OBJECT
private slots:
  void catalogDevicesHaveDistinctColours() {
    const QStringList ids = {"host", "cpu-skylake", "k80", "p100", "v100", "t4", "a100", "h100",
                             "tpu-v2-8", "tpu-v3-8", "tpu-v4-8"};
    QSet<QRgb> seen;
    for (const auto& id : ids) seen.insert(widgets::deviceColor(id).rgb());
    QCOMPARE(seen.size(), ids.size());
  }
  void colourIsStablePerDevice() {
    QCOMPARE(widgets::deviceColor("my-gpu"), widgets::deviceColor("my-gpu"));
    QCOMPARE(widgets::deviceColor("v100"), widgets::deviceColor("v100"));
  }
};

QTEST_MAIN(TestPalette)
#include "test_palette.moc"
