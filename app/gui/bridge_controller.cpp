#include "app/gui/bridge_controller.h"

#include <QAction>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>
#include <cmath>

#include "app/gui/accuracy_dialog.h"
#include "app/gui/experiment_model.h"
#include "app/gui/message_bar.h"
#include "app/gui/run_controller.h"
#include "app/gui/sim_service.h"
#include "core/bridge/device_calibration.h"
#include "core/bridge/job_plan.h"
#include "core/bridge/torch_export.h"
#include "core/hw/device_catalog.h"
#include "core/sim/row_readings.h"
#include "core/sim/simulator.h"
#include "core/sim/validation.h"
#include "core/util/error.h"
#include "core/util/files.h"

namespace app::gui {
namespace {

QString signedPercent(double fraction) {
  return QString("%1%2%").arg(fraction >= 0 ? "+" : "").arg(fraction * 100, 0, 'f', 1);
}

// Simulate > Calibrate a device…: a base datasheet, the user's run logs, the fit, and the
// device file saved where the catalog finds it.
class CalibrateDialog : public QDialog {
public:
  CalibrateDialog(const SimService& sim, QWidget* parent) : QDialog(parent), m_sim(sim) {
    setWindowTitle(tr("Calibrate a device on your runs"));
    setObjectName("calibrateDialog");
    auto* form = new QFormLayout;
    m_base = new QComboBox(this);
    for (const auto& d : sim.catalog().devices())  // a datasheet file, or this machine as measured
      if (!d.filePath.empty() || d.measured)
        m_base->addItem(QString::fromStdString(d.name), QString::fromStdString(d.id));
    form->addRow(tr("Start from the datasheet of"), m_base);
    m_id = new QLineEdit("my-device", this);
    form->addRow(tr("New device id"), m_id);
    m_runs = new QListWidget(this);
    m_runs->setMinimumHeight(90);
    auto* add = new QPushButton(tr("Add run logs…"), this);
    connect(add, &QPushButton::clicked, this, [this] {
      for (const QString& f : QFileDialog::getOpenFileNames(this, tr("Run logs of exported jobs"), QString(),
                                                          tr("Run logs (*.jsonl)")))
        m_runs->addItem(f);
    });
    auto* runsBox = new QVBoxLayout;
    runsBox->addWidget(m_runs);
    runsBox->addWidget(add);
    form->addRow(tr("Measured runs"), runsBox);
    m_report = new QPlainTextEdit(this);
    m_report->setReadOnly(true);
    m_report->setPlaceholderText(tr("Fits the software figures the runs can pin (efficiency of GEMMs, per-step overhead, "
                                    "memory efficiency, per-op launch), and says which it left out and why."));
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    auto* fit = buttons->addButton(tr("Fit and save"), QDialogButtonBox::AcceptRole);
    connect(fit, &QPushButton::clicked, this, [this] { fitAndSave(); });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_report, 1);
    layout->addWidget(buttons);
    resize(620, 480);
  }

private:
  void fitAndSave() {
    try {
      std::vector<core::bridge::RunLog> runs;
      for (int i = 0; i < m_runs->count(); ++i) runs.push_back(core::bridge::readRunLog(m_runs->item(i)->text().toStdString()));
      core::bridge::CalibrationRequest req;
      req.base = m_sim.catalog().at(m_base->currentData().toString().toStdString());
      req.id = m_id->text().trimmed().toStdString();
      req.name = req.id + " (calibrated on your runs from " + req.base.name + ")";
      const auto r = core::bridge::calibrateDevice(req, runs, m_sim.catalog(), m_sim.stacks());
      const std::string dir = core::util::userDataDir() + "/devices";
      QDir().mkpath(QString::fromStdString(dir));
      const std::string path = dir + "/" + req.id + ".json";
      const std::string text = core::bridge::calibratedDeviceJson(r).dump(2) + "\n";
      core::hw::parseDeviceJson(text, path);  // it must load as written
      core::util::writeFileAtomic(path, text);
      QString report = tr("Fitted on %1 run(s) under the %2 stack:\n").arg(runs.size()).arg(QString::fromStdString(r.stackId));
      for (const auto& f : r.figures)
        report += QString("  %1 = %2 (was %3)\n").arg(QString::fromStdString(f.key)).arg(f.value, 0, 'g', 4).arg(f.start, 0, 'g', 4);
      for (const auto& s : r.skipped) report += tr("  left out: %1\n").arg(QString::fromStdString(s));
      report += tr("Fit error: median %1%, worst %2%\n").arg(r.fitMedianAbsPct, 0, 'f', 1).arg(r.fitMaxAbsPct, 0, 'f', 1);
      report += r.leaveOneOutMedianAbsPct
                    ? tr("Leave-one-out error: median %1%\n").arg(*r.leaveOneOutMedianAbsPct, 0, 'f', 1)
                    : tr("Leave-one-out error: needs 4 runs or more\n");
      report += tr("Saved %1. Restart AccelLab to simulate with it.").arg(QString::fromStdString(path));
      m_report->setPlainText(report);
    } catch (const std::exception& e) {
      m_report->setPlainText(tr("Not calibrated: %1").arg(QString::fromUtf8(e.what())));
    }
  }

  const SimService& m_sim;
  QComboBox* m_base;
  QLineEdit* m_id;
  QListWidget* m_runs;
  QPlainTextEdit* m_report;
};

}  // namespace

widgets::Run measuredRun(const core::bridge::RunLog& log, const core::bridge::RunPrediction& p) {
  widgets::Run run;
  const QString device = QString::fromStdString(log.deviceName);
  run.name = QObject::tr("measured on %1%2 · %3 · b%4")
                 .arg(log.deviceCount > 1 ? QString("%1× ").arg(log.deviceCount) : QString())
                 .arg(device, QString::fromStdString(log.model))
                 .arg(log.batch);
  run.config.modelId = log.model;
  run.config.datasetId = log.dataset;
  run.config.batch = log.batch;
  run.config.seed = log.seed;
  if (const auto prec = core::util::parsePrecision(log.precision)) run.config.precision = *prec;
  run.status = log.finished ? core::experiment::RunStatus::Finished : core::experiment::RunStatus::Stopped;
  const core::bridge::SteadyState ss = core::bridge::steadyState(log);
  run.statusMessage = QObject::tr("imported from %1: measured %2 ms/step (PyTorch %3)")
                          .arg(QFileInfo(QString::fromStdString(log.path)).fileName())
                          .arg(ss.stepSeconds * 1e3, 0, 'f', 2)
                          .arg(QString::fromStdString(log.torchVersion));
  if (p.known)
    run.statusMessage += QObject::tr("; simulated %1 ms/step on %2, error %3")
                             .arg(p.stepSeconds * 1e3, 0, 'f', 2)
                             .arg(QString::fromStdString(p.deviceId),
                                  QString::fromStdString(core::bridge::errorInWords(p.error)));
  else
    run.statusMessage += QObject::tr("; no prediction: %1").arg(QString::fromStdString(p.why));

  double wall = 0, samples = 0;
  for (const auto& s : log.steps) {
    core::experiment::BatchSample b;
    b.epoch = s.epoch + 1;
    b.step = s.step;
    b.loss = s.loss;
    b.accuracy = std::nan("");
    wall += s.seconds;
    samples += s.samples;
    b.wallSeconds = wall;
    b.stepSeconds = s.seconds;
    b.images = static_cast<std::int64_t>(samples);
    run.batches.push_back(b);
  }
  widgets::DeviceResult d;
  d.deviceId = QString::fromStdString(p.deviceId.empty() ? std::string("measured") : p.deviceId);
  d.label = QObject::tr("%1 (measured)").arg(device);
  d.count = log.deviceCount;
  d.measured = true;
  if (p.known) d.report = p.report;
  for (const auto& e : log.epochs) {
    core::experiment::EpochSample es;
    es.epoch = e.epoch + 1;
    es.trainLoss = e.trainLoss;
    es.testAccuracy = e.testAccuracy.value_or(std::nan(""));
    es.testLoss = std::nan("");
    es.trainAccuracy = std::nan("");
    es.hostSeconds = e.seconds;
    es.images = static_cast<std::int64_t>(e.samples);
    es.hostImagesPerSecond = e.seconds > 0 ? e.samples / e.seconds : 0;
    run.epochs.push_back(es);
    d.epochSeconds.push_back(e.seconds);
  }
  run.devices.push_back(d);
  return run;
}

BridgeController::BridgeController(const Parts& parts, QObject* parent) : QObject(parent), m_p(parts) {
  m_export = new QAction(tr("Export as &PyTorch job…"), this);
  m_export->setObjectName("exportPyTorchJobAction");
  m_export->setStatusTip(tr("Write this experiment as a runnable PyTorch training job (train.py and a README) to run on "
                            "a rented GPU, DDP/FSDP under torchrun for several"));
  connect(m_export, &QAction::triggered, this, &BridgeController::chooseAndExport);
  m_import = new QAction(tr("&Import measured run…"), this);
  m_import->setObjectName("importMeasuredRunAction");
  m_import->setStatusTip(tr("Read the log of an exported job (or a CSV of published measurements) and set the "
                            "simulator's prediction beside it"));
  connect(m_import, &QAction::triggered, this, &BridgeController::chooseAndImport);
  m_calibrate = new QAction(tr("&Calibrate a device on your runs…"), this);
  m_calibrate->setObjectName("calibrateDeviceAction");
  m_calibrate->setStatusTip(tr("Fit a device's efficiency figures on your own measured runs"));
  connect(m_calibrate, &QAction::triggered, this, &BridgeController::openCalibration);
}

QString BridgeController::exportJob(const QString& folder) {
  try {
    const core::experiment::Experiment& e = m_p.model->experiment();
    core::bridge::ExportRequest r;
    r.train = e.train;
    for (const auto& d : e.devices)
      if (d.deviceId != core::hw::kHostDeviceId && m_p.sim->catalog().find(d.deviceId)) {
        r.deviceId = d.deviceId;
        r.count = d.count;
        break;
      }
    if (r.train.batch % r.count != 0) r.count = 1;  // the job splits the global batch over its processes
    if (!r.deviceId.empty()) core::bridge::chooseStrategy(r, m_p.sim->catalog(), m_p.sim->stacks());
    const auto job = core::bridge::exportTorchJob(r);
    const QString py = QString::fromStdString(core::bridge::writeTorchJob(job, folder.toStdString()));
    m_p.messages->showMessage(MessageBar::Level::Info, tr("Exported %1 as a PyTorch job").arg(QString::fromStdString(job.modelId)),
                              tr("%1 and README.md (how to run it on a cloud GPU and bring the log back).").arg(py));
    return py;
  } catch (const std::exception& e) {
    m_p.messages->showMessage(MessageBar::Level::Warning, tr("The experiment could not be exported"), QString::fromUtf8(e.what()));
    return {};
  }
}

int BridgeController::importRun(const QString& path) {
  try {
    const std::string file = path.toStdString();
    const std::string text = core::util::readFile(file);
    if (!core::bridge::looksLikeRunLog(text) && path.endsWith(".csv", Qt::CaseInsensitive)) {
      auto rows = core::sim::parseReferenceCsv(text, file);
      core::sim::applyReadings(rows, core::sim::readRowReadings(core::sim::shippedRowReadingsPath()));
      const core::sim::Simulator sim(m_p.sim->catalog(), m_p.sim->stacks());
      AccuracyDialog dialog(core::sim::heldOutFromValidation(core::sim::validateRows(sim, rows),
                                                             QFileInfo(path).fileName().toStdString(), m_p.sim->catalog()),
                            m_p.window, false);
      dialog.setWindowTitle(tr("Published figures of %1 beside the simulator's").arg(QFileInfo(path).fileName()));
      dialog.exec();
      return 0;
    }
    const core::bridge::RunLog log = core::bridge::parseRunLog(text, file);
    const std::string device = core::bridge::matchDevice(m_p.sim->catalog(), log);
    const core::bridge::RunPrediction p = core::bridge::predictRun(m_p.sim->catalog(), m_p.sim->stacks(), log, device);
    const int id = m_p.runs->addRun(measuredRun(log, p));
    m_p.messages->showMessage(MessageBar::Level::Info, tr("Imported a run measured on %1").arg(QString::fromStdString(log.deviceName)),
                              p.known ? tr("%1 (%2, simulated / measured throughput - 1, on %3).")
                                            .arg(QString::fromStdString(core::bridge::errorInWords(p.error)),
                                                 signedPercent(p.error), QString::fromStdString(p.deviceId))
                                      : tr("No prediction: %1").arg(QString::fromStdString(p.why)));
    return id;
  } catch (const std::exception& e) {
    m_p.messages->showMessage(MessageBar::Level::Warning, tr("The run was not imported"), QString::fromUtf8(e.what()));
    return 0;
  }
}

void BridgeController::chooseAndExport() {
  const QString folder = QFileDialog::getExistingDirectory(m_p.window, tr("Export as PyTorch job into"),
                                                           m_folder.isEmpty() ? QDir::homePath() : m_folder);
  if (folder.isEmpty()) return;
  m_folder = folder;
  exportJob(folder);
}

void BridgeController::chooseAndImport() {
  const QString path = QFileDialog::getOpenFileName(m_p.window, tr("Import measured run"), m_folder,
                                                    tr("Run logs (*.jsonl);;Published measurements (*.csv);;All files (*)"));
  if (path.isEmpty()) return;
  m_folder = QFileInfo(path).absolutePath();
  importRun(path);
}

void BridgeController::openCalibration() {
  CalibrateDialog dialog(*m_p.sim, m_p.window);
  dialog.exec();
}

}  // namespace app::gui
