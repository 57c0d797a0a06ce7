// The main window as a user meets it: docks, menus, standard shortcuts, enablement that
// follows state, presentation mode, themes, settings read back as written, devices flagged
// out of memory before a run, a simulation-only preset, a device file that fails validation.
#include <QComboBox>
#include <QDialog>
#include <QImage>
#include <QTextBrowser>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QSettings>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTableWidget>
#include <QScrollBar>
#include <QStyleOption>
#include <QtTest>

#include "app/gui/appearance.h"
#include "app/gui/device_controller.h"
#include "app/gui/experiment_model.h"
#include "app/gui/export_controller.h"
#include "app/gui/guide_panel.h"
#include "app/gui/main_window.h"
#include "app/gui/message_bar.h"
#include "app/gui/preset_controller.h"
#include "app/gui/run_controller.h"
#include "app/gui/run_history.h"
#include "app/gui/settings_keys.h"
#include "app/gui/setup_controller.h"
#include "app/gui/sim_service.h"
#include "app/gui/training_session.h"
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

namespace {

QStringList menuTitles(QMenuBar* bar) {
  QStringList out;
  for (QAction* a : bar->actions()) out << a->text().remove('&');
  return out;
}

bool hasShortcut(QAction* a, const QKeySequence& key) { return a->shortcuts().contains(key); }

}  // namespace

class TestMainWindow : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;

private slots:
  void initTestCase() {
    app_test::isolate(m_dir);
  }

  void opensWithItsDocksAndMenus() {
    MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QCOMPARE(w.windowTitle(), QString("AccelLab"));
    for (QDockWidget* d : {w.experimentDock(), w.hardwareDock(), w.guideDock(), w.runsDock()}) QVERIFY(d && d->isVisible());
    QCOMPARE(menuTitles(w.menuBar()), QStringList({"File", "Edit", "View", "Hardware", "Simulate", "Run", "Help"}));
    // A first start opens the preset that trains for real.
    QVERIFY(w.presetController()->current());
    QCOMPARE(w.presetController()->current()->id, QString("e3-colab-fashion"));
    QCOMPARE(w.experimentModel()->experiment().train.modelId, std::string("colab-cnn"));
    QCOMPARE(w.hardwarePanel()->choices().size(), 3);  // this machine (measured), k80, tpu-v2-8
  }

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

  // Help > Getting started: the page and its picture load from the app's resources, and the
  // menu paths it tells a newcomer to use exist.
  void gettingStartedIsAnIllustratedPage() {
    MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.actions().gettingStarted->trigger();
    auto* dialog = w.findChild<QDialog*>("GettingStarted");
    QVERIFY(dialog && dialog->isVisible());
    QCOMPARE(w.showGettingStarted(), dialog);  // one page, raised again
    auto* page = dialog->findChild<QTextBrowser*>("GettingStartedPage");
    QVERIFY(page);
    const QString text = page->toPlainText();
    QVERIFY2(text.contains("Press Run") && text.contains("Samples"), qPrintable(text.left(300)));
    const QImage picture = QImage(":/screenshots/main-window.png");
    QVERIFY(!picture.isNull() && picture.width() >= 1000);
    QVERIFY(page->toHtml().contains("qrc:/screenshots/main-window.png"));
    const QStringList presets = {"E3 · Colab 2018", "GPT on fortunes"};
    for (const QString& p : presets) {
      bool found = false;
      for (const QAction* a : w.presetController()->menu()->actions()) found = found || a->text().contains(p);
      QVERIFY2(found, qPrintable(p));
    }
    if (const QString dir = qEnvironmentVariable("ACCELLAB_CHART_SHOTS"); !dir.isEmpty()) {  // to look at it
      QDir().mkpath(dir);
      dialog->grab().save(QDir(dir).filePath("getting-started.png"));
    }
    dialog->close();
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

  // g1 trains a transformer here: the host row says its time is measured, not a red error,
  // and another CPU says it is not simulated; the GPUs are simulated as before.
  void aTransformerOnACpuIsMeasuredNotAnError() {
    MainWindow w;
    QVERIFY(w.presetController()->apply("g1"));
    w.setupController()->updateNow();
    const widgets::DeviceStatus host = w.hardwarePanel()->deviceStatus("host");
    QCOMPARE(host.kind, widgets::DeviceStatus::Kind::NotApplicable);
    QCOMPARE(host.text, QStringLiteral("measured only"));
    QCOMPARE(w.hardwarePanel()->deviceStatus("cpu-skylake").text, QStringLiteral("not simulated"));
    QCOMPARE(w.hardwarePanel()->deviceStatus("a100").kind, widgets::DeviceStatus::Kind::Ok);
  }

  void theGuideSaysWhenTheSetUpIsNoLongerThePresets() {
    MainWindow w;
    QVERIFY(w.presetController()->apply("e3"));
    w.setupController()->updateNow();
    app::gui::GuidePanel* guide = w.guidePanel();
    QVERIFY(guide->comparisonRows() > 0);
    QVERIFY(guide->mismatchText().isEmpty());
    QVERIFY2(guide->errorValue(0).endsWith("%"), qPrintable(guide->errorValue(0)));
    // The guide's text states the table's own figures: the published one and AccelLab's.
    QVERIFY2(guide->explanationText().contains("≈3.00×") && guide->explanationText().contains(guide->appValue(0)),
             qPrintable(guide->explanationText()));
    w.experimentModel()->update([](core::experiment::Experiment& e) { e.train.modelId = "mlp"; });
    w.setupController()->updateNow();
    QVERIFY2(guide->mismatchText().contains("model mlp, not colab-cnn"), qPrintable(guide->mismatchText()));
    QCOMPARE(guide->errorValue(0), QString("–"));
    // Back to the preset's model: compared again.
    w.experimentModel()->update([](core::experiment::Experiment& e) { e.train.modelId = "colab-cnn"; });
    w.setupController()->updateNow();
    QVERIFY(guide->mismatchText().isEmpty());
    QVERIFY(guide->errorValue(0).endsWith("%"));
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

  void shortcutsAndStatusTips() {
    MainWindow w;
    const auto& a = w.actions();
    QVERIFY(hasShortcut(a.run, QKeySequence(Qt::CTRL | Qt::Key_R)));
    QVERIFY(hasShortcut(a.pause, QKeySequence(Qt::Key_Space)));
    QVERIFY(hasShortcut(a.stop, QKeySequence(Qt::Key_Escape)));
    QVERIFY(hasShortcut(a.presentation, QKeySequence(Qt::Key_F11)));
    // Explicit fallbacks where Qt 6.4 has no standard binding on every desktop.
    QVERIFY(hasShortcut(a.quit, QKeySequence(Qt::CTRL | Qt::Key_Q)));
    QVERIFY(hasShortcut(a.savePreset, QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S)));
    QVERIFY(hasShortcut(a.preferences, QKeySequence(Qt::CTRL | Qt::Key_Comma)));
    for (QAction* act : {a.openPreset, a.savePreset, a.exportChart, a.exportAllCharts, a.exportCsv, a.exportJson, a.quit,
                         a.copyChart, a.preferences, a.presentation, a.run, a.pause, a.stop, a.hideRun, a.deleteRun, a.about})
      QVERIFY2(!act->statusTip().isEmpty(), qPrintable(act->text()));
    for (QAction* act : {a.run, a.pause, a.stop, a.quit, a.openPreset}) QVERIFY2(!act->icon().isNull(), qPrintable(act->text()));
  }

  void enablementFollowsState() {
    MainWindow w;
    const auto& a = w.actions();
    QVERIFY(a.run->isEnabled());
    QVERIFY(!a.pause->isEnabled());
    QVERIFY(!a.stop->isEnabled());
    QVERIFY(!a.deleteRun->isEnabled());  // nothing selected
    QVERIFY(!a.showAllCharts->isEnabled());
    w.deck()->maximise(w.deck()->chart("throughput"));
    QVERIFY(a.showAllCharts->isEnabled());
    a.showAllCharts->trigger();
    QVERIFY(!w.deck()->maximisedChart());
  }

  // View > Charts Shown: untick charts, the grid shows the rest; the choice is kept.
  void chartsShownAreChosenFromTheViewMenuAndKept() {
    QStringList kept;
    {
      MainWindow w;
      auto* sweep = w.findChild<QAction*>("showChart_sweep");
      auto* breakdown = w.findChild<QAction*>("showChart_breakdown");
      QVERIFY(sweep && breakdown);
      QVERIFY(sweep->isChecked());
      sweep->trigger();
      breakdown->trigger();
      QVERIFY(!w.deck()->isShown(w.deck()->chart("sweep")));
      QVERIFY(!w.deck()->isShown(w.deck()->chart("breakdown")));
      kept = w.deck()->shownCharts();
      QCOMPARE(kept.size(), w.deck()->charts().size() - 2);
      w.writeSettings();
    }
    MainWindow again;
    QCOMPARE(again.deck()->shownCharts(), kept);
    QVERIFY(!again.findChild<QAction*>("showChart_sweep")->isChecked());
    again.deck()->setShownCharts({});
    QVERIFY(again.findChild<QAction*>("showChart_sweep")->isChecked());  // the menu follows the deck
    again.writeSettings();
  }

  void presentationModeToggles() {
    MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    const int font = QApplication::font().pointSize();
    QTest::qWait(50);  // let the first layout settle before taking its picture
    const QRect geometry = w.geometry();
    const QByteArray layout = w.saveState();
    const int dockWidth = w.experimentDock()->width();
    w.actions().presentation->trigger();
    QVERIFY(w.appearance()->presentation());
    QVERIFY(w.windowState() & Qt::WindowFullScreen);
    QVERIFY(!w.experimentDock()->isVisible());
    QVERIFY(!w.hardwareDock()->isVisible());
    QVERIFY(!w.runsDock()->isVisible());
    QVERIFY(w.guideDock()->isVisible());  // the explanation stays for the class
    QVERIFY(QApplication::font().pointSize() > font);
    QVERIFY(w.deck()->charts().first()->presentationScale() > 1.0);
    w.actions().presentation->trigger();
    QVERIFY(!w.appearance()->presentation());
    QVERIFY(!(w.windowState() & Qt::WindowFullScreen));
    QTRY_VERIFY(w.experimentDock()->isVisible());
    QVERIFY(w.hardwareDock()->isVisible());
    QVERIFY(w.runsDock()->isVisible());
    QCOMPARE(QApplication::font().pointSize(), font);
    QCOMPARE(w.deck()->charts().first()->presentationScale(), 1.0);
    // The exact layout comes back: the window where it was, the docks as wide as they were.
    QTRY_COMPARE(w.geometry(), geometry);
    QTRY_COMPARE(w.experimentDock()->width(), dockWidth);
    QCOMPARE(w.saveState(), layout);
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

  // Getting started opens by itself once, at a person's first start; after that only from Help.
  void gettingStartedOpensOnceAtAFirstStart() {
    QSettings().remove(app::gui::keys::kGettingStartedShown);
    {
      MainWindow w;
      QDialog* tour = w.showGettingStartedOnce();
      QVERIFY(tour);
      tour->close();
      QVERIFY(!w.showGettingStartedOnce());
    }
    MainWindow later;  // the next start
    QVERIFY(!later.showGettingStartedOnce());
    QVERIFY(later.showGettingStarted());  // Help > Getting Started still opens it
  }

  // Alt+letter is one thing: no two menus or labels of the main window take the same key
  // (Subset once took the Simulate menu's S, Epochs the Edit menu's E, Software Hardware's W).
  void noTwoLabelsOrMenusShareAnAltKey() {
    MainWindow w;
    QMap<QString, QStringList> owners;   // key -> what takes it
    auto keyOf = [](QString text) {
      text.replace(QLatin1String("&&"), QString());
      const int amp = text.indexOf('&');
      return amp >= 0 && amp + 1 < text.size() ? text.mid(amp + 1, 1).toLower() : QString();
    };
    for (QAction* a : w.menuBar()->actions())
      if (const QString k = keyOf(a->text()); !k.isEmpty()) owners[k] << a->text();
    QVERIFY(owners.contains("s"));
    for (QLabel* label : w.findChildren<QLabel*>())
      if (const QString k = keyOf(label->text()); !k.isEmpty() && label->buddy() && label->isVisibleTo(&w))
        owners[k] << label->text();
    QStringList clashes;
    for (auto it = owners.begin(); it != owners.end(); ++it)
      if (it.value().size() > 1) clashes << it.key() + ": " + it.value().join(", ");
    QVERIFY2(clashes.isEmpty(), qPrintable(clashes.join("; ")));
  }

  // View > Reset Layout puts back what a first start has: every panel docked where it was built
  // and shown, every chart, and the window inside its screen.
  void resetLayoutPutsThePanelsBack() {
    MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.experimentDock()->hide();
    w.runsDock()->hide();
    w.hardwareDock()->setFloating(true);
    w.removeDockWidget(w.guideDock());
    w.addDockWidget(Qt::RightDockWidgetArea, w.guideDock());
    w.actions().resetLayout->trigger();
    QTRY_VERIFY(w.experimentDock()->isVisible());
    QVERIFY(w.runsDock()->isVisible());
    QVERIFY(w.hardwareDock()->isVisible());
    QVERIFY(!w.hardwareDock()->isFloating());
    QCOMPARE(w.dockWidgetArea(w.hardwareDock()), Qt::LeftDockWidgetArea);
    QCOMPARE(w.dockWidgetArea(w.guideDock()), Qt::BottomDockWidgetArea);
    const QRect available = w.screen()->availableGeometry();
    QVERIFY2((w.windowState() & Qt::WindowMaximized) || available.contains(w.frameGeometry()),
             qPrintable(QStringLiteral("%1x%2").arg(w.frameGeometry().width()).arg(w.frameGeometry().height())));
  }

  // A first start on a screen too small for 85% of it to hold the panels and four charts opens
  // maximised (its frame inside the screen); a larger screen gets 85% of it, centred.
  void aFirstStartFitsItsScreen() {
    QWidget window;
    app::gui::fitToScreen(&window);
    const QRect available = window.screen()->availableGeometry();
    const bool small = available.width() * 0.85 < 1280 || available.height() * 0.85 < 800;
    QCOMPARE(bool(window.windowState() & Qt::WindowMaximized), small);
    if (!small) QVERIFY(available.contains(window.geometry()));
  }

  void themeAndSettingsAreReadBackAsWritten() {
    {
      MainWindow w;
      w.actions().darkTheme->trigger();
      QCOMPARE(w.deck()->charts().first()->theme(), widgets::ChartTheme::Dark);
      QVERIFY(QApplication::palette().color(QPalette::Window).lightness() < 100);
      w.experimentModel()->update([](core::experiment::Experiment& e) {
        e.train.batch = 256;
        e.train.epochs = 3;
        e.train.bnStatsSamples = 10240;  // "precise" in the Experiment panel
        e.train.schedule = core::experiment::Schedule::Cosine;  // no widget: kept all the same
      });
      widgets::ExportOptions paper{8.5, 6.5, widgets::ExportOptions::Unit::Cm, 600, 1.0};
      QVERIFY(w.exportController()->setOptions(paper));
      w.exportController()->setCsvUtf8Bom(true);
      auto k80 = *w.hardwarePanel()->settings("k80");
      k80.count = 2;
      w.hardwarePanel()->setChoices({k80});
      w.writeSettings();
    }
    MainWindow again;
    QCOMPARE(again.appearance()->theme(), widgets::ChartTheme::Dark);
    QCOMPARE(again.exportController()->options().width, 8.5);
    QCOMPARE(again.exportController()->options().unit, widgets::ExportOptions::Unit::Cm);
    QCOMPARE(again.exportController()->options().dpi, 600);
    QVERIFY(again.exportController()->csvUtf8Bom());
    QVERIFY(again.actions().darkTheme->isChecked());
    const auto& train = again.experimentModel()->experiment().train;
    QCOMPARE(train.batch, 256);
    QCOMPARE(train.epochs, 3);
    QCOMPARE(train.bnStatsSamples, std::int64_t{10240});
    QCOMPARE(train.schedule, core::experiment::Schedule::Cosine);
    const auto choices = again.hardwarePanel()->choices();
    QVERIFY(std::any_of(choices.begin(), choices.end(), [](const auto& c) { return c.deviceId == "k80" && c.count == 2; }));
    QVERIFY(std::none_of(choices.begin(), choices.end(), [](const auto& c) { return c.deviceId == "tpu-v2-8"; }));
    QCOMPARE(again.presetController()->current()->id, QString("e3-colab-fashion"));
    again.actions().lightTheme->trigger();
    again.writeSettings();
    QSettings().clear();
  }

  void theExperimentRoundTripIsLossless() {
    // panel -> model -> JSON -> model -> panel, field by field. The user edits widgets;
    // fields without a widget (momentum, Nesterov, weight decay, schedule) are set in the
    // model, as a preset would, and must survive the edits.
    core::experiment::Experiment saved;
    {
      MainWindow w;
      QVERIFY(w.presetController()->apply("e3"));
      w.experimentModel()->update([](core::experiment::Experiment& e) {
        e.train.momentum = 0.8;
        e.train.nesterov = true;
        e.train.weightDecay = 1e-4;
        e.train.schedule = core::experiment::Schedule::Cosine;
      });
      auto* panel = w.experimentPanel();
      auto combo = [&](const char* name) { return panel->findChild<QComboBox*>(name); };
      combo("model")->setCurrentIndex(combo("model")->findData("mlp"));
      combo("batch")->setEditText("96");
      panel->findChild<QSpinBox*>("epochs")->setValue(4);
      combo("optimizer")->setCurrentIndex(combo("optimizer")->findText("SGD", Qt::MatchContains));
      auto* lr = panel->findChild<QLineEdit*>("learningRate");
      lr->setText("0.05");
      panel->findChild<QSpinBox*>("seed")->setValue(77);
      panel->findChild<QSpinBox*>("limit")->setValue(3000);
      combo("precision")->setCurrentIndex(combo("precision")->findText("bf16", Qt::MatchContains));
      combo("stack")->setCurrentIndex(combo("stack")->findData("tuned"));
      combo("compareStack")->setCurrentIndex(combo("compareStack")->findData("keras-2017"));
      w.hardwarePanel()->findChild<QSpinBox*>("count_k80")->setValue(4);

      const auto& e = w.experimentModel()->experiment();
      QCOMPARE(e.train.modelId, std::string("mlp"));
      QCOMPARE(e.train.batch, 96);
      QCOMPARE(e.train.epochs, 4);
      QCOMPARE(e.train.optimizer, core::experiment::OptimizerKind::SGD);
      QCOMPARE(e.train.learningRate, 0.05);
      QCOMPARE(e.train.seed, std::uint64_t{77});
      QCOMPARE(e.train.limit, std::int64_t{3000});
      QCOMPARE(e.train.testLimit, std::int64_t{500});  // the same share of the test set
      QCOMPARE(e.train.precision, core::util::Precision::BF16);
      QCOMPARE(e.stackId, std::string("tuned"));
      QCOMPARE(e.compareStackId, std::string("keras-2017"));
      QCOMPARE(e.train.momentum, 0.8);  // no widget: untouched by the edits
      QVERIFY(e.train.nesterov);
      QCOMPARE(e.train.weightDecay, 1e-4);
      QCOMPARE(e.train.schedule, core::experiment::Schedule::Cosine);
      const auto k80 = std::find_if(e.devices.begin(), e.devices.end(), [](const auto& d) { return d.deviceId == "k80"; });
      QVERIFY(k80 != e.devices.end());
      QCOMPARE(k80->count, 4);
      saved = core::experiment::experimentFromJsonText(core::experiment::experimentToJson(e).dump(), "settings");
      QVERIFY(saved == e);
      // Run takes what the panels show, all of it.
      const auto plan = w.runController()->currentPlan();
      QCOMPARE(plan.experiment.train.schedule, core::experiment::Schedule::Cosine);
      QCOMPARE(plan.experiment.compareStackId, std::string("keras-2017"));
    }
    MainWindow again;
    again.experimentModel()->set(saved);
    QVERIFY(again.experimentModel()->experiment() == saved);
    // ... and the panels show it: reading them back onto a blank experiment changes nothing
    // the panels hold (only what they hold is compared).
    core::experiment::Experiment shown = saved;
    again.experimentPanel()->applyTo(shown);
    again.hardwarePanel()->applyTo(shown);
    QVERIFY(shown == saved);
    auto* panel = again.experimentPanel();
    QCOMPARE(panel->findChild<QComboBox*>("batch")->currentText(), QString("96"));
    QCOMPARE(panel->findChild<QSpinBox*>("seed")->value(), 77);
    QCOMPARE(panel->findChild<QComboBox*>("stack")->currentData().toString(), QString("tuned"));
    QCOMPARE(again.hardwarePanel()->findChild<QSpinBox*>("count_k80")->value(), 4);
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

  void aSimulationOnlyPresetRunsAtOnce() {
    MainWindow w;
    QVERIFY(w.presetController()->apply("e5"));
    QVERIFY(!w.experimentModel()->experiment().trainHere);
    w.actions().run->trigger();
    QVERIFY(!w.session()->isActive());
    const widgets::Run* r = w.store()->run(w.store()->currentRunId());
    QVERIFY(r);
    QCOMPARE(r->status, core::experiment::RunStatus::Finished);
    QVERIFY(r->batches.empty());  // nothing trained here
    QCOMPARE(r->devices.size(), 3);
    for (const auto& d : r->devices) {
      QVERIFY(!d.measured);
      QCOMPARE(d.epochSeconds.size(), 20);
      QVERIFY(d.epochSeconds[0] >= d.epochSeconds[1]);  // the first epoch carries compilation / warm-up
    }
    QCOMPARE(r->references.size(), 3);
    w.deck()->refreshAll();
    QVERIFY(w.deck()->chart("epoch_time")->visibleGraphPoints("tpu-v3-8") > 0);
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

  void aUserPresetIsSavedAndListed() {
    MainWindow w;
    const QString path = w.presetController()->saveUserPreset("E3 for my class");
    QVERIFY(QFile::exists(path));
    QVERIFY(path.startsWith(QString::fromStdString(core::util::userDataDir())));
    QVERIFY(w.presetController()->library().find("e3-for-my-class"));
    QCOMPARE(w.presetController()->library().find("e3-for-my-class")->references.size(), 2);  // kept from E3
    QFile::remove(path);
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

QTEST_MAIN(TestMainWindow)
#include "test_main_window.moc"
