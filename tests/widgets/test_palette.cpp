#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>
#include <cmath>

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
  // The dark theme keeps the catalog's devices apart and readable (≥ 4.5:1 on its plot).
  void darkThemeColoursAreDistinctAndReadable() {
    const QStringList ids = {"host", "cpu-skylake", "k80", "p100", "v100", "t4", "a100", "h100",
                             "tpu-v2-8", "tpu-v3-8", "tpu-v4-8"};
    const QColor bg = widgets::chartColors(widgets::ChartTheme::Dark).background;
    QSet<QRgb> seen;
    for (const auto& id : ids) {
      const QColor c = widgets::deviceColor(id, widgets::ChartTheme::Dark);
      seen.insert(c.rgb());
      QVERIFY2(widgets::contrastRatio(c, bg) >= widgets::kDarkSeriesContrast, qPrintable(id + " " + c.name()));
      const QColor light = widgets::deviceColor(id, widgets::ChartTheme::Light);
      QVERIFY2(widgets::contrastRatio(light, Qt::white) >= widgets::kLightSeriesContrast, qPrintable(id + " " + light.name()));
    }
    QCOMPARE(seen.size(), ids.size());
    // A user's device takes a hashed colour, readable too.
    QVERIFY(widgets::contrastRatio(widgets::deviceColor("my-own-gpu", widgets::ChartTheme::Dark), bg) >= 4.5);
  }
  // The devices a preset (or an LLM preset) sets side by side are told apart by colour in both
  // themes: no two of them within a small distance of each other.
  void everyPresetsDevicesLookDifferent() {
    int presets = 0;
    for (const char* folder : {"/presets", "/llm-presets"}) {
      const QDir dir(QString(ACCELLAB_SOURCE_RESOURCES) + folder);
      for (const QString& name : dir.entryList({"*.json"}, QDir::Files)) {
        QFile f(dir.filePath(name));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject o = QJsonDocument::fromJson(f.readAll()).object();
        QStringList ids{"host"};
        for (const auto& d : o["devices"].toArray()) ids << d.toObject()["id"].toString();
        for (const auto& d : o["scenarios"].toArray()) ids << d.toObject()["device"].toString();
        ids.removeDuplicates();
        QVERIFY2(ids.size() > 1, qPrintable(name));
        ++presets;
        for (const auto theme : {widgets::ChartTheme::Light, widgets::ChartTheme::Dark})
          for (int i = 0; i < ids.size(); ++i)
            for (int j = i + 1; j < ids.size(); ++j) {
              const QColor a = widgets::deviceColor(ids[i], theme), b = widgets::deviceColor(ids[j], theme);
              const double distance = std::hypot(a.red() - b.red(), a.green() - b.green(), a.blue() - b.blue());
              QVERIFY2(distance > 60, qPrintable(QString("%1: %2 %3 and %4 %5 look alike")
                                                     .arg(name, ids[i], a.name(), ids[j], b.name())));
            }
      }
    }
    QVERIFY(presets >= 9);
  }
  void contrastRatioIsWcags() {
    QCOMPARE(widgets::contrastRatio(Qt::black, Qt::white), 21.0);
    QCOMPARE(widgets::contrastRatio(Qt::white, Qt::white), 1.0);
    QVERIFY(std::abs(widgets::contrastRatio(QColor(0x77, 0x77, 0x77), Qt::white) - 4.48) < 0.01);
    const QColor c = widgets::readableOn(QColor(0x00, 0x72, 0xB2), QColor(0x1E, 0x1F, 0x22), 4.5);
    QVERIFY(widgets::contrastRatio(c, QColor(0x1E, 0x1F, 0x22)) >= 4.5);
    QCOMPARE(c.toHsl().hslHue(), QColor(0x00, 0x72, 0xB2).toHsl().hslHue());   // the hue is kept
  }
  void colourIsStablePerDevice() {
    QCOMPARE(widgets::deviceColor("my-gpu"), widgets::deviceColor("my-gpu"));
    QCOMPARE(widgets::deviceColor("v100"), widgets::deviceColor("v100"));
  }
};

QTEST_MAIN(TestPalette)
#include "test_palette.moc"
