// The main window as a user meets it: docks, menus, standard shortcuts, enablement that
// follows state, presentation mode, layout, themes, settings read back as written, the Guide,
// a simulation-only preset, user presets. The hardware table's own behaviour is in
// test_hardware_table.cpp.
#include <QCheckBox>
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
#include <QtTest>

#include "app/gui/appearance.h"
#include "app/gui/experiment_model.h"
#include "app/gui/export_controller.h"
#include "app/gui/guide_panel.h"
#include "app/gui/main_window.h"
#include "app/gui/message_bar.h"
#include "app/gui/preset_controller.h"
#include "app/gui/run_controller.h"
#include "app/gui/settings_keys.h"
#include "app/gui/setup_controller.h"
#include "app/gui/training_session.h"
#include "app_test_env.h"
#include "core/experiment/experiment_json.h"
#include "core/nn/graph_model_file.h"
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

  void anOnnxGraphJoinsTheModelList() {
    MainWindow w;
    w.show();
    QVERIFY(w.openModel(QStringLiteral(ACCELLAB_TEST_DATA "/onnx/torch_branches.onnx")));
    const auto& train = w.experimentModel()->experiment().train;
    QCOMPARE(QString::fromStdString(train.modelId), QStringLiteral("torch_branches.onnx"));
    QCOMPARE(QString::fromStdString(train.datasetId), QStringLiteral("fashion-mnist"));  // its 1x28x28 input
    QVERIFY(w.experimentModel()->experiment().trainHere);
    auto* model = w.experimentPanel()->findChild<QComboBox*>("model");
    QVERIFY(model && model->findData(QStringLiteral("torch_branches.onnx")) >= 0);
    QVERIFY(w.messageBar()->text().contains("trains as"));
    // Its file holds weights: the user may start from them, and the experiment says so.
    auto* weights = w.experimentPanel()->findChild<QCheckBox*>("fileWeights");
    QVERIFY(weights && weights->isVisible());
    QVERIFY(!train.fileWeights);
    weights->setChecked(true);
    QVERIFY(w.experimentModel()->experiment().train.fileWeights);
    // A built-in model has no file: the choice goes with the model.
    model->setCurrentIndex(model->findData(QStringLiteral("lenet5")));
    QVERIFY(!weights->isVisible());
    QVERIFY(!w.experimentModel()->experiment().train.fileWeights);
    // A graph the engine cannot build is simulated only, and the message bar says why.
    QVERIFY(w.openModel(QStringLiteral(ACCELLAB_TEST_DATA "/onnx/grouped.onnx")));
    QVERIFY(!w.experimentModel()->experiment().trainHere);
    QVERIFY(w.messageBar()->text().contains("group=2"));
    // A file that is not a model: refused, naming it, and the experiment is kept.
    QTemporaryDir dir;
    QFile bad(dir.filePath("broken.onnx"));
    QVERIFY(bad.open(QIODevice::WriteOnly));
    bad.write("not a protobuf");
    bad.close();
    QVERIFY(!w.openModel(bad.fileName()));
    QVERIFY(w.messageBar()->text().contains("broken.onnx"));
    QCOMPARE(QString::fromStdString(w.experimentModel()->experiment().train.modelId), QStringLiteral("grouped.onnx"));
    // A CNN described as a layer graph (a zoo model's file under another id) joins the list too.
    core::nn::GraphModelFile mine = core::nn::graphModelFileOf("lenet5");
    mine.info.id = "my-lenet";
    QFile file(dir.filePath("my-lenet.json"));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(QByteArray::fromStdString(core::nn::graphModelText(mine)));
    file.close();
    QVERIFY(w.openModel(file.fileName()));
    QCOMPARE(QString::fromStdString(w.experimentModel()->experiment().train.modelId), QStringLiteral("my-lenet"));
    QVERIFY(w.experimentModel()->experiment().trainHere);
    QVERIFY(model->findData(QStringLiteral("my-lenet")) >= 0);
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
};

QTEST_MAIN(TestMainWindow)
#include "test_main_window.moc"
