#include "app/gui/device_controller.h"

#include <QAction>
#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>

#include "app/gui/app_actions.h"
#include "app/gui/experiment_model.h"
#include "app/gui/message_bar.h"
#include "app/gui/sim_service.h"
#include "core/hw/host_probe.h"
#include "widgets/hardware_panel.h"

namespace app::gui {

using Mode = DeviceEditorDialog::Mode;

DeviceController::DeviceController(const AppActions& actions, Parts parts, QObject* parent)
    : QObject(parent), m_p(parts) {
  connect(actions.newDevice, &QAction::triggered, this, [this] { showEditor(Mode::New); });
  connect(actions.editDevice, &QAction::triggered, this, [this] { showEditor(Mode::Edit); });
  m_training = actions.stop;
  m_remeasure = actions.remeasureHost;
  connect(actions.remeasureHost, &QAction::triggered, this, &DeviceController::remeasureHost);
}

void DeviceController::remeasureHost() {
  if (m_remeasuring) return;
  if (m_training && m_training->isEnabled()) {
    m_p.messages->showMessage(MessageBar::Level::Warning, tr("Stop the run first to measure this machine"),
                              tr("A machine that is training measures slow: its rates would be the busy machine's."));
    return;
  }
  m_remeasuring = true;
  if (m_remeasure) m_remeasure->setEnabled(false);
  m_p.messages->showMessage(MessageBar::Level::Info, tr("Measuring this machine…"),
                            tr("About a second: the engine's GEMM on one and on every vCPU, and a memory copy."));
  struct Outcome {
    bool ok = false;
    QString text;
  };
  auto* watcher = new QFutureWatcher<Outcome>(this);
  connect(watcher, &QFutureWatcher<Outcome>::finished, this, [this, watcher] {
    const Outcome o = watcher->result();
    watcher->deleteLater();
    m_remeasuring = false;
    if (m_remeasure) m_remeasure->setEnabled(true);
    if (o.ok) {
      refreshCatalog();  // reads the measurement just written
      // A run started while it measured shares the CPUs with it (its time counts as this
      // process's own, not as other processes'): said, not hidden.
      if (m_training && m_training->isEnabled())
        m_p.messages->showMessage(MessageBar::Level::Warning, tr("This machine measured again while a run started"),
                                  o.text + tr("\nThe run shared the CPUs: measure again when it has finished."));
      else
        m_p.messages->showMessage(MessageBar::Level::Info, tr("This machine measured again"), o.text);
      Q_EMIT catalogReloaded(QString::fromLatin1(core::hw::kHostDeviceId));
    } else {
      m_p.messages->showMessage(MessageBar::Level::Error, tr("Cannot measure this machine"), o.text);
    }
    Q_EMIT hostRemeasured(o.ok, o.text);
  });
  watcher->setFuture(QtConcurrent::run([]() -> Outcome {
    try {
      return {true, QString::fromStdString(core::hw::hostDeviceSpec(core::hw::HostMeasure::Now).notes)};
    } catch (const std::exception& e) {
      return {false, QString::fromUtf8(e.what())};
    }
  }));
}

DeviceEditorDialog* DeviceController::showEditor(Mode mode) {
  if (auto* open = m_p.window->findChild<DeviceEditorDialog*>()) {
    open->raise();
    open->activateWindow();
    return open;
  }
  auto* dialog = new DeviceEditorDialog(m_p.sim->catalog().devices(), mode, defaultDevice(mode), m_p.window);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  connect(dialog, &DeviceEditorDialog::deviceSaved, this, &DeviceController::reloadCatalog);
  dialog->show();
  return dialog;
}

QString DeviceController::defaultDevice(Mode mode) const {
  const auto& devices = m_p.sim->catalog().devices();
  auto find = [&](auto wanted) {
    const auto it = std::find_if(devices.begin(), devices.end(), wanted);
    return it == devices.end() ? QString() : QString::fromStdString(it->id);
  };
  QStringList ticked;
  for (const auto& c : m_p.hardware->choices()) ticked << QString::fromStdString(c.deviceId);
  auto isTicked = [&](const core::hw::DeviceSpec& d) { return !d.measured && ticked.contains(QString::fromStdString(d.id)); };
  auto isUser = [](const core::hw::DeviceSpec& d) { return DeviceEditorDialog::isUserDevice(d); };
  QString id;
  if (mode == Mode::Edit) {
    id = find([&](const core::hw::DeviceSpec& d) { return isUser(d) && isTicked(d); });
    if (id.isEmpty()) id = find(isUser);
  }
  if (id.isEmpty()) id = find(isTicked);
  if (id.isEmpty()) id = find([](const core::hw::DeviceSpec& d) { return d.kind == core::hw::DeviceKind::Gpu; });
  return id;
}

void DeviceController::refreshCatalog() {
  m_p.sim->reloadDevices();
  m_p.hardware->setCatalog(m_p.sim->catalog().devices());  // keeps every row's choices
  const QStringList errors = m_p.sim->loadErrors();
  m_p.hardware->setNote(errors.isEmpty() ? QString() : tr("Skipped device files:\n%1").arg(errors.join('\n')));
}

void DeviceController::reloadCatalog(const QString& id, const QString& path, bool created) {
  refreshCatalog();
  if (created) tick(id);
  m_p.messages->showMessage(MessageBar::Level::Info, tr("Saved device \"%1\"").arg(id),
                            created ? tr("%1\nIt is ticked in the Hardware table, ready to simulate.").arg(path)
                                    : tr("%1\nThe Hardware table simulates with its new figures.").arg(path));
  Q_EMIT catalogReloaded(id);
}

void DeviceController::tick(const QString& id) {
  const std::string deviceId = id.toStdString();
  m_p.model->update([&](core::experiment::Experiment& e) {
    const bool there = std::any_of(e.devices.begin(), e.devices.end(),
                                   [&](const core::experiment::DeviceChoice& c) { return c.deviceId == deviceId; });
    if (there) return;
    core::experiment::DeviceChoice choice;
    choice.deviceId = deviceId;
    e.devices.push_back(choice);
  });
}

}  // namespace app::gui
