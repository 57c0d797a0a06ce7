#include "app/gui/main_window.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QFileDialog>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QMimeData>
#include <QDockWidget>
#include <QUrl>
#include <QSettings>
#include <QStatusBar>
#include <QVBoxLayout>

#include "app/gui/accuracy_dialog.h"
#include "app/gui/appearance.h"
#include "app/gui/bridge_controller.h"
#include "app/gui/device_controller.h"
#include "app/gui/energy_menu.h"
#include "app/gui/experiment_model.h"
#include "app/gui/export_controller.h"
#include "app/gui/guide_panel.h"
#include "app/gui/llm_planner_window.h"
#include "app/gui/message_bar.h"
#include "app/gui/preset_controller.h"
#include "app/gui/run_controller.h"
#include "app/gui/run_history.h"
#include "app/gui/run_status_widget.h"
#include "app/gui/runs_panel.h"
#include "app/gui/settings_keys.h"
#include "app/gui/setup_controller.h"
#include "app/gui/sim_service.h"
#include "app/gui/training_session.h"
#include "app/gui/window_fit.h"
#include "core/data/dataset_info.h"
#include "core/experiment/experiment_json.h"
#include "core/nn/graph_model_file.h"
#include "core/nn/onnx_model.h"
#include "core/nn/zoo.h"
#include "widgets/chart_base.h"
#include "widgets/chart_deck.h"
#include "widgets/experiment_panel.h"
#include "widgets/hardware_panel.h"
#include "widgets/run_store.h"
#include "widgets/samples_panel.h"

// The icons live in a static library: its resources must be initialised by name, from the
// global namespace, or the linker drops them.
static void initResources() { Q_INIT_RESOURCE(accellab); }

namespace app::gui {
namespace {

// The preset a first start opens with: the one that trains for real.
const QString kFirstPreset = QStringLiteral("e3-colab-fashion");

QDockWidget* makeDock(QMainWindow* window, const QString& title, const QString& name, QWidget* content) {
  auto* dock = new QDockWidget(title, window);
  dock->setObjectName(name);
  dock->setWidget(content);
  dock->toggleViewAction()->setStatusTip(QObject::tr("Show or hide the %1 panel").arg(title));
  return dock;
}

}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), m_store(new widgets::RunStore(this)), m_sim(std::make_unique<SimService>()),
      m_session(new TrainingSession(m_store, m_sim.get(), this)) {
  initResources();
  setWindowTitle(tr("AccelLab"));
  setObjectName("MainWindow");
  createActions();
  createCharts();
  createDocks();
  createControllers();
  createMenus();
  createToolBars();
  m_defaultLayout = saveState();  // what View > Reset Layout puts back
  setAcceptDrops(true);
  connect(m_actions.openModel, &QAction::triggered, this, &MainWindow::chooseModel);
  readSettings();
}

MainWindow::~MainWindow() = default;

void MainWindow::createActions() {
  m_actions = AppActions::create(this);
  connect(m_actions.quit, &QAction::triggered, this, &QWidget::close);
  connect(m_actions.about, &QAction::triggered, this, &MainWindow::about);
  connect(m_actions.gettingStarted, &QAction::triggered, this, &MainWindow::showGettingStarted);
  connect(m_actions.compareRuns, &QAction::triggered, this, &MainWindow::showRunComparison);
  connect(m_actions.accuracy, &QAction::triggered, this, [this] {
    if (const auto* e = m_sim->heldOutErrors()) {
      AccuracyDialog dialog(*e, this);
      dialog.exec();
    } else {
      m_messages->showMessage(MessageBar::Level::Warning, tr("No calibration rows"),
                              tr("The shipped held-out errors (calibration/held-out-errors.csv) could not be read."));
    }
  });
  connect(m_actions.aboutQt, &QAction::triggered, qApp, &QApplication::aboutQt);
  connect(m_actions.preferences, &QAction::triggered, this, &MainWindow::showPreferences);
}

void MainWindow::createCharts() {
  auto* center = new QWidget(this);
  auto* layout = new QVBoxLayout(center);
  layout->setContentsMargins(4, 4, 4, 0);
  m_messages = new MessageBar(center);
  m_deck = new widgets::ChartDeck(m_store, center);
  layout->addWidget(m_messages);
  layout->addWidget(m_deck, 1);
  setCentralWidget(center);
  connect(m_actions.showAllCharts, &QAction::triggered, this, [this] { m_deck->maximise(nullptr); });
  connect(m_deck, &widgets::ChartDeck::maximisedChanged, this,
          [this](widgets::ChartBase* c) { m_actions.showAllCharts->setEnabled(c != nullptr); });
  m_actions.showAllCharts->setEnabled(false);
  m_runStatus = new RunStatusWidget(this);
  statusBar()->addPermanentWidget(m_runStatus);
}

void MainWindow::createDocks() {
  setDockOptions(AnimatedDocks | AllowTabbedDocks);
  // The left column (settings) runs the full height; the bottom docks sit under the charts.
  setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);
  m_experiment = new widgets::ExperimentPanel(this);
  m_experiment->setCatalogs(core::data::datasetCatalog(), modelsWithImports());
  connect(m_experiment, &widgets::ExperimentPanel::llmPlannerRequested, this, [this] { openLlmPlanner(); });
  m_experimentDock = makeDock(this, tr("Experiment"), "ExperimentDock", m_experiment);
  addDockWidget(Qt::LeftDockWidgetArea, m_experimentDock);

  QVector<widgets::ExperimentPanel::StackItem> stacks;
  for (const auto& s : m_sim->stacks().stacks())
    stacks.push_back({QString::fromStdString(s.id), QString::fromStdString(s.name), QString::fromStdString(s.description)});
  m_experiment->setStacks(stacks);

  m_hardware = new widgets::HardwarePanel(this);
  m_hardware->setCatalog(m_sim->catalog().devices());
  if (const QStringList errors = m_sim->loadErrors(); !errors.isEmpty()) {
    m_hardware->setNote(tr("Skipped device files:\n%1").arg(errors.join('\n')));
    m_messages->showMessage(MessageBar::Level::Warning, tr("Some device files failed validation and were skipped"),
                            errors.join('\n') + "\n" + tr("Fix the key named above in the file, then restart AccelLab."));
  }
  m_hardwareDock = makeDock(this, tr("Hardware"), "HardwareDock", m_hardware);
  addDockWidget(Qt::LeftDockWidgetArea, m_hardwareDock);

  m_runs = new RunsPanel(m_store, this);
  m_runs->addActions({m_actions.compareRuns, m_actions.hideRun, m_actions.deleteRun});
  m_runsDock = makeDock(this, tr("Runs"), "RunsDock", m_runs);
  addDockWidget(Qt::LeftDockWidgetArea, m_runsDock);

  m_guide = new GuidePanel(this);
  m_guideDock = makeDock(this, tr("Guide"), "GuideDock", m_guide);
  addDockWidget(Qt::BottomDockWidgetArea, m_guideDock);
  // What a language model writes as it learns: a tab beside the guide.
  m_samples = new widgets::SamplesPanel(m_store, this);
  m_samplesDock = makeDock(this, tr("Samples"), "SamplesDock", m_samples);
  addDockWidget(Qt::BottomDockWidgetArea, m_samplesDock);
  tabifyDockWidget(m_guideDock, m_samplesDock);
  m_guideDock->raise();
  sizeDocks();
}

void MainWindow::sizeDocks() {
  resizeDocks({m_experimentDock, m_hardwareDock, m_runsDock}, {305, 270, 125}, Qt::Vertical);
  resizeDocks({m_experimentDock}, {440}, Qt::Horizontal);
  resizeDocks({m_guideDock}, {150}, Qt::Vertical);
}

void MainWindow::resetLayout() {
  if (m_appearance->presentation()) m_appearance->setPresentation(false);
  restoreState(m_defaultLayout);
  for (QDockWidget* d : {m_experimentDock, m_hardwareDock, m_runsDock, m_guideDock, m_samplesDock}) {
    d->setFloating(false);
    d->show();
  }
  m_guideDock->raise();
  m_deck->maximise(nullptr);  // every chart, none maximised
  fitToScreen(this);
  sizeDocks();
  statusBar()->showMessage(tr("The panels are back where a first start has them."), 5000);
}

void MainWindow::createControllers() {
  m_model = new ExperimentModel(m_experiment, m_hardware, this);
  m_setupController = new SetupController(m_sim.get(), m_model, m_hardware, m_deck->sweepChart(), m_guide, this);
  m_setupController->setStore(m_store);
  m_presetController = new PresetController(m_actions, m_model, m_messages, this, this);
  RunController::Parts parts{m_actions, m_session, m_store, m_model, m_messages, m_runStatus, m_runs};
  m_runController = new RunController(parts, RunHistory::defaultFolder(), this);
  m_exportController = new ExportController(m_actions, m_deck, this, m_messages, this);
  m_exportController->setJsonExtras([this] { return m_guide->toJson(); });
  m_bridge = new BridgeController({this, m_sim.get(), m_model, m_runController, m_messages}, this);
  m_energyMenu = new EnergyMenu(m_sim.get(), [this] { m_setupController->updateNow(); }, this);
  m_devices = new DeviceController(m_actions, {this, m_sim.get(), m_model, m_hardware, m_messages}, this);
  connect(m_devices, &DeviceController::catalogReloaded, this, [this] { m_setupController->updateNow(); });
  m_appearance = new Appearance(this, m_deck, {m_experimentDock, m_hardwareDock, m_runsDock}, this);

  connect(m_presetController, &PresetController::presetChanged, this, [this](const std::optional<Preset>& p) {
    m_setupController->setPreset(p);
    m_runController->setPreset(p);
  });
  connect(m_actions.lightTheme, &QAction::triggered, this, [this] { m_appearance->setTheme(widgets::ChartTheme::Light); });
  connect(m_actions.darkTheme, &QAction::triggered, this, [this] { m_appearance->setTheme(widgets::ChartTheme::Dark); });
  connect(m_appearance, &Appearance::themeChanged, this, [this](widgets::ChartTheme t) {
    (t == widgets::ChartTheme::Dark ? m_actions.darkTheme : m_actions.lightTheme)->setChecked(true);
    m_hardware->setTheme(t);
  });
  connect(m_actions.presentation, &QAction::toggled, m_appearance, &Appearance::setPresentation);
  connect(m_actions.resetLayout, &QAction::triggered, this, &MainWindow::resetLayout);
  connect(m_appearance, &Appearance::presentationChanged, m_actions.presentation, &QAction::setChecked);
  connect(m_runController, &RunController::runFinished, this, [this] {
    if (m_closeRequested) close();
  });
  // The Samples panel's prompt goes to the language model's next evaluations; a language-model
  // run brings the panel to the front.
  connect(m_samples, &widgets::SamplesPanel::promptChanged, this,
          [this](const QString& p) { m_session->setPrompt(p.toStdString()); });
  connect(m_session, &TrainingSession::started, this, [this](int id) {
    if (const widgets::Run* r = m_store->run(id); r && widgets::tokensPerSample(*r) > 0) {
      m_samplesDock->raise();
      if (m_samplesDock->height() < 220) resizeDocks({m_samplesDock}, {260}, Qt::Vertical);
    }
  });
  m_runController->loadHistory();
}

void MainWindow::chooseModel() {
  const QString path = QFileDialog::getOpenFileName(
      this, tr("Open a model"), QString(),
      tr("Models (*.onnx *.json);;ONNX graphs (*.onnx);;Model files and Hugging Face configs (*.json);;All files (*)"));
  if (!path.isEmpty()) openModel(path);
}

bool MainWindow::openModel(const QString& path) {
  QString error;
  if (core::nn::isOnnxPath(path.toStdString()) || core::nn::isGraphModelPath(path.toStdString()))
    return openEngineModel(path);
  if (openLlmPlanner()->openModel(path, &error)) return true;
  m_messages->showMessage(MessageBar::Level::Error, tr("Cannot open the model"), error);
  return false;
}

bool MainWindow::openEngineModel(const QString& path) {
  const core::nn::ModelInfo* info = nullptr;
  try {
    const std::string file = path.toStdString();
    info = core::nn::isOnnxPath(file) ? &core::nn::importOnnxModel(file) : &core::nn::importGraphModel(file);
  } catch (const std::exception& e) {
    m_messages->showMessage(MessageBar::Level::Error, tr("Cannot open the model"), QString::fromStdString(e.what()));
    return false;
  }
  // The model joins the list and is chosen, on the dataset its input fits; a graph the engine
  // cannot build is simulated only (the panel's execution follows the model).
  m_experiment->setCatalogs(core::data::datasetCatalog(), modelsWithImports());
  const std::string id = info->id, dataset = info->defaultDataset;
  const bool trainable = core::nn::trainable(id);
  m_model->update([&](core::experiment::Experiment& e) {
    e.train.modelId = id;
    if (!dataset.empty()) e.train.datasetId = dataset;
    e.train.fileWeights = false;
    e.trainHere = trainable;  // opened to train it, where the engine can
  });
  m_messages->showMessage(trainable ? MessageBar::Level::Info : MessageBar::Level::Warning,
                          tr("Opened %1").arg(QString::fromStdString(id)), QString::fromStdString(info->description));
  return true;
}

std::vector<core::nn::ModelInfo> MainWindow::modelsWithImports() const {
  std::vector<core::nn::ModelInfo> models = core::nn::modelCatalog();
  for (const core::nn::ModelInfo* m : core::nn::importedModels()) models.push_back(*m);
  return models;
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e) {
  // An ONNX graph dropped on the window joins the model list; a config.json or model file
  // opens in the LLM planner.
  const QList<QUrl> urls = e->mimeData()->urls();
  if (urls.size() != 1 || !urls.front().isLocalFile()) return;
  const QString file = urls.front().toLocalFile();
  if (file.endsWith(".json", Qt::CaseInsensitive) || file.endsWith(".onnx", Qt::CaseInsensitive)) e->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* e) {
  const QList<QUrl> urls = e->mimeData()->urls();
  if (urls.size() != 1 || !urls.front().isLocalFile()) return;
  e->acceptProposedAction();
  openModel(urls.front().toLocalFile());
}

LlmPlannerWindow* MainWindow::openLlmPlanner(const QString& presetId) {
  if (!m_llmPlanner) {
    m_llmPlanner = new LlmPlannerWindow(m_sim.get(), this);
    m_llmPlanner->setWindowFlag(Qt::Window);
    // One theme and one set of export options for every chart, the planner's included.
    m_llmPlanner->setTheme(m_appearance->theme());
    connect(m_appearance, &Appearance::themeChanged, m_llmPlanner, &LlmPlannerWindow::setTheme);
    m_llmPlanner->shareExportOptions([this] { return m_exportController->options(); }, m_actions.exportOptions);
  }
  if (!presetId.isEmpty() && !m_llmPlanner->openPreset(presetId)) return nullptr;
  m_llmPlanner->show();
  m_llmPlanner->raise();
  m_llmPlanner->activateWindow();
  return m_llmPlanner;
}

void MainWindow::readSettings() {
  QSettings s;
  if (!restoreGeometry(s.value(keys::kGeometry).toByteArray())) fitToScreen(this);  // a first start
  restoreState(s.value(keys::kWindowState).toByteArray());
  m_appearance->setTheme(Appearance::themeFromName(s.value(keys::kTheme, "light").toString()));
  m_exportController->readSettings(s);
  m_appearance->setPresentationScale(s.value(keys::kPresentationScale, 1.5).toDouble());
  m_deck->setShownCharts(s.value(keys::kShownCharts).toStringList());
  m_energyMenu->readSettings(s);

  const QString last = s.value(keys::kLastExperiment).toString();
  bool restored = false;
  if (!last.isEmpty()) {
    try {
      core::experiment::Experiment e = core::experiment::experimentFromJsonText(
          last.toStdString(), "settings: " + std::string(keys::kLastExperiment.data()));
      const QString presetId = QString::fromStdString(e.presetId);
      const QStringList unknown = m_model->set(std::move(e));
      m_presetController->setCurrent(presetId);
      restored = true;
      if (!unknown.isEmpty())
        m_messages->showMessage(MessageBar::Level::Warning, tr("Devices left out of the last experiment"),
                                tr("No device file defines %1 any more.").arg(unknown.join(", ")));
    } catch (const std::exception& e) {
      m_messages->showMessage(MessageBar::Level::Warning, tr("The last experiment could not be restored"),
                              QString::fromUtf8(e.what()));
    }
  }
  if (!restored && m_presetController->library().find(kFirstPreset)) m_presetController->apply(kFirstPreset);
}

void MainWindow::writeSettings() const {
  QSettings s;
  s.setValue(keys::kGeometry, saveGeometry());
  s.setValue(keys::kWindowState, saveState());
  s.setValue(keys::kTheme, Appearance::themeName(m_appearance->theme()));
  m_exportController->writeSettings(s);
  s.setValue(keys::kPresentationScale, m_appearance->presentationScale());
  s.setValue(keys::kShownCharts, m_deck->shownCharts());
  m_energyMenu->writeSettings(s);
  core::experiment::Experiment e = m_model->experiment();
  e.presetId = m_presetController->current() ? m_presetController->current()->id.toStdString() : std::string();
  s.setValue(keys::kLastExperiment, QString::fromStdString(core::experiment::experimentToJson(e).dump()));
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (m_session->isActive()) {
    // Stop cleanly first (within one batch); the window closes when the run has ended.
    m_closeRequested = true;
    m_runController->stopRun();
    statusBar()->showMessage(tr("Stopping the run before closing…"));
    event->ignore();
    return;
  }
  if (m_appearance->presentation()) m_appearance->setPresentation(false);
  writeSettings();
  m_runController->saveHistory();
  event->accept();
}

}  // namespace app::gui
