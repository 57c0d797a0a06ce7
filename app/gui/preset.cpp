#include "app/gui/preset.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <cmath>

#include "app/gui/comparisons.h"
#include "app/gui/config_json.h"
#include "core/experiment/experiment_json.h"
#include "core/experiment/limits.h"
#include "core/util/error.h"
#include "core/util/files.h"

namespace app::gui {

using core::util::Error;
using core::util::Json;

namespace {

ComparisonSide readSide(const JsonReader& in, const std::string& prefix) {
  ComparisonSide s;
  s.deviceId = QString::fromStdString(in.string(prefix + "device"));
  if (in.has(prefix + "batch")) s.batch = static_cast<int>(in.integer(prefix + "batch", 1, core::experiment::kMaxBatch));
  if (in.has(prefix + "count")) s.count = static_cast<int>(in.integer(prefix + "count", 1, core::experiment::kMaxDeviceCount));
  if (in.has(prefix + "vcpus")) s.vcpus = static_cast<int>(in.integer(prefix + "vcpus", 1, core::experiment::kMaxVcpus));
  if (in.has(prefix + "dataset")) s.datasetId = in.string(prefix + "dataset");
  return s;
}

void writeSide(Json& j, const ComparisonSide& s, const std::string& prefix) {
  j.set(prefix + "device", s.deviceId.toStdString());
  if (s.batch) j.set(prefix + "batch", *s.batch);
  if (s.count) j.set(prefix + "count", *s.count);
  if (s.vcpus) j.set(prefix + "vcpus", *s.vcpus);
  if (s.datasetId) j.set(prefix + "dataset", *s.datasetId);
}

}  // namespace

bool isValidPresetId(const QString& id) {
  static const QRegularExpression re("^[a-z0-9][a-z0-9-]{0,63}$");
  return re.match(id).hasMatch();
}

QString presetIdFromTitle(const QString& title) {
  QString id = title.toLower();
  id.replace(QRegularExpression("[^a-z0-9]+"), "-");
  id.remove(QRegularExpression("^-+|-+$"));
  id.truncate(64);
  while (id.endsWith('-')) id.chop(1);
  return id.isEmpty() ? QStringLiteral("my-preset") : id;
}

Preset parsePreset(const std::string& text, const QString& source) {
  const std::string src = source.toStdString();
  const Json root = Json::parse(text, src, core::util::kDataFileJsonLimits);
  const JsonReader in(root, src);
  Preset p;
  p.filePath = source;
  p.id = QString::fromStdString(in.string("id"));
  if (!isValidPresetId(p.id)) in.fail("id", "\"" + p.id.toStdString() + "\" must be lowercase letters, digits and '-'");
  p.title = QString::fromStdString(in.string("title"));
  p.source = QString::fromStdString(in.string("source", ""));
  if (!in.has("mode")) in.fail("mode", "is missing: \"train\" (trains here for real) or \"simulate\"");
  p.experiment = core::experiment::readExperimentKeys(in);
  if (!p.experiment.presetId.empty()) in.fail("preset", "belongs in a saved experiment, not in a preset (its id is \"id\")");
  p.modeNote = QString::fromStdString(in.string("mode_note", ""));
  p.explanation = QString::fromStdString(in.string("explanation", ""));
  p.targetAccuracy = in.number("target_accuracy", 0, 0, 1);
  for (const JsonReader& r : in.objects("references")) {
    QString source;
    p.references << referenceMarkFromJson(r, &source);
    p.referenceSources << source;
  }
  for (const JsonReader& c : in.objects("comparisons")) {
    Comparison cmp;
    cmp.label = QString::fromStdString(c.string("label"));
    cmp.metric = c.choice("metric", {"speedup", "fits"}) == "fits" ? Comparison::Metric::Fits : Comparison::Metric::Speedup;
    cmp.device = readSide(c, "");
    if (cmp.metric == Comparison::Metric::Speedup) {
      cmp.versus = readSide(c, "vs_");
      cmp.published = c.number("published", 1e-6, 1e6);
    } else {
      cmp.published = static_cast<double>(c.integer("published", 0, 1));
    }
    cmp.epochs = static_cast<int>(c.integer("epochs", p.experiment.train.epochs, 1, core::experiment::kMaxEpochs));
    cmp.stepsPerEpoch = c.integer("steps_per_epoch", 0, 1, 1'000'000'000);
    cmp.approximate = c.boolean("approximate", false);
    cmp.source = QString::fromStdString(c.string("source", ""));
    cmp.tolerance = c.number("tolerance", 0, 0.001, 10);
    cmp.explanation = QString::fromStdString(c.string("explanation", ""));
    c.finish();
    p.comparisons << cmp;
  }
  if (const QStringList bad = guidePlaceholderErrors(p.explanation, static_cast<int>(p.comparisons.size()));
      !bad.isEmpty())
    in.fail("explanation", bad.join("; ").toStdString());
  in.finish();
  return p;
}

Preset loadPresetFile(const QString& path) {
  return parsePreset(core::util::readFile(path.toStdString()), path);
}

std::string presetToJson(const Preset& p) {
  Json j = Json::object();
  j.set("id", p.id.toStdString());
  j.set("title", p.title.toStdString());
  if (!p.source.isEmpty()) j.set("source", p.source.toStdString());
  if (!p.modeNote.isEmpty()) j.set("mode_note", p.modeNote.toStdString());
  if (!p.explanation.isEmpty()) j.set("explanation", p.explanation.toStdString());
  core::experiment::Experiment e = p.experiment;
  e.presetId.clear();  // a preset is named by its id
  Json keys = core::experiment::experimentToJson(e);  // a named object: the loop must not outlive it
  for (auto& [key, value] : keys.asObject()) j.set(key, std::move(value));
  if (p.targetAccuracy > 0) j.set("target_accuracy", p.targetAccuracy);
  Json refs = Json::array();
  for (qsizetype i = 0; i < p.references.size(); ++i)
    refs.push(referenceMarkToJson(p.references[i], p.referenceSources.value(i)));
  j.set("references", std::move(refs));
  Json comparisons = Json::array();
  for (const auto& c : p.comparisons) {
    Json o = Json::object();
    o.set("label", c.label.toStdString());
    o.set("metric", c.metric == Comparison::Metric::Fits ? "fits" : "speedup");
    writeSide(o, c.device, "");
    if (c.metric == Comparison::Metric::Speedup) {
      writeSide(o, c.versus, "vs_");
      o.set("published", c.published);
    } else {
      o.set("published", static_cast<int>(c.published));
    }
    if (c.epochs > 0 && c.epochs != p.experiment.train.epochs) o.set("epochs", c.epochs);
    if (c.stepsPerEpoch > 0) o.set("steps_per_epoch", static_cast<long long>(c.stepsPerEpoch));
    if (c.approximate) o.set("approximate", true);
    if (!c.source.isEmpty()) o.set("source", c.source.toStdString());
    if (c.tolerance > 0) o.set("tolerance", c.tolerance);
    if (!c.explanation.isEmpty()) o.set("explanation", c.explanation.toStdString());
    comparisons.push(std::move(o));
  }
  j.set("comparisons", std::move(comparisons));
  return j.dump(2) + "\n";
}

void savePresetFile(const Preset& preset, const QString& path) { writeTextFile(path, presetToJson(preset)); }

QString PresetLibrary::builtinFolder() {
  return QDir(QString::fromStdString(core::util::resourceDir())).filePath("presets");
}

QString PresetLibrary::userFolder() { return QDir(QString::fromStdString(core::util::userDataDir())).filePath("presets"); }

void PresetLibrary::load(const QString& builtinDir, const QString& userDir) {
  m_presets.clear();
  m_errors.clear();
  m_failed.clear();
  auto loadFolder = [this](const QString& dir, bool user) {
    // The one listing: an entry that cannot be read (a dangling or looping symlink, a FIFO, no
    // permission) is named in a warning, not skipped in silence.
    const core::util::FileListing listing = core::util::listFiles(QFile::encodeName(dir).toStdString(), {".json"});
    for (const std::string& w : listing.warnings) {
      m_errors << QString::fromStdString(w);
      // The warning starts with the entry's path: "<dir>/<id>.json: why".
      const QString text = QString::fromStdString(w);
      const qsizetype end = text.indexOf(QLatin1String(".json: "));
      if (end > 0) m_failed.push_back({QFileInfo(text.left(end + 5)).completeBaseName(), m_errors.back()});
    }
    for (const std::string& file : listing.files) {
      const QFileInfo f(QFile::decodeName(QByteArray::fromStdString(file)));
      try {
        Preset p = loadPresetFile(f.absoluteFilePath());
        p.user = user;
        if (p.id != f.completeBaseName())
          throw Error(f.absoluteFilePath().toStdString() + ": id: \"" + p.id.toStdString() +
                      "\" differs from the file name; name the file " + p.id.toStdString() + ".json");
        auto same = std::find_if(m_presets.begin(), m_presets.end(), [&](const Preset& q) { return q.id == p.id; });
        if (same != m_presets.end()) {
          *same = std::move(p);
        } else {
          m_presets << std::move(p);
        }
      } catch (const std::exception& e) {
        m_errors << QString::fromUtf8(e.what());
        m_failed.push_back({f.completeBaseName(), m_errors.back()});
      }
    }
  };
  loadFolder(builtinDir, false);
  if (!userDir.isEmpty() && QDir(userDir) != QDir(builtinDir)) loadFolder(userDir, true);
}

QString PresetLibrary::errorFor(const QString& idOrPrefix) const {
  if (idOrPrefix.isEmpty()) return {};
  for (const auto& [id, error] : m_failed)
    if (id == idOrPrefix) return error;
  QString found;
  for (const auto& [id, error] : m_failed) {
    if (!id.startsWith(idOrPrefix, Qt::CaseInsensitive)) continue;
    if (!found.isEmpty()) return {};
    found = error;
  }
  return found;
}

const Preset* PresetLibrary::find(const QString& idOrPrefix) const {
  for (const auto& p : m_presets)
    if (p.id == idOrPrefix) return &p;
  const Preset* found = nullptr;
  for (const auto& p : m_presets) {
    if (p.id.startsWith(idOrPrefix, Qt::CaseInsensitive)) {
      if (found) return nullptr;
      found = &p;
    }
  }
  return idOrPrefix.isEmpty() ? nullptr : found;
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
