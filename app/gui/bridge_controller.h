#pragma once
// The bridge to real hardware in the GUI: File > "Export as PyTorch job…" (the experiment as a
// runnable train.py + README), File > "Import measured run…" (a job's log joins the runs list as
// "measured on <device>", beside the simulator's prediction, and is kept in run history; a
// reference CSV is set beside the predictions row by row) and Simulate > "Calibrate a device…".
#include <QObject>
#include <QString>

#include "core/bridge/run_log.h"
#include "core/bridge/run_prediction.h"
#include "widgets/run_store.h"

class QAction;
class QWidget;

namespace app::gui {

class ExperimentModel;
class MessageBar;
class RunController;
class SimService;

// A measured run as the runs list and the charts hold it: steps and epochs from the log, the
// device it ran on marked measured, the prediction as its report (the host-check chart draws
// both) and the error in its status line.
widgets::Run measuredRun(const core::bridge::RunLog& log, const core::bridge::RunPrediction& prediction);

class BridgeController : public QObject {
  Q_OBJECT
public:
  struct Parts {
    QWidget* window = nullptr;
    SimService* sim = nullptr;
    ExperimentModel* model = nullptr;
    RunController* runs = nullptr;
    MessageBar* messages = nullptr;
  };
  BridgeController(const Parts& parts, QObject* parent = nullptr);

  QAction* exportJobAction() const { return m_export; }
  QAction* importRunAction() const { return m_import; }
  QAction* calibrateAction() const { return m_calibrate; }

  // The work behind the actions, without their dialogs (tests, scripts). Problems go to the
  // message bar, naming the file, line and field; nothing is added or lost then.
  QString exportJob(const QString& folder);  // train.py's path, empty on failure
  int importRun(const QString& path);        // the new run's id, 0 on refusal (a CSV: 0, dialog shown)

private:
  void chooseAndExport();
  void chooseAndImport();
  void openCalibration();

  Parts m_p;
  QAction* m_export = nullptr;
  QAction* m_import = nullptr;
  QAction* m_calibrate = nullptr;
  QString m_folder;  // last folder used
};

}  // namespace app::gui
