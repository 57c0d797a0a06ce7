#pragma once
// CONTRACT: presets, a whole experiment set-up as a data file (resources/presets/<id>.json,
// or the user's own in userDataDir()/presets). Each re-creates a published experiment: what
// to look for, the settings, the devices, the published figures (reference marks on the
// charts) and published comparisons the app sets beside its own simulated ones. The one
// reader, writer and library of them: the app shows them, `accellab-cli presets check`
// checks their comparisons (core/experiment/comparison.h).
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/experiment/experiment.h"
#include "core/util/json.h"
#include "core/util/json_reader.h"

namespace core::experiment {

// One side of a published comparison: a device at the preset's settings, with overrides.
struct ComparisonSide {
  std::string deviceId;
  std::optional<int> batch, count, vcpus;
  std::optional<std::string> datasetId;
};

// "A is N× faster than B" (speedup = run time of B / run time of A), or "A fits in memory".
struct Comparison {
  enum class Metric { Speedup, Fits };
  std::string label;
  Metric metric = Metric::Speedup;
  ComparisonSide device;
  ComparisonSide versus;   // Speedup only
  int epochs = 0;          // of the published runs (0 = the preset's epochs)
  std::int64_t stepsPerEpoch = 0;  // when the article's epochs were not full passes (0 = full)
  double published = 0;    // the ratio, or 1 = fits / 0 = out of memory
  bool approximate = false;
  std::string source;
  // Agreement: AccelLab's figure within this fraction of the published one (0.2 = ±20%);
  // the default is 0.25 for an approximate figure ("≈3×"), 0.15 for an exact one.
  double tolerance = 0;
  // The known cause when AccelLab disagrees (shown beside the row); empty when none is known.
  std::string explanation;
  double toleranceOrDefault() const { return tolerance > 0 ? tolerance : (approximate ? 0.25 : 0.15); }
};

// A published reference figure: chart ("epoch_time", "throughput", "cost",
// "cost_per_million", "time_to_accuracy", "sweep"), device, x (NaN = not applicable), value,
// label, what it measured ("" = the chart's own quantity, "whole_run" = a whole run's
// average over runImages images) and where it was published.
struct PublishedFigure {
  std::string chart;
  std::string deviceId;
  double x = 0;
  double value = 0;
  std::string label;
  std::string measures;
  double runImages = 0;
  std::string source;
};
util::Json publishedFigureToJson(const PublishedFigure& figure);
// Reads the keys above (throws core::util::Error naming the file and the key).
PublishedFigure publishedFigureFromJson(const util::JsonReader& in);

struct Preset {
  std::string id;
  std::string title;
  std::string source;
  std::string modeNote;     // says whether it trains for real or simulates, and why
  std::string explanation;  // what to look for; "{published:N}" / "{accellab:N}" name row N's figures
  // The settings, the devices, the article's software stack (empty = modern defaults) and
  // whether it trains here: the same keys and codec as a saved experiment.
  Experiment experiment;
  double targetAccuracy = 0;
  std::vector<PublishedFigure> references;
  std::vector<Comparison> comparisons;
  std::string filePath;     // where it was loaded from (empty for a new one)
  bool user = false;        // from the user's folder
};

// Parses and validates a preset; throws core::util::Error naming `source` and the key.
Preset parsePreset(const std::string& text, const std::string& source);
Preset loadPresetFile(const std::string& path);
std::string presetToJson(const Preset& preset);

// A preset id is a file name: lowercase letters, digits and '-'.
bool isValidPresetId(const std::string& id);

// What is wrong with a guide text's placeholders ("{published:N}", "{accellab:N}"): an
// unknown kind, a row that does not exist, each naming the placeholder; empty when all are
// usable.
std::vector<std::string> guidePlaceholderErrors(const std::string& text, int rows);

// The devices a preset's comparisons run on, as the Guide sets them: the preset's chosen
// devices with their settings, any other device a comparison names at its defaults, each
// under the preset's stack (core::experiment::stackFor).
std::vector<DeviceChoice> comparisonDevices(const Preset& preset);

// The shipped presets and the user's. A user preset with a shipped preset's id replaces it.
class PresetLibrary {
public:
  // Default folders: <resourceDir>/presets and <userDataDir>/presets.
  static std::string builtinFolder();
  static std::string userFolder();

  // An empty userDir (or the builtin one again) reads the builtin folder only.
  void load(const std::string& builtinDir = builtinFolder(), const std::string& userDir = userFolder());
  const std::vector<Preset>& presets() const { return m_presets; }
  // Files that failed validation ("file: key: what" each) and folder entries that could not
  // be read (a dangling or looping symlink, a FIFO, no permission: core::util::listFiles).
  const std::vector<std::string>& errors() const { return m_errors; }
  // Why the file of preset `idOrPrefix` (its name without ".json": exact, else a unique
  // prefix) was not loaded; empty when no such file failed.
  std::string errorFor(const std::string& idOrPrefix) const;
  // Exact id, else a unique case-insensitive prefix ("e3"); nullptr when none or ambiguous.
  const Preset* find(const std::string& idOrPrefix) const;

private:
  std::vector<Preset> m_presets;
  std::vector<std::string> m_errors;
  std::vector<std::pair<std::string, std::string>> m_failed;  // id (file name without .json), error
};

}  // namespace core::experiment
