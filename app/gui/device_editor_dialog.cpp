#include "app/gui/device_editor_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileInfo>
#include <QFormLayout>
#include <QGridLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMessageBox>
#include <QPushButton>
#include <QRegularExpressionValidator>
#include <QScrollArea>
#include <QVBoxLayout>
#include <optional>

#include "core/hw/catalog_files.h"
#include "core/hw/device_spec.h"
#include "core/util/error.h"
#include "core/util/files.h"

namespace app::gui {
namespace {

using core::hw::DeviceKeyInfo;
using core::hw::DeviceSpec;
using core::util::Json;

// The source a figure the user changed gets until they name a better one. Written into the
// file, so not translated.
const char* const kEnteredByUser = "entered by the user";

QString qs(const std::string& s) { return QString::fromStdString(s); }

std::string userDevicesDir() { return core::util::userDataDir() + "/devices"; }

// "[0.1, 1000000]", as the loader's own errors write a range.
QString rangeText(const DeviceKeyInfo& k) {
  return QStringLiteral("[%1, %2]").arg(qs(core::util::formatNumber(k.lo)), qs(core::util::formatNumber(k.hi)));
}

// A number as the user typed it: the C locale's ("1234.5", "1e6"), else their own ("1,5").
std::optional<double> parseNumber(const QString& text) {
  bool ok = false;
  double v = QLocale::c().toDouble(text, &ok);
  if (!ok) v = QLocale().toDouble(text, &ok);
  return ok ? std::optional<double>(v) : std::nullopt;
}

// The key a loader error names ("<path>: key 'mem_gib': ..."), or empty.
std::string keyNamedIn(const std::string& message) {
  const std::string tag = "key '";
  const auto at = message.find(tag);
  if (at == std::string::npos) return {};
  const auto end = message.find('\'', at + tag.size());
  return end == std::string::npos ? std::string() : message.substr(at + tag.size(), end - at - tag.size());
}

// The loader's message, with the key's plausible range where it does not give it: "must be
// positive (got 0)" leaves the user guessing what a bandwidth should be.
QString withRange(const std::string& message) {
  QString out = qs(message);
  const DeviceKeyInfo* k = core::hw::findDeviceKeyInfo(keyNamedIn(message));
  if (k && !k->text && message.find("plausible range") == std::string::npos)
    out += "\n" + QObject::tr("Plausible range for %1: %2 %3").arg(qs(k->name), rangeText(*k), qs(k->unit)).trimmed();
  return out;
}

// A value of the template's file as the form shows it.
QString shownValue(const Json* v) {
  if (!v) return {};
  if (v->isNumber()) return qs(core::util::formatNumber(v->asNumber()));
  if (v->isString()) return qs(v->asString());
  return qs(v->dump());
}

// The devices a form can start from: those with a file (not the measured host).
std::vector<DeviceSpec> withFiles(std::vector<DeviceSpec> devices) {
  std::erase_if(devices, [](const DeviceSpec& d) { return d.measured || d.filePath.empty(); });
  return devices;
}

}  // namespace

DeviceEditorDialog::DeviceEditorDialog(std::vector<DeviceSpec> devices, Mode mode, const QString& deviceId,
                                       QWidget* parent)
    : QDialog(parent), m_devices(withFiles(std::move(devices))), m_mode(mode) {
  setObjectName("DeviceEditor");
  createTemplateChooser();
  createFields();
  createButtons();
  layOut();
  setMode(mode);
  if (!selectDevice(deviceId) && !m_devices.empty()) selectDevice(qs(m_devices.front().id));
}

bool DeviceEditorDialog::isUserDevice(const DeviceSpec& spec) {
  return !spec.filePath.empty() && core::util::isInside(spec.filePath, userDevicesDir());
}

QStringList DeviceEditorDialog::builtInIds() {
  QStringList ids{QString::fromLatin1(core::hw::kHostDeviceId)};  // this machine, measured: added after every file
  for (const auto& f : core::hw::jsonFilesIn(core::util::resourceDir() + "/devices").files)
    ids << QFileInfo(qs(f)).completeBaseName();
  return ids;
}

void DeviceEditorDialog::createTemplateChooser() {
  m_chooserLabel = new QLabel(this);
  m_chooser = new QComboBox(this);
  m_chooser->setObjectName("device");
  for (const auto& d : m_devices)
    m_chooser->addItem(isUserDevice(d) ? tr("%1 (%2, yours)").arg(qs(d.name), qs(d.id)) : tr("%1 (%2)").arg(qs(d.name), qs(d.id)),
                       qs(d.id));
  m_chooserLabel->setBuddy(m_chooser);
  connect(m_chooser, &QComboBox::currentIndexChanged, this, [this](int i) {
    if (i >= 0) loadTemplate(m_devices[static_cast<std::size_t>(i)]);
  });
}

void DeviceEditorDialog::createFields() {
  const auto& keys = core::hw::deviceKeyInfo();
  m_fields.resize(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    Field& f = m_fields[i];
    f.key = &keys[i];
    const QString name = qs(f.key->name);
    if (!f.key->choices.empty()) {
      f.choice = new QComboBox(this);
      f.choice->setObjectName("value_" + name);
      if (!f.key->required) f.choice->addItem(tr("(not set)"), QString());
      for (const auto& c : f.key->choices) f.choice->addItem(qs(c), qs(c));
      continue;
    }
    f.value = new QLineEdit(this);
    f.value->setObjectName("value_" + name);
    if (f.key->text) continue;
    f.value->setPlaceholderText(tr("not set"));
    f.ref = new QLineEdit(this);
    f.ref->setObjectName("ref_" + name);
    f.ref->setPlaceholderText(tr("document or URL"));
    connect(f.ref, &QLineEdit::textChanged, f.ref, &QLineEdit::setToolTip);  // a long reference, whole
    f.date = new QLineEdit(this);
    f.date->setObjectName("date_" + name);
    f.date->setPlaceholderText(tr("YYYY-MM"));
    f.date->setMaximumWidth(110);
    connect(f.value, &QLineEdit::textEdited, this, [this, i] { valueEdited(m_fields[i]); });
    for (QLineEdit* source : {f.ref, f.date})
      connect(source, &QLineEdit::textEdited, this, [this, i] { m_fields[i].sourceTyped = true; });
  }
  // The id is the file's name: only what the loader accepts can be typed.
  fieldOf("id")->value->setValidator(new QRegularExpressionValidator(QRegularExpression("[a-z0-9-]*"), this));
  fieldOf("id")->value->setPlaceholderText(tr("my-gpu: a-z, 0-9 and '-'; the file's name"));
}

void DeviceEditorDialog::createButtons() {
  m_readOnlyNote = new QLabel(tr("Built-in devices are read-only: save as a new id."), this);
  m_readOnlyNote->setObjectName("readOnlyNote");
  m_readOnlyNote->setStyleSheet("font-weight: bold;");
  m_error = new QLabel(this);
  m_error->setObjectName("errorLabel");
  m_error->setWordWrap(true);
  m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_error->setStyleSheet("color: #b00020;");
  m_error->hide();
  m_save = new QPushButton(tr("&Save"), this);
  m_save->setObjectName("saveButton");
  m_save->setDefault(true);
  connect(m_save, &QPushButton::clicked, this, [this] { save(); });
  m_saveAsNew = new QPushButton(tr("Save &as New…"), this);
  m_saveAsNew->setObjectName("saveAsNewButton");
  m_saveAsNew->setToolTip(tr("Keep these figures as a new device of yours, under a new id"));
  connect(m_saveAsNew, &QPushButton::clicked, this, [this] { saveAsNew(); });
}

void DeviceEditorDialog::layOut() {
  auto* top = new QFormLayout;
  top->addRow(m_chooserLabel, m_chooser);
  top->addRow(tr("&Id"), fieldOf("id")->value);
  top->addRow(tr("&Name"), fieldOf("name")->value);

  auto* table = new QWidget;
  auto* grid = new QGridLayout(table);
  const QStringList headers{tr("Key"), tr("Value"), tr("Unit"), tr("Plausible range"), tr("Source"), tr("Date")};
  for (int c = 0; c < headers.size(); ++c) grid->addWidget(new QLabel("<b>" + headers[c] + "</b>"), 0, c);
  int row = 1;
  for (Field& f : m_fields)
    if (f.key->name != "id" && f.key->name != "name") addFieldRow(grid, row++, f);
  grid->setColumnStretch(4, 1);
  grid->setRowStretch(row, 1);
  auto* scroll = new QScrollArea(this);
  scroll->setWidget(table);
  scroll->setWidgetResizable(true);

  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  buttons->addButton(m_saveAsNew, QDialogButtonBox::ActionRole);
  buttons->addButton(m_save, QDialogButtonBox::ApplyRole);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(top);
  layout->addWidget(m_readOnlyNote);
  layout->addWidget(scroll, 1);
  layout->addWidget(m_error);
  layout->addWidget(buttons);
  resize(980, 680);
}

void DeviceEditorDialog::addFieldRow(QGridLayout* grid, int row, Field& f) {
  auto* key = new QLabel(f.key->required ? "<b>" + qs(f.key->name) + "</b>" : qs(f.key->name));
  key->setToolTip(f.key->required ? tr("Required") : tr("Optional: leave it empty for \"not set\" (not zero)"));
  key->setBuddy(f.value ? static_cast<QWidget*>(f.value) : f.choice);
  grid->addWidget(key, row, 0);
  grid->addWidget(f.value ? static_cast<QWidget*>(f.value) : f.choice, row, 1);
  if (f.key->text) return;
  grid->addWidget(new QLabel(f.key->unit.empty() && f.key->whole ? tr("count") : qs(f.key->unit)), row, 2);
  grid->addWidget(new QLabel(rangeText(*f.key)), row, 3);
  grid->addWidget(f.ref, row, 4);
  grid->addWidget(f.date, row, 5);
}

void DeviceEditorDialog::setMode(Mode mode) {
  m_mode = mode;
  setWindowTitle(mode == Mode::New ? tr("New Device") : tr("Edit Device"));
  m_chooserLabel->setText(mode == Mode::New ? tr("&Start from") : tr("&Device"));
  m_saveAsNew->setVisible(mode == Mode::Edit);
  fieldOf("id")->value->setReadOnly(mode == Mode::Edit);  // editing saves in place; a new id is "Save as New"
  updateReadOnly();
}

QString DeviceEditorDialog::deviceId() const {
  const DeviceSpec* d = current();
  return d ? qs(d->id) : QString();
}

bool DeviceEditorDialog::selectDevice(const QString& id) {
  const int index = m_chooser->findData(id);
  if (index < 0) return false;
  if (index == m_chooser->currentIndex()) loadTemplate(m_devices[static_cast<std::size_t>(index)]);
  else m_chooser->setCurrentIndex(index);  // loads it
  return true;
}

const DeviceSpec* DeviceEditorDialog::current() const {
  const int i = m_chooser->currentIndex();
  return i < 0 ? nullptr : &m_devices[static_cast<std::size_t>(i)];
}

void DeviceEditorDialog::loadTemplate(const DeviceSpec& spec) {
  showError({});
  try {
    m_templateFile = Json::parse(core::util::readFile(spec.filePath, core::util::kMaxDataFileBytes), spec.filePath,
                                 core::util::kDataFileJsonLimits);
  } catch (const std::exception& e) {
    m_templateFile = Json::object();
    showError(tr("The device's file could not be read again: %1").arg(QString::fromUtf8(e.what())));
  }
  // A new device keeps the id typed so far (another template is not another device).
  const QString typedId = m_mode == Mode::New ? fieldOf("id")->value->text() : QString();
  for (Field& f : m_fields)
    showField(f, m_templateFile.isObject() ? m_templateFile.find(f.key->name) : nullptr, spec.sourceOf(f.key->name));
  if (m_mode == Mode::New) {
    fieldOf("id")->value->setText(typedId);
    fieldOf("name")->value->setText(tr("%1 (custom)").arg(qs(spec.name)));
  }
  updateReadOnly();
}

void DeviceEditorDialog::showField(Field& f, const Json* value, const core::hw::SourcedValue* source) {
  f.templateValue = shownValue(value);
  f.sourceTyped = false;
  if (f.choice) f.choice->setCurrentIndex(std::max(0, f.choice->findData(f.templateValue)));
  if (f.value) f.value->setText(f.templateValue);
  if (!f.ref) return;
  f.ref->setText(source ? qs(source->ref) : QString());
  f.ref->setCursorPosition(0);  // a long reference reads from its start (the document's name)
  f.ref->setToolTip(f.ref->text());
  f.date->setText(source ? qs(source->date) : QString());
}

void DeviceEditorDialog::valueEdited(Field& f) {
  if (f.sourceTyped) return;
  if (valueText(f).isEmpty()) {  // not set: a figure no file holds needs no source
    f.ref->clear();
    f.date->clear();
    return;
  }
  // Back to the template's figure: the template's source again; changed: the user's word for now.
  const DeviceSpec* spec = current();
  const core::hw::SourcedValue* source = spec ? spec->sourceOf(f.key->name) : nullptr;
  if (valueText(f) == f.templateValue && source) {
    f.ref->setText(qs(source->ref));
    f.ref->setCursorPosition(0);
    f.date->setText(qs(source->date));
  } else {
    f.ref->setText(QString::fromLatin1(kEnteredByUser));
    f.date->setText(qs(core::util::todayUtc()));
  }
}

bool DeviceEditorDialog::isReadOnly() const {
  const DeviceSpec* d = current();
  return m_mode == Mode::Edit && d && !isUserDevice(*d);
}

void DeviceEditorDialog::updateReadOnly() {
  const bool readOnly = isReadOnly();
  for (Field& f : m_fields) {
    if (f.choice) f.choice->setEnabled(!readOnly);
    for (QLineEdit* e : {f.value, f.ref, f.date})
      if (e && !(f.key->name == "id" && m_mode == Mode::Edit)) e->setReadOnly(readOnly);
  }
  m_readOnlyNote->setVisible(readOnly);
  m_save->setEnabled(!readOnly);
}

void DeviceEditorDialog::saveAsNew() {
  // The figures as they are (a built-in device's, or the user's edits), under a new id.
  setMode(Mode::New);
  fieldOf("id")->value->clear();
  fieldOf("id")->value->setFocus();
}

QString DeviceEditorDialog::valueText(const Field& f) const {
  return f.choice ? f.choice->currentData().toString() : f.value->text().trimmed();
}

DeviceEditorDialog::Field* DeviceEditorDialog::fieldOf(const std::string& key) {
  for (Field& f : m_fields)
    if (f.key->name == key) return &f;
  return nullptr;
}

std::string DeviceEditorDialog::targetPath(const std::string& id) const { return userDevicesDir() + "/" + id + ".json"; }

Json DeviceEditorDialog::formValues(const std::string& path) const {
  Json values = Json::object();
  for (const Field& f : m_fields) {
    const QString text = valueText(f);
    if (text.isEmpty()) continue;  // not set
    if (f.key->text) {
      values.set(f.key->name, text.toStdString());
      continue;
    }
    const std::optional<double> number = parseNumber(text);
    if (!number) core::util::failKey(path, f.key->name, QStringLiteral("\"%1\" is not a number").arg(text).toStdString());
    values.set(f.key->name, *number);
  }
  // What the form does not show (a calibrated device's fitted software figures) goes on as it was.
  if (m_templateFile.isObject())
    for (const auto& [key, value] : m_templateFile.asObject())
      if (key != "sources" && !core::hw::findDeviceKeyInfo(key)) values.set(key, value);
  return values;
}

std::vector<core::hw::SourcedValue> DeviceEditorDialog::formSources(const Json& values) const {
  std::vector<core::hw::SourcedValue> out;
  for (const Field& f : m_fields) {
    if (!f.ref || !values.contains(f.key->name)) continue;
    const std::string ref = f.ref->text().trimmed().toStdString(), date = f.date->text().trimmed().toStdString();
    if (ref.empty() && date.empty()) continue;  // the loader names the figure that has no source
    out.push_back({f.key->name, ref, date});
  }
  if (const DeviceSpec* spec = current())
    for (const auto& s : spec->sources)
      if (values.contains(s.key) && !core::hw::findDeviceKeyInfo(s.key)) out.push_back(s);
  return out;
}

void DeviceEditorDialog::checkIdIsFree(const std::string& id) const {
  const DeviceSpec* editing = m_mode == Mode::Edit ? current() : nullptr;
  if (editing && editing->id == id) return;  // the user's own file, saved in place
  if (builtInIds().contains(qs(id)))
    throw core::util::Error(tr("\"%1\" is the id of a built-in device: a file of yours with that id would replace "
                               "the built-in one without a word. Choose another id.")
                                .arg(qs(id))
                                .toStdString());
}

bool DeviceEditorDialog::confirmOverwrite(const QString& id, const QString& path) {
  if (m_mode == Mode::Edit && deviceId() == id) return true;  // the file the user chose to edit
  return QMessageBox::question(this, tr("Replace your device?"),
                               tr("You already have a device \"%1\" (%2). Replace it with this one?").arg(id, path),
                               QMessageBox::Yes | QMessageBox::No, QMessageBox::No) == QMessageBox::Yes;
}

QString DeviceEditorDialog::save() {
  if (isReadOnly()) {
    showError(m_readOnlyNote->text());
    return {};
  }
  try {
    const std::string id = valueText(*fieldOf("id")).toStdString();
    if (id.empty()) throw core::util::Error(tr("Give the device an id (a-z, 0-9 and '-'): it names its file.").toStdString());
    checkIdIsFree(id);
    const std::string path = targetPath(id);
    const Json values = formValues(path);
    const std::string text = core::hw::deviceFileText(values, formSources(values));
    core::hw::parseDeviceJson(text, path);  // exactly the loader's checks, before anything is written
    const QString file = qs(path);
    const bool exists = QFileInfo::exists(file);
    if (exists && !confirmOverwrite(qs(id), file)) return {};
    QDir().mkpath(qs(userDevicesDir()));
    core::util::writeFileAtomic(path, text);
    showError({});
    Q_EMIT deviceSaved(qs(id), file, !exists);
    accept();
    return file;
  } catch (const std::exception& e) {
    showError(withRange(e.what()));
    if (Field* f = fieldOf(keyNamedIn(e.what()))) (f->value ? static_cast<QWidget*>(f->value) : f->choice)->setFocus();
    return {};
  }
}

QString DeviceEditorDialog::errorText() const { return m_error->text(); }

void DeviceEditorDialog::showError(const QString& message) {
  m_error->setText(message);
  m_error->setVisible(!message.isEmpty());
}

}  // namespace app::gui
