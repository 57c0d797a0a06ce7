#pragma once
// Presets in the window: File ▸ Presets (the shipped ones and the user's), Open Preset…,
// Save Set-up as Preset…, and applying one to the experiment. Problems (a file that fails
// validation, an id the catalogs do not know) are shown in the message bar, naming the
// file and the key.
#include <QObject>
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

  // Applies a preset from the library by id or unique prefix; false (and a message) when
  // there is none.
  bool apply(const QString& idOrPrefix);
  void apply(const Preset& preset);
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

  ExperimentModel* m_experiment;
  MessageBar* m_messages;
  QWidget* m_window;
  QMenu* m_menu;
  PresetLibrary m_library;
  std::optional<Preset> m_current;
  QString m_lastProblem;  // the message this controller last showed
};

}  // namespace app::gui
