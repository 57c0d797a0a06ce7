#pragma once
// CONTRACT: a run of the history as plain values, and its texts (the one codec of the run
// history; the app converts its widgets::Run to and from it, app/gui/run_codec.h). A run's
// record is the run file's JSON ({"format": "accellab-run", "version": 2, "run": {...}}); a
// running run's finished epochs are journal lines, one each ({"epoch": {...}, "batches":
// {...}, "device_epoch_seconds": [...], "text": {...}}). The files of earlier versions
// (runs.json, <key>.json, <key>.jsonl) are in the same formats, version 1. Version 2
// (2026-11-27): a device's report is the one report of core/sim/sim_report_json, so a
// transformer's carries its plan part (plan, tokens_per_second, memory_breakdown, ...); a
// version 1 record has none, and one that claims version 1 with a plan part is refused. A
// version newer than this codec's is refused, naming it. Every reader parses
// within a JSON budget for its kind of text and throws core::util::Error naming the source
// and the key.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/experiment/names.h"
#include "core/experiment/preset.h"
#include "core/experiment/run_samples.h"
#include "core/experiment/train_config.h"
#include "core/sim/sim_report.h"

namespace core::experiment {

// The history format this codec writes, and the oldest it reads.
inline constexpr int kRunHistoryFormatVersion = 2;
inline constexpr int kOldestRunHistoryFormatVersion = 1;

// One device's figures within a run: measured (the host) or simulated from its report.
struct DeviceRecord {
  std::string deviceId;
  std::string label;
  int count = 1;
  int vcpus = 0;
  bool measured = false;
  std::string errorBand;
  sim::SimReport report;
  std::vector<double> epochSeconds;
};

struct RunRecord {
  std::string name;
  std::string color;          // "#rrggbb" as stored (the app reads it as a colour)
  bool visible = true;
  RunStatus status = RunStatus::NotStarted;
  std::string statusMessage;
  std::string presetId;
  TrainConfig config;
  double targetAccuracy = 0;
  std::vector<BatchSample> batches;
  std::vector<EpochSample> epochs;
  std::vector<DeviceRecord> devices;
  std::vector<PublishedFigure> references;
  std::vector<TextSample> texts;
};

// A run read back as running or paused had its app end during it.
inline constexpr const char* kInterruptedWhileRunning = "Interrupted: the app closed during this run.";
// The status message of a run whose app ended during it, with its finished epochs kept.
std::string interruptedMessage(std::size_t epochs);

// One run's file (the record_json of its database row), and back.
std::string runFileJson(const RunRecord& run);
RunRecord runFromFile(const std::string& text, const std::string& source);
// The history of runs.json (one file, before 2026-11): a single malformed run is skipped, its
// error (naming the key) added to `skipped`; without `skipped` it throws.
std::string runsToJson(const std::vector<RunRecord>& runs);
std::vector<RunRecord> runsFromJson(const std::string& text, const std::string& source,
                                    std::vector<std::string>* skipped = nullptr);
// A run's journal file of earlier versions (the app ended during the run): the run,
// interrupted, with every finished epoch; a last line cut short is ignored.
RunRecord runFromJournal(const std::string& text, const std::string& source);

// One finished epoch as a journal line: the epoch, its batch samples, each device's
// simulated seconds (NaN: none, written as null) and a language model's text.
struct EpochLine {
  EpochSample epoch;
  std::vector<BatchSample> batches;
  std::vector<double> deviceSeconds;
  std::optional<TextSample> text;
};
std::string epochLineJson(const EpochSample& epoch, std::span<const BatchSample> batches,
                          const std::vector<double>& deviceSeconds, const TextSample* text);
EpochLine epochLineFromJson(std::string_view line, const std::string& where);
// Adds a whole line to a run: the record, or the app's run of the same shape (epochs, batches,
// texts, devices[].epochSeconds). A device's NaN (no figure that epoch) adds nothing.
template <class RunLike>
void applyEpochLine(RunLike& run, const EpochLine& line) {
  run.epochs.push_back(line.epoch);
  run.batches.insert(run.batches.end(), line.batches.begin(), line.batches.end());
  if (line.text) run.texts.push_back(*line.text);
  const std::size_t devices = std::min(static_cast<std::size_t>(run.devices.size()), line.deviceSeconds.size());
  for (std::size_t d = 0; d < devices; ++d)
    if (std::isfinite(line.deviceSeconds[d])) run.devices[d].epochSeconds.push_back(line.deviceSeconds[d]);
}

}  // namespace core::experiment
