#pragma once
// Hardware > New Device… and Edit Device…: a device file from a form, without a text editor.
// The form starts from a catalog device (its file's values and sources) and shows every key of
// the device-file table with its unit and the range the loader enforces (core::hw::
// deviceKeyInfo: one table). A figure the user changes gets a source of its own, "entered by
// the user" and today's date unless they say better. Save builds the file's text with the
// catalog's writer (core::hw::deviceFileText), validates it exactly as the loader does
// (core::hw::parseDeviceJson), and only then writes <userDataDir>/devices/<id>.json
// atomically. Built-in devices are read-only: they are saved as a new id; an id of a built-in
// device is refused (the user file would replace it silently); overwriting another user file
// is asked first. GUI thread only.
#include <QDialog>
#include <QString>
#include <vector>

#include "core/hw/device_catalog.h"
#include "core/util/json.h"

class QComboBox;
class QGridLayout;
class QLabel;
class QLineEdit;
class QPushButton;

namespace app::gui {

class DeviceEditorDialog : public QDialog {
  Q_OBJECT
public:
  // New: a new device, starting from a template. Edit: the user's device, saved in place.
  enum class Mode { New, Edit };

  // `devices`: the catalog (copied: the app reloads its own when a device is saved);
  // `deviceId`: the device to start from or to edit (empty or unknown: the first).
  DeviceEditorDialog(std::vector<core::hw::DeviceSpec> devices, Mode mode, const QString& deviceId,
                     QWidget* parent = nullptr);

  Mode mode() const { return m_mode; }
  // The device the form started from (New) or edits (Edit).
  QString deviceId() const;
  // Starts from (or edits) another catalog device; false when the id is not in the list.
  bool selectDevice(const QString& id);
  // Whether the form edits a built-in device, which cannot be saved in place.
  bool isReadOnly() const;
  // Validates the form and writes the file: its path, or empty when nothing was written
  // (errorText() says why, or the user declined to overwrite).
  QString save();
  QString errorText() const;

  // A device file of the user's (in userDataDir()/devices), not a built-in one.
  static bool isUserDevice(const core::hw::DeviceSpec& spec);
  // The ids of the shipped device files (resourceDir()/devices), and "host" (this machine).
  static QStringList builtInIds();

Q_SIGNALS:
  // A device file was written (and loads as written).
  void deviceSaved(const QString& id, const QString& path, bool created);

private:
  // One key of the form: its value editor and, for a figure, its source.
  struct Field {
    const core::hw::DeviceKeyInfo* key = nullptr;
    QLineEdit* value = nullptr;   // figures and free text
    QComboBox* choice = nullptr;  // kind, generation, price_seller
    QLineEdit* ref = nullptr;     // figures: the source's document
    QLineEdit* date = nullptr;    // figures: the source's date
    QString templateValue;        // as the template file has it, to tell a changed figure
    bool sourceTyped = false;     // the user typed this source: a value change keeps it
  };

  void createTemplateChooser();
  void createFields();
  void createButtons();
  void layOut();
  void addFieldRow(QGridLayout* grid, int row, Field& f);
  void setMode(Mode mode);
  void loadTemplate(const core::hw::DeviceSpec& spec);
  void showField(Field& f, const core::util::Json* value, const core::hw::SourcedValue* source);
  void valueEdited(Field& f);
  void updateReadOnly();
  void saveAsNew();

  QString valueText(const Field& f) const;
  const core::hw::DeviceSpec* current() const;
  std::string targetPath(const std::string& id) const;
  core::util::Json formValues(const std::string& path) const;
  std::vector<core::hw::SourcedValue> formSources(const core::util::Json& values) const;
  void checkIdIsFree(const std::string& id) const;
  bool confirmOverwrite(const QString& id, const QString& path);
  void showError(const QString& message);
  Field* fieldOf(const std::string& key);

  std::vector<core::hw::DeviceSpec> m_devices;
  Mode m_mode;
  core::util::Json m_templateFile;  // the template's file: the keys the form does not show
  std::vector<Field> m_fields;
  QLabel* m_chooserLabel = nullptr;
  QComboBox* m_chooser = nullptr;   // the catalog's devices: the template (New) or the device (Edit)
  QLabel* m_readOnlyNote = nullptr;
  QLabel* m_error = nullptr;
  QPushButton* m_save = nullptr;
  QPushButton* m_saveAsNew = nullptr;
};

}  // namespace app::gui
