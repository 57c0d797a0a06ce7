#include "app/gui/preset.h"

#include <QDir>
#include <QFile>
#include <QObject>
#include <QRegularExpression>

#include "app/gui/config_json.h"
#include "core/util/files.h"

namespace app::gui {

namespace {

QString q(const std::string& s) { return QString::fromStdString(s); }
std::string path8(const QString& path) { return QFile::encodeName(path).toStdString(); }
QString pathQ(const std::string& path) { return QFile::decodeName(QByteArray::fromStdString(path)); }

}  // namespace

Preset presetFromCore(const core::experiment::Preset& c) {
  Preset p;
  p.id = q(c.id);
  p.title = q(c.title);
  p.source = q(c.source);
  p.modeNote = q(c.modeNote);
  p.explanation = q(c.explanation);
  p.experiment = c.experiment;
  p.targetAccuracy = c.targetAccuracy;
  for (const auto& f : c.references) {
    p.references << referenceMarkFromFigure(f);
    p.referenceSources << q(f.source);
  }
  p.comparisons = QVector<Comparison>(c.comparisons.begin(), c.comparisons.end());
  p.filePath = pathQ(c.filePath);
  p.user = c.user;
  return p;
}

core::experiment::Preset presetToCore(const Preset& p) {
  core::experiment::Preset c;
  c.id = p.id.toStdString();
  c.title = p.title.toStdString();
  c.source = p.source.toStdString();
  c.modeNote = p.modeNote.toStdString();
  c.explanation = p.explanation.toStdString();
  c.experiment = p.experiment;
  c.targetAccuracy = p.targetAccuracy;
  for (qsizetype i = 0; i < p.references.size(); ++i)
    c.references.push_back(figureFromReferenceMark(p.references[i], p.referenceSources.value(i)));
  c.comparisons.assign(p.comparisons.begin(), p.comparisons.end());
  c.filePath = path8(p.filePath);
  c.user = p.user;
  return c;
}

bool isValidPresetId(const QString& id) { return core::experiment::isValidPresetId(id.toStdString()); }

QString presetIdFromTitle(const QString& title) {
  QString id = title.toLower();
  id.replace(QRegularExpression("[^a-z0-9]+"), "-");
  id.remove(QRegularExpression("^-+|-+$"));
  id.truncate(64);
  while (id.endsWith('-')) id.chop(1);
  return id.isEmpty() ? QStringLiteral("my-preset") : id;
}

Preset parsePreset(const std::string& text, const QString& source) {
  Preset p = presetFromCore(core::experiment::parsePreset(text, source.toStdString()));
  p.filePath = source;
  return p;
}

Preset loadPresetFile(const QString& path) {
  return parsePreset(core::util::readFile(path8(path)), path);
}

std::string presetToJson(const Preset& p) { return core::experiment::presetToJson(presetToCore(p)); }

void savePresetFile(const Preset& preset, const QString& path) { writeTextFile(path, presetToJson(preset)); }

QString PresetLibrary::builtinFolder() { return pathQ(core::experiment::PresetLibrary::builtinFolder()); }

QString PresetLibrary::userFolder() { return pathQ(core::experiment::PresetLibrary::userFolder()); }

void PresetLibrary::load(const QString& builtinDir, const QString& userDir) {
  m_core.load(path8(builtinDir), userDir.isEmpty() ? std::string() : path8(userDir));
  m_presets.clear();
  m_errors.clear();
  for (const auto& p : m_core.presets()) m_presets << presetFromCore(p);
  for (const auto& e : m_core.errors()) m_errors << QString::fromUtf8(e.c_str());
}

QString PresetLibrary::errorFor(const QString& idOrPrefix) const {
  return QString::fromUtf8(m_core.errorFor(idOrPrefix.toStdString()).c_str());
}

const Preset* PresetLibrary::find(const QString& idOrPrefix) const {
  const core::experiment::Preset* found = m_core.find(idOrPrefix.toStdString());
  if (!found) return nullptr;
  return &m_presets[static_cast<qsizetype>(found - m_core.presets().data())];
}

QStringList PresetLibrary::ids() const {
  QStringList out;
  for (const auto& p : m_presets) out << p.id;
  return out;
}

QString presetMismatch(const Preset& preset, const core::experiment::Experiment& e) {
  // What the published comparisons depend on: the model, its data, the batch and the software.
  const auto& p = preset.experiment;
  QStringList diffs;
  auto differs = [&](const QString& what, const std::string& now, const std::string& then) {
    if (now != then) diffs << QObject::tr("%1 %2, not %3").arg(what, QString::fromStdString(now), QString::fromStdString(then));
  };
  differs(QObject::tr("model"), e.train.modelId, p.train.modelId);
  differs(QObject::tr("dataset"), e.train.datasetId, p.train.datasetId);
  differs(QObject::tr("batch"), std::to_string(e.train.batch), std::to_string(p.train.batch));
  differs(QObject::tr("software"), e.stackId.empty() ? "modern defaults" : e.stackId,
          p.stackId.empty() ? "modern defaults" : p.stackId);
  return diffs.join(", ");
}

}  // namespace app::gui
