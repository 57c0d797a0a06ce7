#pragma once
// The AccelLab main window. Its constructor reads like a table of contents (Qt's
// application example); the work lives in the parts it wires: the panels (widgets/), the
// chart deck, the training session and one controller per responsibility (runs, presets,
// exports, what-if estimates, appearance).
#include <QByteArray>
#include <QMainWindow>
#include <memory>
#include <vector>

#include "app/gui/app_actions.h"
#include "core/nn/zoo.h"

class QDialog;
class QDockWidget;

namespace widgets {
class ChartDeck;
class ExperimentPanel;
class HardwarePanel;
class SamplesPanel;
class RunStore;
}  // namespace widgets

namespace app::gui {

class Appearance;
class ExperimentModel;
class BridgeController;
class DeviceController;
class EnergyMenu;
class ExportController;
class GuidePanel;
class LlmPlannerWindow;
class MessageBar;
class PresetController;
class RunController;
class RunStatusWidget;
class RunsPanel;
class SetupController;
class SimService;
class TrainingSession;

class MainWindow : public QMainWindow {
  Q_OBJECT
public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  QDockWidget* experimentDock() const { return m_experimentDock; }
  QDockWidget* hardwareDock() const { return m_hardwareDock; }
  QDockWidget* runsDock() const { return m_runsDock; }
  QDockWidget* guideDock() const { return m_guideDock; }
  QDockWidget* samplesDock() const { return m_samplesDock; }
  // Help > Getting started: a short illustrated page (resources/help/getting-started.html).
  QDialog* showGettingStarted();
  // Getting started, the first time the app starts for this user (then only from Help): the
  // dialog, or nullptr when it was shown before.
  QDialog* showGettingStartedOnce();
  // Run > Compare runs: the ticked runs side by side, differences marked (kept current).
  QDialog* showRunComparison();
  widgets::SamplesPanel* samplesPanel() const { return m_samples; }
  const AppActions& actions() const { return m_actions; }
  widgets::RunStore* store() const { return m_store; }
  widgets::ChartDeck* deck() const { return m_deck; }
  ExperimentModel* experimentModel() const { return m_model; }
  widgets::ExperimentPanel* experimentPanel() const { return m_experiment; }
  widgets::HardwarePanel* hardwarePanel() const { return m_hardware; }
  GuidePanel* guidePanel() const { return m_guide; }
  RunsPanel* runsPanel() const { return m_runs; }
  MessageBar* messageBar() const { return m_messages; }
  RunStatusWidget* runStatus() const { return m_runStatus; }
  TrainingSession* session() const { return m_session; }
  const SimService& sim() const { return *m_sim; }
  RunController* runController() const { return m_runController; }
  PresetController* presetController() const { return m_presetController; }
  ExportController* exportController() const { return m_exportController; }
  BridgeController* bridgeController() const { return m_bridge; }
  DeviceController* deviceController() const { return m_devices; }
  SetupController* setupController() const { return m_setupController; }
  Appearance* appearance() const { return m_appearance; }

  void writeSettings() const;
  // The LLM training planner (one window, created on first use) showing LLM preset `presetId`
  // ("" = as it is); nullptr when no preset has that id.
  LlmPlannerWindow* openLlmPlanner(const QString& presetId = {});
  // File > Open Model… or a file dropped on the window: an ONNX graph or a CNN/RNN's model file
  // (kind "layer_graph") joins the model list, trained and simulated like the zoo's; a Hugging
  // Face config.json or a transformer's model file is planned in the LLM planner. False, with the reason in the message bar, when it does not read.
  bool openModel(const QString& path);
  // The planner window if it was opened (even when the preset asked for was not found).
  LlmPlannerWindow* llmPlanner() const { return m_llmPlanner; }

protected:
  void closeEvent(QCloseEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* e) override;
  void dropEvent(QDropEvent* e) override;

private:
  void createActions();
  void createCharts();
  void createDocks();
  void createControllers();
  void createMenus();
  void addChartsShownMenu(QMenu* view);
  void createToolBars();
  void readSettings();
  void sizeDocks();    // the panels' first-start sizes
  void resetLayout();  // View > Reset Layout
  void showPreferences();
  void about();
  void chooseModel();
  bool openEngineModel(const QString& path);  // an ONNX graph or a layer-graph model file
  std::vector<core::nn::ModelInfo> modelsWithImports() const;  // the zoo, then what was opened

  widgets::RunStore* m_store;
  std::unique_ptr<SimService> m_sim;
  TrainingSession* m_session;
  AppActions m_actions;
  widgets::ChartDeck* m_deck = nullptr;
  MessageBar* m_messages = nullptr;
  RunStatusWidget* m_runStatus = nullptr;
  ExperimentModel* m_model = nullptr;  // the experiment the panels edit
  widgets::ExperimentPanel* m_experiment = nullptr;
  widgets::HardwarePanel* m_hardware = nullptr;
  GuidePanel* m_guide = nullptr;
  RunsPanel* m_runs = nullptr;
  QDockWidget* m_experimentDock = nullptr;
  QDockWidget* m_hardwareDock = nullptr;
  QDockWidget* m_runsDock = nullptr;
  QDockWidget* m_guideDock = nullptr;
  QDockWidget* m_samplesDock = nullptr;
  widgets::SamplesPanel* m_samples = nullptr;
  RunController* m_runController = nullptr;
  PresetController* m_presetController = nullptr;
  ExportController* m_exportController = nullptr;
  BridgeController* m_bridge = nullptr;
  DeviceController* m_devices = nullptr;
  EnergyMenu* m_energyMenu = nullptr;
  SetupController* m_setupController = nullptr;
  Appearance* m_appearance = nullptr;
  LlmPlannerWindow* m_llmPlanner = nullptr;
  bool m_closeRequested = false;
  QByteArray m_defaultLayout;  // the docks as built, before the saved layout (View > Reset Layout)
};

}  // namespace app::gui
