#pragma once
// The LLM training planner window (Simulate → LLM training planner…): an LlmStudy edited in
// widgets::LlmPlannerPanel, simulated on every edit (a few milliseconds: each scenario's plan
// search and its scaling curve), presets from resources/llm-presets, and exports: the charts
// through the one chart exporter (PNG/PDF/SVG at the Export Options, their data as the tidy
// CSV/JSON) and the results table (CSV/JSON, every figure marked simulated). GUI thread only.
#include <QMainWindow>
#include <QTimer>
#include <functional>
#include <utility>
#include <vector>

#include "core/sim/llm_study.h"
#include "widgets/chart_theme.h"
#include "widgets/export_options.h"
#include "widgets/llm_planner_panel.h"

class QAction;
class QMenu;


namespace app::gui {

class SimService;

class LlmPlannerWindow : public QMainWindow {
  Q_OBJECT
public:
  LlmPlannerWindow(const SimService* sim, QWidget* parent = nullptr);

  // The shipped presets (resources/llm-presets/*.json), in file-name order; files that fail
  // to load, and studies naming a device or stack the catalogs do not know, are left out and
  // listed in loadErrors() (file, key and why), shown in the status bar.
  const std::vector<core::sim::LlmStudy>& presets() const { return m_presets; }
  // The shipped LLM presets, read without a window (for --list-presets); bad files skipped.
  static std::vector<core::sim::LlmStudy> shippedPresets(QStringList* errors = nullptr);
  QStringList loadErrors() const { return m_loadErrors; }
  // Why the preset `id` was refused (a device or stack the catalogs do not know), or empty.
  QString presetError(const QString& id) const;
  bool openPreset(const QString& id);
  // Reads a Hugging Face config.json or an AccelLab model file, adds the model to the list and
  // plans it with the shown scenarios. False with the reader's message (file, key, why).
  bool openModel(const QString& path, QString* error);
  // Asks for a file (File > Open Model…), then openModel; a file that does not read is shown.
  void chooseModel();
  widgets::LlmPlannerPanel* panel() const { return m_panel; }
  // The charts follow the main window's theme (View > Dark Theme).
  void setTheme(widgets::ChartTheme theme) { m_panel->setTheme(theme); }
  // The main window's Export Options (size, dpi, font scale) and its action to edit them; until
  // given, charts export at ExportOptions::screen().
  void shareExportOptions(std::function<widgets::ExportOptions()> options, QAction* editOptions);
  widgets::ExportOptions exportOptions() const;
  // Simulates the shown study now (edits wait ~60 ms for more edits first).
  void recompute();
  // Writes every chart (PNG at the export options), the results (CSV, JSON) and a screenshot
  // (llm-window.png) into `dir`; every file is tried, and each one that could not be written is
  // named in `errors`.
  bool exportAll(const QString& dir, QStringList* errors);
  QString resultsCsv() const;
  QByteArray resultsJson() const;
  // Writes the selected scenario (the results table's current row) as a PyTorch job, train.py
  // and README.md, into `dir`: the job `accellab-cli export-script --model M --seq-len --batch
  // --precision --finetune --lora-rank --device D --count N --stack S` writes for it (one
  // core::bridge::transformerExportRequest), the plan the simulator's search finds among those a
  // plain PyTorch job runs. False with why (a TPU scenario; files already there unless
  // `overwrite`); `summary` says what was written and how to run it.
  bool exportJob(const QString& dir, bool overwrite, QString* error, QString* summary = nullptr);

private:
  // Every readable study file in resources/llm-presets with its path; problems to `errors`.
  static std::vector<std::pair<QString, core::sim::LlmStudy>> readPresetFiles(QStringList* errors);
  void loadPresets();
  // The shipped, user and imported transformers, for the model list.
  static QVector<widgets::LlmPlannerPanel::ModelItem> modelItems();
  void createMenus();
  void exportChart();
  void exportData();     // the charts' data, the tidy CSV/JSON of every chart
  void exportResults();  // the results table
  void chooseExportJob(); // asks for a folder (and before replacing a job there), then exportJob
  void reportExport(const QString& path, const QStringList& errors);

  const SimService* m_sim;
  widgets::LlmPlannerPanel* m_panel;
  QMenu* m_exportMenu = nullptr;
  std::function<widgets::ExportOptions()> m_exportOptions;
  QTimer m_debounce;
  std::vector<core::sim::LlmStudy> m_presets;
  QStringList m_loadErrors;
  std::vector<std::pair<QString, QString>> m_refused;  // id of a study refused, why
  core::sim::LlmStudy m_study;
  std::vector<core::sim::LlmOutcome> m_outcomes;
};

}  // namespace app::gui
