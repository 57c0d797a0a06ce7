#pragma once
// Presets: a whole experiment set-up as a data file (resources/presets/<id>.json, or the
// user's own in userDataDir()/presets). Each re-creates a published experiment: what to look
// for, the settings, the devices, the published figures (reference marks on the charts) and
// published comparisons the app sets beside its own simulated ones.
#include <QString>
#include <QStringList>
#include <QPair>
#include <QVector>
#include <optional>
#include <string>
#include <vector>

#include "core/experiment/experiment.h"
#include "widgets/run_store.h"

namespace app::gui {

// One side of a published comparison: a device at the preset's settings, with overrides.
struct ComparisonSide {
  QString deviceId;
  std::optional<int> batch, count, vcpus;
  std::optional<std::string> datasetId;
};

// "A is N× faster than B" (speedup = run time of B / run time of A), or "A fits in memory".
struct Comparison {
  enum class Metric { Speedup, Fits };
  QString label;
  Metric metric = Metric::Speedup;
  ComparisonSide device;
  ComparisonSide versus;   // Speedup only
  int epochs = 0;          // of the published runs (0 = the preset's epochs)
  std::int64_t stepsPerEpoch = 0;  // when the article's epochs were not full passes (0 = full)
  double published = 0;    // the ratio, or 1 = fits / 0 = out of memory
  bool approximate = false;
  QString source;
  // Agreement: AccelLab's figure within this fraction of the published one (0.2 = ±20%);
  // the default is 0.25 for an approximate figure ("≈3×"), 0.15 for an exact one.
  double tolerance = 0;
  // The known cause when AccelLab disagrees (shown beside the row); empty when none is known.
  QString explanation;
  double toleranceOrDefault() const { return tolerance > 0 ? tolerance : (approximate ? 0.25 : 0.15); }
};

struct Preset {
  QString id;
  QString title;
  QString source;
  QString modeNote;        // says whether it trains for real or simulates, and why
  QString explanation;     // what to look for
  // The settings, the devices, the article's software stack (empty = modern defaults) and
  // whether it trains here: the same keys and codec as a saved experiment.
  core::experiment::Experiment experiment;
  double targetAccuracy = 0;
  QVector<widgets::ReferenceMark> references;
  QStringList referenceSources;  // where each reference figure was published (same order)
  QVector<Comparison> comparisons;
  QString filePath;        // where it was loaded from (empty for a new one)
  bool user = false;       // from the user's folder
};

// Parses and validates a preset; throws core::util::Error naming `source` and the key.
Preset parsePreset(const std::string& text, const QString& source);
Preset loadPresetFile(const QString& path);
std::string presetToJson(const Preset& preset);
// Atomically (writeTextFile); throws core::util::Error naming the path on failure.
void savePresetFile(const Preset& preset, const QString& path);

// A preset id is a file name: lowercase letters, digits and '-'.
bool isValidPresetId(const QString& id);
QString presetIdFromTitle(const QString& title);

// The shipped presets and the user's. A user preset with a shipped preset's id replaces it.
class PresetLibrary {
public:
  // Default folders: <resourceDir>/presets and <userDataDir>/presets.
  static QString builtinFolder();
  static QString userFolder();

  void load(const QString& builtinDir = builtinFolder(), const QString& userDir = userFolder());
  const QVector<Preset>& presets() const { return m_presets; }
  // Files that failed validation ("file: key: what" each) and folder entries that could not
  // be read (a dangling or looping symlink, a FIFO, no permission: core::util::listFiles).
  const QStringList& errors() const { return m_errors; }
  // Why the file of preset `idOrPrefix` (its name without ".json": exact, else a unique
  // prefix) was not loaded; empty when no such file failed.
  QString errorFor(const QString& idOrPrefix) const;
  // Exact id, else a unique case-insensitive prefix ("e3"); nullptr when none or ambiguous.
  const Preset* find(const QString& idOrPrefix) const;
  QStringList ids() const;

private:
  QVector<Preset> m_presets;
  QStringList m_errors;
  QVector<QPair<QString, QString>> m_failed;  // id (file name without .json), error
};

// How `e` differs from the preset's set-up in what its published comparisons depend on
// (model, dataset, batch, software): "model mlp, not colab-cnn"; empty when it does not.
QString presetMismatch(const Preset& preset, const core::experiment::Experiment& e);

}  // namespace app::gui
