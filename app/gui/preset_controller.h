#pragma once
// Presets in the window: File ▸ Presets (the shipped ones and the user's), Open Preset…,
// Save Set-up as Preset…, and applying one to the experiment. Problems (a file that fails
// validation, an id the catalogs do not know) are shown in the message bar, naming the
// file and the key; a preset that points outside the data folders asks before it is used.
#include <QObject>
#include <functional>
#include <optional>

#include "app/gui/app_actions.h"
#include "app/gui/preset.h"

class QMenu;
class QWidget;

namespace app::gui {

class ExperimentModel;
class MessageBar;

class PresetController : public QObject {
  Q_OBJECT
public:
  PresetController(const AppActions& actions, ExperimentModel* experiment, MessageBar* messages, QWidget* window,
                   QObject* parent = nullptr);

  PresetLibrary& library() { return m_library; }
  void reload();                       // re-reads the folders and rebuilds the menu
  QMenu* menu() const { return m_menu; }

  // Applies a preset from the library by id or unique prefix; false (and a message naming
  // why: no such preset, or the real error of its file) when there is none or it is refused.
  bool apply(const QString& idOrPrefix);
  // Applies `preset`. One that points outside the data folders (data_folders.h) asks first
  // (the shipped presets are trusted); false when the user declines or a scripted run
  // refuses it. lastError() says why.
  bool apply(const Preset& preset);
  // A scripted run (--run, --export-dir, --quit-when-done) asks nothing: a preset pointing
  // outside the data folders is refused unless `allowOutsideData` (--allow-outside-data),
  // and one naming a device, dataset or model the catalogs do not know is refused, where the
  // window only warns.
  void setScripted(bool scripted, bool allowOutsideData);
  // Asks whether to read a path outside the data folders (the question in words); the
  // default shows a QMessageBox. Tests put their own answer here.
  void setAskOutsideData(std::function<bool(const QString& question)> ask) { m_askOutsideData = std::move(ask); }
  // Why the last apply() returned false (file, key and why); empty after one that succeeded.
  QString lastError() const { return m_lastError; }
  // True when `preset` came from the shipped presets folder (it is read without asking).
  static bool isShipped(const Preset& preset);
  const std::optional<Preset>& current() const { return m_current; }
  // Forget the preset (the user's own set-up), or remember one by id without touching the
  // panels (restoring the last session).
  void setCurrent(const QString& id);

  void openFile();
  void saveAs();
  // Saves the panels' set-up as a user preset; returns the file, or throws core::util::Error.
  QString saveUserPreset(const QString& title);

Q_SIGNALS:
  void presetChanged(const std::optional<app::gui::Preset>& preset);

private:
  void rebuildMenu();
  QStringList unknownIds(const Preset& preset) const;
  // Whether `preset` may be read: shipped, inside the data folders, or allowed (asked in the
  // window, --allow-outside-data in a scripted run). Sets m_lastError when not.
  bool mayRead(const Preset& preset);

  ExperimentModel* m_experiment;
  MessageBar* m_messages;
  QWidget* m_window;
  QMenu* m_menu;
  PresetLibrary m_library;
  std::optional<Preset> m_current;
  QString m_lastProblem;  // the message this controller last showed
  QString m_lastError;    // why the last apply() refused
  bool m_scripted = false;
  bool m_allowOutsideData = false;
  std::function<bool(const QString&)> m_askOutsideData;
};

}  // namespace app::gui
