#include "app/gui/preset_controller.h"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QInputDialog>
#include <QFile>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>

#include "app/gui/data_folders.h"
#include "app/gui/experiment_model.h"
#include "app/gui/message_bar.h"
#include "core/data/dataset_info.h"
#include "core/nn/zoo.h"
#include "core/util/error.h"
#include "core/util/files.h"
#include "widgets/hardware_panel.h"

namespace app::gui {

PresetController::PresetController(const AppActions& a, ExperimentModel* experiment, MessageBar* messages,
                                   QWidget* window, QObject* parent)
    : QObject(parent), m_experiment(experiment), m_messages(messages), m_window(window),
      m_menu(new QMenu(tr("&Presets"), window)) {
  m_menu->setObjectName("presetsMenu");
  connect(a.openPreset, &QAction::triggered, this, &PresetController::openFile);
  connect(a.savePreset, &QAction::triggered, this, &PresetController::saveAs);
  reload();
}

void PresetController::reload() {
  m_library.load();
  rebuildMenu();
  if (!m_library.errors().isEmpty())
    m_messages->showMessage(MessageBar::Level::Warning, tr("Some preset files were skipped"),
                            m_library.errors().join('\n') + "\n" + tr("Fix the key named in the file, then restart."));
}

void PresetController::rebuildMenu() {
  m_menu->clear();
  bool userSection = false;
  for (const Preset& p : m_library.presets()) {
    if (p.user && !userSection) {
      m_menu->addSection(tr("Your presets"));
      userSection = true;
    }
    QAction* a = m_menu->addAction(p.title);
    a->setStatusTip(p.modeNote.isEmpty() ? p.title : p.modeNote);
    a->setData(p.id);
    connect(a, &QAction::triggered, this, [this, id = p.id] { apply(id); });
  }
  if (m_library.presets().isEmpty()) m_menu->addAction(tr("(no presets found)"))->setEnabled(false);
}

QStringList PresetController::unknownIds(const Preset& p) const {
  QStringList problems;
  const std::string file = QDir::toNativeSeparators(p.filePath).toStdString();
  try {
    core::data::datasetInfo(p.experiment.train.datasetId);
  } catch (const std::exception& e) {
    problems << QString::fromStdString(file + ": experiment.dataset: " + e.what());
  }
  try {
    core::nn::modelInfo(p.experiment.train.modelId);
  } catch (const std::exception& e) {
    problems << QString::fromStdString(file + ": experiment.model: " + e.what());
  }
  return problems;
}

bool PresetController::isShipped(const Preset& preset) {
  return !preset.user && !preset.filePath.isEmpty() &&
         core::util::isInside(QFile::encodeName(preset.filePath).toStdString(),
                              QFile::encodeName(PresetLibrary::builtinFolder()).toStdString());
}

void PresetController::setScripted(bool scripted, bool allowOutsideData) {
  m_scripted = scripted;
  m_allowOutsideData = allowOutsideData;
}

bool PresetController::apply(const QString& idOrPrefix) {
  m_lastError.clear();
  const Preset* p = m_library.find(idOrPrefix);
  // A user preset that failed to load is named with its real error, not "no preset"; in a
  // scripted run also when a shipped preset of the same id would stand in for it.
  if (const QString failed = m_library.errorFor(p ? p->id : idOrPrefix); !failed.isEmpty() && (!p || m_scripted)) {
    m_lastError = failed;
    m_messages->showMessage(MessageBar::Level::Error, tr("The preset “%1” could not be loaded").arg(idOrPrefix),
                            failed + "\n" + tr("Fix the key named above in the file and open it again."));
    return false;
  }
  if (!p) {
    m_lastError = tr("no preset “%1” (known presets: %2)").arg(idOrPrefix, m_library.ids().join(", "));
    m_messages->showMessage(MessageBar::Level::Error, tr("No preset “%1”").arg(idOrPrefix),
                            tr("Known presets: %1").arg(m_library.ids().join(", ")));
    return false;
  }
  return apply(*p);
}

bool PresetController::mayRead(const Preset& preset) {
  if (isShipped(preset)) return true;
  const QVector<KeyedPath> outside = pathsOutsideDataFolders(preset.experiment, m_experiment->userChosenDataDir());
  if (outside.isEmpty()) return true;
  const QString file = QDir::toNativeSeparators(preset.filePath);
  QStringList where;
  for (const KeyedPath& k : outside) where << tr("%1: %2: %3").arg(file, k.key, k.path);
  const QString folders = dataFolders(m_experiment->userChosenDataDir()).join(", ");
  if (m_scripted) {
    if (m_allowOutsideData) return true;
    m_lastError = tr("%1 points outside the data folders (%2); pass --allow-outside-data to read it")
                      .arg(where.join("; "), folders);
    m_messages->showMessage(MessageBar::Level::Error, tr("The preset “%1” was not opened").arg(preset.title),
                            m_lastError);
    return false;
  }
  const QString question =
      tr("The preset “%1” points outside the data folders:\n\n%2\n\nAccelLab would read that folder to train on "
         "it, and keep what it reads in the run history. Only continue if you trust this preset.\n\nData folders: "
         "%3\n\nRead it?")
          .arg(preset.title, where.join('\n'), folders);
  bool yes = false;
  if (m_askOutsideData) {
    yes = m_askOutsideData(question);
  } else {
    // Plain text: the title and the path come from the file.
    QMessageBox box(QMessageBox::Warning, tr("Read a folder outside the data folders?"), question,
                    QMessageBox::Yes | QMessageBox::No, m_window);
    box.setTextFormat(Qt::PlainText);
    box.setDefaultButton(QMessageBox::No);
    yes = box.exec() == QMessageBox::Yes;
  }
  if (yes) return true;
  m_lastError = tr("%1 points outside the data folders; not opened").arg(where.join("; "));
  m_messages->showMessage(MessageBar::Level::Info, tr("The preset “%1” was not opened").arg(preset.title), m_lastError);
  return false;
}

bool PresetController::apply(const Preset& preset) {
  m_lastError.clear();
  if (!mayRead(preset)) return false;
  QStringList problems = unknownIds(preset);
  const QString file = QDir::toNativeSeparators(preset.filePath);
  const QStringList known = m_experiment->knownDeviceIds();
  QStringList unknownDevices;
  for (const auto& d : preset.experiment.devices)
    if (!known.contains(QString::fromStdString(d.deviceId))) unknownDevices << QString::fromStdString(d.deviceId);
  for (const QString& id : unknownDevices)
    problems << (m_scripted ? tr("%1: devices: unknown device “%2” (known: %3)")
                            : tr("%1: devices: unknown device “%2”, left out (known: %3)"))
                    .arg(file, id, known.join(", "));
  // A scripted run does not go on without what the preset asks for: it would measure
  // something else and exit 0.
  if (m_scripted && !problems.isEmpty()) {
    m_lastError = problems.join("; ");
    m_messages->showMessage(MessageBar::Level::Error, tr("The preset “%1” was not opened").arg(preset.title),
                            problems.join('\n'));
    return false;
  }
  core::experiment::Experiment e = preset.experiment;
  e.presetId = preset.id.toStdString();
  m_experiment->set(std::move(e));
  if (preset.experiment.trainHere && !m_experiment->experiment().trainHere)
    problems << tr("%1: mode: “train” needs a dataset the engine can load; “%2” is simulated only")
                    .arg(file, QString::fromStdString(preset.experiment.train.datasetId));
  m_current = preset;
  // Clear only what an earlier preset said, not other news (a skipped device file).
  if (!m_lastProblem.isEmpty() && m_messages->text() == m_lastProblem) m_messages->clearMessage();
  m_lastProblem.clear();
  if (!problems.isEmpty()) {
    m_messages->showMessage(MessageBar::Level::Warning, tr("The preset “%1” was loaded with problems").arg(preset.title),
                            problems.join('\n'));
    m_lastProblem = m_messages->text();
  }
  Q_EMIT presetChanged(m_current);
  return true;
}

void PresetController::setCurrent(const QString& id) {
  const Preset* p = id.isEmpty() ? nullptr : m_library.find(id);
  m_current = p ? std::optional<Preset>(*p) : std::nullopt;
  Q_EMIT presetChanged(m_current);
}

void PresetController::openFile() {
  const QString path = QFileDialog::getOpenFileName(m_window, tr("Open Preset"), PresetLibrary::builtinFolder(),
                                                    tr("AccelLab presets (*.json)"));
  if (path.isEmpty()) return;
  try {
    apply(loadPresetFile(path));
  } catch (const std::exception& e) {
    m_messages->showMessage(MessageBar::Level::Error, tr("The preset could not be loaded"),
                            QString::fromUtf8(e.what()) + "\n" + tr("Fix the key named above in the file and open it again."));
  }
}

QString PresetController::saveUserPreset(const QString& title) {
  Preset p;
  p.title = title.trimmed();
  if (p.title.isEmpty()) throw core::util::Error("the preset needs a title");
  p.id = presetIdFromTitle(p.title);
  p.experiment = m_experiment->experiment();
  p.experiment.presetId.clear();
  // The measured host follows the mode; a preset names the devices to simulate.
  std::erase_if(p.experiment.devices, [](const core::experiment::DeviceChoice& d) {
    return QString::fromStdString(d.deviceId) == widgets::HardwarePanel::hostId();
  });
  const auto& t = p.experiment.train;
  if (m_current && m_current->experiment.train.modelId == t.modelId &&
      m_current->experiment.train.datasetId == t.datasetId) {
    // Same experiment: keep its published figures and explanation.
    p.explanation = m_current->explanation;
    p.source = m_current->source;
    p.references = m_current->references;
    p.referenceSources = m_current->referenceSources;
    p.comparisons = m_current->comparisons;
    p.targetAccuracy = m_current->targetAccuracy;
  }
  const QString path = QDir(PresetLibrary::userFolder()).filePath(p.id + ".json");
  savePresetFile(p, path);
  p.filePath = path;
  p.user = true;
  reload();
  m_current = p;
  Q_EMIT presetChanged(m_current);
  return path;
}

void PresetController::saveAs() {
  bool ok = false;
  const QString suggested = m_current ? tr("%1 (mine)").arg(m_current->title) : tr("My experiment");
  const QString title = QInputDialog::getText(m_window, tr("Save Set-up as Preset"), tr("Title:"), QLineEdit::Normal,
                                              suggested, &ok);
  if (!ok) return;
  try {
    const QString path = saveUserPreset(title);
    m_messages->showMessage(MessageBar::Level::Info, tr("Preset saved"), QDir::toNativeSeparators(path));
  } catch (const std::exception& e) {
    m_messages->showMessage(MessageBar::Level::Error, tr("The preset could not be saved"), QString::fromUtf8(e.what()));
  }
}

}  // namespace app::gui
