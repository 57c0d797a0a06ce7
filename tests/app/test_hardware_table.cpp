// The hardware table as a user meets it in the main window: it fits at 1280x800, takes a
// preset's VM memory, offers fp4 where the hardware has it, says what is not simulated and
// why, flags out-of-memory devices before a run, carries a typed price to the charts, the CSV
// and the history, follows the energy settings, re-measures this machine, and names a device
// file that fails validation while the app keeps working.
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLineEdit>
#include <QRegularExpression>
#include <QSettings>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTableWidget>
#include <QScrollBar>
#include <QStyleOption>
#include <QRegularExpression>
#include <QtTest>

#include "app/gui/device_controller.h"
#include "app/gui/experiment_model.h"
#include "app/gui/guide_panel.h"
#include "app/gui/main_window.h"
#include "app/gui/message_bar.h"
#include "app/gui/preset_controller.h"
#include "app/gui/run_controller.h"
#include "app/gui/run_history.h"
#include "app/gui/setup_controller.h"
#include "app/gui/sim_service.h"
#include "app_test_env.h"
#include "core/experiment/experiment_json.h"
#include "core/nn/gemm.h"
#include "core/util/files.h"
#include "core/util/json.h"
#include "widgets/chart_base.h"
#include "widgets/data_export.h"
#include "widgets/chart_deck.h"
#include "widgets/experiment_panel.h"
#include "widgets/hardware_panel.h"
#include "app/gui/window_fit.h"
#include "widgets/run_store.h"

using app::gui::MainWindow;

class TestHardwareTable : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;

private slots:
  void initTestCase() { app_test::isolate(m_dir); }

  // At 1280×800 the device table shows every count, price and precision whole and needs no
  // horizontal scrolling ("$0.0398/h", "8 vCPU" were cut).
  void theDeviceTableFitsAt1280x800() {
    MainWindow w;
    w.setWindowState(Qt::WindowNoState);  // a first start maximises on the test's small screen
    w.resize(1280, 800);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QCoreApplication::processEvents();
    auto* table = w.hardwarePanel()->findChild<QTableWidget*>("deviceTable");
    QVERIFY(table);
    QVERIFY(!table->horizontalScrollBar()->isVisible());
    int checkedCells = 0;
    for (int row = 0; row < table->rowCount(); ++row) {
      for (int column = 1; column <= 3; ++column) {
        QWidget* cell = table->cellWidget(row, column);
        QString text;
        QRect field;
        if (auto* combo = qobject_cast<QComboBox*>(cell)) {
          QStyleOptionComboBox opt;
          opt.initFrom(combo);
          opt.rect = QRect(QPoint(), QSize(table->columnWidth(column), combo->height()));
          opt.frame = combo->hasFrame();
          field = combo->style()->subControlRect(QStyle::CC_ComboBox, &opt, QStyle::SC_ComboBoxEditField, combo);
          text = combo->currentText();
        } else if (auto* spin = qobject_cast<QSpinBox*>(cell)) {
          QStyleOptionSpinBox opt;
          opt.initFrom(spin);
          opt.rect = QRect(QPoint(), QSize(table->columnWidth(column), spin->height()));
          opt.frame = spin->hasFrame();
          opt.subControls = QStyle::SC_SpinBoxFrame | QStyle::SC_SpinBoxEditField | QStyle::SC_SpinBoxUp | QStyle::SC_SpinBoxDown;
          field = spin->style()->subControlRect(QStyle::CC_SpinBox, &opt, QStyle::SC_SpinBoxEditField, spin);
          text = spin->text();
        } else {
          continue;
        }
        QVERIFY2(cell->fontMetrics().horizontalAdvance(text) <= field.width(),
                 qPrintable(QString("row %1 column %2: \"%3\" in %4 px").arg(row).arg(column).arg(text).arg(field.width())));
        ++checkedCells;
      }
    }
    QVERIFY(checkedCells > 20);
  }

  // A set-up that is no longer the preset's is said plainly: the published figures are greyed
  // and not compared (no "TPU v2-8 vs K80, batch 1024: 0.13x" beside "≈3x").
  // E1's Kaggle CPU has the session's 13 GB (memory_gib): its row in the device table must
  // say what the charts say (it fits at batch 16), not "out of memory" from 2 vCPUs' default.
  void theDeviceTableUsesThePresetsVmMemory() {
    MainWindow w;
    QVERIFY(w.presetController()->apply("e1"));
    w.setupController()->updateNow();
    const widgets::DeviceStatus cpu = w.hardwarePanel()->deviceStatus("cpu-skylake");
    QVERIFY2(cpu.kind == widgets::DeviceStatus::Kind::Ok, qPrintable(cpu.text + " " + cpu.detail));
    QVERIFY2(cpu.detail.contains("of 12.1 GiB"), qPrintable(cpu.detail));
    // And the Guide computes the TPU-vs-CPU row with it.
    QVERIFY2(w.guidePanel()->appValue(0).endsWith(QStringLiteral("×")), qPrintable(w.guidePanel()->appValue(0)));
    // The price column says what that 4-vCPU VM costs an hour, not one vCPU's price, and follows
    // the vCPU count.
    auto* price = w.hardwarePanel()->findChild<QComboBox*>("price_cpu-skylake");
    auto* vcpus = w.hardwarePanel()->findChild<QSpinBox*>("count_cpu-skylake");
    QVERIFY(price && vcpus);
    QCOMPARE(vcpus->value(), 4);
    QCOMPARE(price->itemText(0), QStringLiteral("$0.159/h"));  // 4 x $0.0398 per vCPU-hour
    QVERIFY2(price->toolTip().contains("$0.0398/h per vCPU"), qPrintable(price->toolTip()));
    vcpus->setValue(16);
    QCOMPARE(price->itemText(0), QStringLiteral("$0.637/h"));
    // Another preset that does not choose the CPU gives its row back its defaults.
    QVERIFY(w.presetController()->apply("e3"));
    QCOMPARE(vcpus->value(), 8);
  }

  // The device table offers a precision only where the device has units for it: fp4 on
  // Blackwell and MI355X, not on a Hopper (which would run fp8) or a K80; a device with no
  // public price says so with the date, and a priced one names its seller.
  void theDeviceTableOffersFp4WhereTheHardwareHasItAndSaysNoPrice() {
    MainWindow w;
    auto offers = [&](const QString& id, const QString& precision) {
      auto* combo = w.hardwarePanel()->findChild<QComboBox*>("precision_" + id);
      return combo && combo->findText(precision) >= 0;
    };
    QVERIFY(offers("b200", "fp4"));
    QVERIFY(offers("mi355x", "fp4"));
    QVERIFY(offers("h100", "fp8"));
    QVERIFY(!offers("h100", "fp4"));
    QVERIFY(!offers("k80", "fp4"));
    QVERIFY(!offers("k80", "fp8"));
    auto* gb300 = w.hardwarePanel()->findChild<QComboBox*>("price_gb300");
    QVERIFY(gb300);
    QCOMPARE(gb300->itemText(0), QStringLiteral("no price"));
    QVERIFY2(gb300->toolTip().contains("No price found for this device (as of 2026-11)"), qPrintable(gb300->toolTip()));
    auto* h100 = w.hardwarePanel()->findChild<QComboBox*>("price_h100");
    QVERIFY(h100);
    QVERIFY2(h100->toolTip().contains("neocloud"), qPrintable(h100->toolTip()));
  }

  // E2's stack (tf-tuned-2018) has no CPU figures: the CPU's row says so quietly, with what to
  // do, instead of a red "cannot simulate".
  void aDeviceTheStackDoesNotDescribeIsNotAnError() {
    MainWindow w;
    QVERIFY(w.presetController()->apply("e2"));
    w.setupController()->updateNow();
    const widgets::DeviceStatus cpu = w.hardwarePanel()->deviceStatus("cpu-skylake");
    QCOMPARE(cpu.kind, widgets::DeviceStatus::Kind::NotApplicable);
    QCOMPARE(cpu.text, QStringLiteral("not in tf-tuned-2018"));
    QVERIFY2(cpu.detail.contains("choose another under Software"), qPrintable(cpu.detail));
    QCOMPARE(w.hardwarePanel()->deviceStatus("v100").kind, widgets::DeviceStatus::Kind::Ok);
  }

  // g1 trains a transformer here: every CPU row is simulated by the transformer step model like
  // the GPUs (the host as the AccelLab engine, with a time per epoch), not a red error.
  void aTransformerOnACpuIsSimulated() {
    MainWindow w;
    QVERIFY(w.presetController()->apply("g1"));
    w.setupController()->updateNow();
    for (const char* id : {"host", "cpu-skylake", "a100"}) {
      const widgets::DeviceStatus s = w.hardwarePanel()->deviceStatus(id);
      QVERIFY2(s.kind == widgets::DeviceStatus::Kind::Ok, qPrintable(QString("%1: %2 (%3)").arg(id, s.text, s.detail)));
      // A time per epoch ("12.6 s", "1.2 min"), not a word.
      QVERIFY2(s.text.contains(QRegularExpression("^[0-9][0-9.,]* (ms|s|min|h|days?)$")), qPrintable(s.text));
    }
  }

  // The precision says what its GEMMs run on this CPU: bf16 in bf16 hardware where there is
  // some (AMX, AVX512_BF16), else that it is emulated.
  void thePrecisionSaysWhatRunsOnThisCpu() {
    MainWindow w;
    auto* precision = w.experimentPanel()->findChild<QComboBox*>("precision");
    QVERIFY(precision);
    const int bf16 = precision->findText("bf16");
    QVERIFY(bf16 >= 0);
    const QString tip = precision->itemData(bf16, Qt::ToolTipRole).toString();
    QVERIFY2(tip.contains(QString::fromStdString(core::nn::gemmPathText(core::util::Precision::BF16))), qPrintable(tip));
    QVERIFY2(tip.contains(core::nn::bf16OnHardware() ? "fp32 accumulation" : "emulated"), qPrintable(tip));
    QVERIFY(precision->toolTip().contains(QString::fromStdString(core::nn::gemmPathText(core::util::Precision::BF16))));
  }

  // Hardware > Re-measure This Machine measures the host off the GUI thread, writes the new
  // measurement (with its noise) and shows it; while a run trains it refuses, saying why.
  void remeasureThisMachineTakesTheHostAgain() {
    MainWindow w;
    const std::string cache = core::util::userDataDir() + "/host.json";
    const double before = core::util::Json::parseFile(cache, 1 << 20).at("measured_at_unix").asNumber();
    QSignalSpy done(w.deviceController(), &app::gui::DeviceController::hostRemeasured);
    w.actions().remeasureHost->trigger();
    QVERIFY(!w.actions().remeasureHost->isEnabled());  // one measurement at a time
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 30000);
    QVERIFY(done.front().at(0).toBool());
    const QString notes = done.front().at(1).toString();
    QVERIFY2(notes.contains("GEMM spread") && notes.contains("other processes used"), qPrintable(notes));
    QVERIFY(w.actions().remeasureHost->isEnabled());
    const double after = core::util::Json::parseFile(cache, 1 << 20).at("measured_at_unix").asNumber();
    QVERIFY(after > before);
    QVERIFY(QString::fromStdString(w.sim().catalog().at("host").notes).contains("GEMM spread"));
    // While a run trains (Run > Stop enabled), it is refused and nothing is measured.
    w.actions().stop->setEnabled(true);
    w.actions().remeasureHost->trigger();
    QVERIFY(!w.deviceController()->remeasuring());
    QTest::qWait(50);
    QCOMPARE(done.count(), 1);
    w.actions().stop->setEnabled(false);
  }

  void outOfMemoryIsFlaggedBeforeTheRun() {
    MainWindow w;
    QVERIFY(w.presetController()->apply("e1"));
    w.setupController()->updateNow();
    using Kind = widgets::DeviceStatus::Kind;
    QCOMPARE(w.hardwarePanel()->deviceStatus("p100").kind, Kind::Ok);  // batch 16
    w.experimentModel()->update([](core::experiment::Experiment& e) { e.train.batch = 128; });
    w.setupController()->updateNow();
    QCOMPARE(w.hardwarePanel()->deviceStatus("p100").kind, Kind::OutOfMemory);
    QVERIFY(w.hardwarePanel()->deviceStatus("p100").detail.contains("GiB"));
    QCOMPARE(w.hardwarePanel()->deviceStatus("tpu-v3-8").kind, Kind::Ok);
    // The guide sets AccelLab's figures beside the published ones.
    QVERIFY(w.guidePanel()->comparisonRows() >= 4);
    for (int i = 0; i < w.guidePanel()->comparisonRows(); ++i)
      QVERIFY2(!w.guidePanel()->appValue(i).isEmpty() && w.guidePanel()->appValue(i) != "…", qPrintable(w.guidePanel()->appValue(i)));
    QVERIFY(w.guidePanel()->modeText().contains("Simulation only"));
  }

  // The price a user pays, typed in the device table, is the run's: the cost chart marks it as
  // theirs, the CSV export says "user", and the run history keeps it.
  void aTypedPriceReachesTheChartsTheCsvAndTheHistory() {
    MainWindow w;
    QVERIFY(w.presetController()->apply("e5"));  // simulation only: three devices, at once
    auto* price = w.hardwarePanel()->findChild<QComboBox*>("price_tpu-v3-8");
    QVERIFY(price && price->isEditable());
    price->lineEdit()->selectAll();
    QTest::keyClicks(price->lineEdit(), "$1.25/h");
    QTest::keyClick(price->lineEdit(), Qt::Key_Return);
    QCOMPARE(price->lineEdit()->text(), QStringLiteral("$1.25/h \u270E"));
    QVERIFY(price->lineEdit()->toolTip().contains("Your price"));
    const auto choice = w.hardwarePanel()->settings("tpu-v3-8");
    QVERIFY(choice && choice->userUsdPerHour);
    QCOMPARE(*choice->userUsdPerHour, 1.25);
    w.actions().run->trigger();
    const widgets::Run* r = w.store()->run(w.store()->currentRunId());
    QVERIFY(r);
    const widgets::DeviceResult* tpu = nullptr;
    for (const auto& d : r->devices)
      if (d.deviceId == "tpu-v3-8") tpu = &d;
    QVERIFY(tpu);
    QCOMPARE(tpu->report.priceKind, core::sim::PriceKind::User);
    QCOMPARE(tpu->report.usdPerHour, 1.25 * tpu->count);
    // The charts: the cost chart's bars for it are marked.
    w.deck()->refreshAll();
    bool marked = false;
    for (const widgets::Series& s : w.deck()->chart("cost")->series())
      if (s.label.contains("tpu-v3-8")) marked = marked || s.label.contains("(your price)");
    QVERIFY(marked);
    // The CSV: its cost rows for the TPU say whose price it is.
    const QString csv = QString::fromUtf8(widgets::seriesToCsv(widgets::collectSeries(w.deck()->charts()), w.store()));
    QVERIFY2(csv.contains(QRegularExpression("\\ncost,[^\\n]*tpu-v3-8[^\\n]*,user,[^,\\n]*,[^,\\n]*,[^,\\n]*,[^,\\n]*\\n")), qPrintable(csv.left(2000)));
    // The history: read back from disk by a second reader, the price is still the user's.
    QVERIFY(w.runController()->saveHistory());
    app::gui::RunHistory history(w.runController()->historyFolder());
    const auto loaded = history.load();
    bool kept = false;
    for (const auto& run : loaded.runs)
      if (run.key == r->key)
        for (const auto& d : run.devices)
          if (d.deviceId == "tpu-v3-8") kept = d.report.priceKind == core::sim::PriceKind::User && d.report.usdPerHour == 1.25 * d.count;
    QVERIFY(kept);
  }

  // Simulate > Energy estimate: the grid and PUE the estimates use, chosen from grid.json, the
  // device table's estimate follows at once, and the choice is kept for the next start.
  void theEnergyEstimateFollowsTheChosenGridAndPue() {
    {
      MainWindow w;
      QVERIFY(w.presetController()->apply("e5"));
      w.setupController()->updateNow();
      const QString world = w.hardwarePanel()->deviceStatus("p100").detail;
      QVERIFY2(world.contains("world grid") && world.contains("PUE 1.58"), qPrintable(world));
      auto* france = w.findChild<QAction*>("energy_region_france");
      auto* hyperscale = w.findChild<QAction*>("energy_pue_hyperscale");
      QVERIFY(france && hyperscale);
      france->trigger();
      hyperscale->trigger();
      QVERIFY(france->isChecked() && hyperscale->isChecked());
      const QString fr = w.hardwarePanel()->deviceStatus("p100").detail;
      QVERIFY2(fr.contains("france grid") && fr.contains("PUE 1.14"), qPrintable(fr));
      w.close();  // writes the settings
    }
    MainWindow again;
    QVERIFY(again.findChild<QAction*>("energy_region_france")->isChecked());
    again.findChild<QAction*>("energy_region_world")->trigger();
    again.findChild<QAction*>("energy_pue_industry-average")->trigger();
    again.close();
    QSettings().clear();  // the tests after this one start as a first start does
  }

  void aBadDeviceFileIsReportedAndTheAppWorks() {
    const QString dir = QDir(QString::fromStdString(core::util::userDataDir())).filePath("devices");
    QDir().mkpath(dir);
    const QString file = QDir(dir).filePath("my-gpu.json");
    {
      QFile f(file);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(R"({"id": "my-gpu", "name": "Mine", "kind": "gpu", "mem_bandwith_gbps": 100})");
    }
    MainWindow w;
    QFile::remove(file);
    QCOMPARE(w.messageBar()->level(), app::gui::MessageBar::Level::Warning);
    const QString text = w.messageBar()->text();
    QVERIFY2(text.contains("my-gpu.json"), qPrintable(text));
    QVERIFY2(text.contains("mem_bandwith_gbps"), qPrintable(text));
    QVERIFY(!w.hardwarePanel()->deviceIds().contains("my-gpu"));
    QVERIFY(w.hardwarePanel()->deviceIds().contains("k80"));
    QVERIFY(w.actions().run->isEnabled());
  }
};

QTEST_MAIN(TestHardwareTable)
#include "test_hardware_table.moc"
