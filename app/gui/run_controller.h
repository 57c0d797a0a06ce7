#pragma once
// Run / Pause / Stop: builds a RunPlan from the panels (and the loaded preset's published
// figures), starts the session, follows it in the status bar, tells the user what went
// wrong in the message bar, keeps the actions' enablement in step with the state, and saves
// the run history whenever the list changes.
#include <QObject>
#include <QString>
#include <memory>
#include <optional>

#include "app/gui/app_actions.h"
#include "app/gui/preset.h"
#include "core/experiment/names.h"

namespace widgets {
class RunStore;
}  // namespace widgets

namespace app::gui {

class MessageBar;
class RunStatusWidget;
class RunsPanel;
class TrainingSession;
class ExperimentModel;
class RunHistory;
struct RunPlan;

class RunController : public QObject {
  Q_OBJECT
public:
  struct Parts {
    AppActions actions;
    TrainingSession* session = nullptr;
    widgets::RunStore* store = nullptr;
    const ExperimentModel* experiment = nullptr;
    MessageBar* messages = nullptr;
    RunStatusWidget* status = nullptr;
    RunsPanel* runs = nullptr;
  };
  // `historyFolder`: where the runs are kept (RunHistory::defaultFolder() in the app).
  RunController(const Parts& parts, QString historyFolder, QObject* parent = nullptr);
  ~RunController() override;

  // The preset whose references and target accuracy runs carry while its model and
  // dataset are the ones chosen (nullopt: none).
  void setPreset(const std::optional<Preset>& preset);
  RunPlan currentPlan() const;

  int startRun();        // the new run's id; 0 when refused (already running)
  void setPaused(bool paused);
  void stopRun();
  void toggleSelectedVisible();
  void deleteSelected();
  void deleteFinished();

  void loadHistory();    // at start; problems go to the message bar
  // A run that was not trained here (an imported measurement): added to the runs list, made
  // current and written to the history at once. Returns its id.
  int addRun(widgets::Run run);
  // Writes every run not yet on disk and waits for the writes; false (and the message bar
  // says why) when one failed. Runs are otherwise saved as they change, one file each.
  bool saveHistory();
  QString historyFolder() const;

Q_SIGNALS:
  void runFinished(int runId, core::experiment::RunStatus status);

private:
  void onStarted(int runId);
  void onFinished(int runId, core::experiment::RunStatus status, const QString& message);
  void updateActions();
  void saveRun(int runId);
  void reportWriteErrors();
  bool isDeletable(int runId) const;

  Parts m_p;
  std::unique_ptr<RunHistory> m_history;
  std::optional<Preset> m_preset;
};

}  // namespace app::gui
