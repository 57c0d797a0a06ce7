#pragma once
// Hardware > New Device… and Edit Device…: opens the device editor on the device the user most
// likely means, and when a device file is saved reloads the catalog, so that the device is in
// the Hardware table at once (a new one ticked, ready to simulate). Hardware > Re-measure This
// Machine measures the host again off the GUI thread. GUI thread only.
#include <QObject>
#include <QString>

#include "app/gui/device_editor_dialog.h"

namespace widgets {
class HardwarePanel;
}  // namespace widgets

namespace app::gui {

struct AppActions;
class ExperimentModel;
class MessageBar;
class SimService;

class DeviceController : public QObject {
  Q_OBJECT
public:
  struct Parts {
    QWidget* window;  // the editor's parent
    SimService* sim;
    ExperimentModel* model;
    widgets::HardwarePanel* hardware;
    MessageBar* messages;
  };
  DeviceController(const AppActions& actions, Parts parts, QObject* parent = nullptr);

  // The open editor, raised, or a new one in `mode` (non-modal, deleted when closed).
  DeviceEditorDialog* showEditor(DeviceEditorDialog::Mode mode);
  // The device an editor opens on. New: the first ticked device, else the first GPU. Edit:
  // the user's first ticked device, else their first, else as New (shown read-only).
  QString defaultDevice(DeviceEditorDialog::Mode mode) const;
  // Measures this machine again on a worker thread (not while a run trains: a busy machine
  // reads slow), then reloads the catalog; hostRemeasured says how it went.
  void remeasureHost();
  bool remeasuring() const { return m_remeasuring; }

Q_SIGNALS:
  // The catalog was read again after a device file was saved (or this machine measured
  // again: "host"); the Hardware table shows it.
  void catalogReloaded(const QString& savedId);
  // Hardware > Re-measure This Machine finished (`ok`), with the measurement's own words.
  void hostRemeasured(bool ok, const QString& notes);

private:
  void reloadCatalog(const QString& id, const QString& path, bool created);
  void refreshCatalog();  // the catalog read again into the Hardware table, files skipped said
  void tick(const QString& id);

  Parts m_p;
  QAction* m_training = nullptr;  // Run > Stop: enabled while a run trains
  QAction* m_remeasure = nullptr;
  bool m_remeasuring = false;
};

}  // namespace app::gui
