// File ▸ Export Options…: presets fill the fields, a unit change keeps the physical size,
// an unusable size disables OK and says why, and hand edits show "Custom".
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QPushButton>
#include <QSpinBox>
#include <QtTest>

#include "widgets/export_options_dialog.h"

using namespace widgets;

class TestExportOptionsDialog : public QObject {
  Q_OBJECT
private:
  static QDoubleSpinBox* widthBox(ExportOptionsDialog& d) { return d.findChildren<QDoubleSpinBox*>().at(0); }
  static QComboBox* presetBox(ExportOptionsDialog& d) { return d.findChildren<QComboBox*>().at(0); }
  static QComboBox* unitBox(ExportOptionsDialog& d) { return d.findChildren<QComboBox*>().at(1); }
  static QPushButton* okButton(ExportOptionsDialog& d) {
    return d.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok);
  }

private slots:
  void presetsFillTheFields() {
    ExportOptionsDialog d(ExportOptions::screen());
    QCOMPARE(presetBox(d)->currentData().toString(), QString("screen"));
    QVERIFY(d.applyPreset("one-column"));
    const ExportOptions o = d.options();
    QCOMPARE(o.width, 8.5);
    QCOMPARE(o.unit, ExportOptions::Unit::Cm);
    QCOMPARE(o.dpi, 600);
    QCOMPARE(o.fontScale, 1.0);
    QCOMPARE(presetBox(d)->currentData().toString(), QString("one-column"));
    QVERIFY2(d.describe().contains("2008 × 1535 px") && d.describe().contains("9 pt"), qPrintable(d.describe()));
    QVERIFY(!d.applyPreset("no-such-preset"));
  }

  void aUnitChangeKeepsThePhysicalSize() {
    ExportOptionsDialog d(ExportOptions::screen());
    d.applyPreset("one-column");
    unitBox(d)->setCurrentIndex(unitBox(d)->findText("px"));
    ExportOptions o = d.options();
    QCOMPARE(o.unit, ExportOptions::Unit::Px);
    QCOMPARE(o.imageSize(), QSize(2008, 1535));
    QCOMPARE(o.layoutSize().width(), 321);
    unitBox(d)->setCurrentIndex(unitBox(d)->findText("in"));
    o = d.options();
    QVERIFY(std::abs(o.width - 8.5 / 2.54) < 0.01);
  }

  void anUnusableSizeDisablesOkAndSaysWhy() {
    ExportOptionsDialog d(ExportOptions::screen());
    d.applyPreset("one-column");
    QVERIFY(okButton(d)->isEnabled());
    widthBox(d)->setValue(2.0);                    // 2 cm holds no chart
    QVERIFY(!okButton(d)->isEnabled());
    QVERIFY2(d.describe().contains("too small"), qPrintable(d.describe()));
    QCOMPARE(presetBox(d)->currentData().toString(), QString());   // "Custom"
    widthBox(d)->setValue(12.0);
    QVERIFY(okButton(d)->isEnabled());
    QVERIFY(!matchingExportPreset(d.options()));
  }
};

QTEST_MAIN(TestExportOptionsDialog)
#include "test_export_options_dialog.moc"
