#pragma once
// The app's view of a preset (core/experiment/preset.h holds the file format, its validation,
// the library and the comparisons' rules): texts as QString and the published figures as the
// charts' reference marks. Every function here converts and calls core's.
#include <QString>
#include <QStringList>
#include <QPair>
#include <QVector>
#include <optional>
#include <string>
#include <vector>

#include "core/experiment/experiment.h"
#include "core/experiment/preset.h"
#include "widgets/run_store.h"

namespace app::gui {

// The rows and their sides are core's (core/experiment/preset.h): one reader, one evaluation.
using ComparisonSide = core::experiment::ComparisonSide;
using Comparison = core::experiment::Comparison;

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

// Between the app's view and core's preset (the same fields).
Preset presetFromCore(const core::experiment::Preset& preset);
core::experiment::Preset presetToCore(const Preset& preset);

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
  core::experiment::PresetLibrary m_core;
  QVector<Preset> m_presets;
  QStringList m_errors;
};

// How `e` differs from the preset's set-up in what its published comparisons depend on
// (model, dataset, batch, software): "model mlp, not colab-cnn"; empty when it does not.
QString presetMismatch(const Preset& preset, const core::experiment::Experiment& e);

}  // namespace app::gui
