#include "app/gui/run_codec.h"

#include <QColor>
#include <algorithm>
#include <cmath>
#include <span>

#include "app/gui/config_json.h"
#include "core/experiment/run_record.h"

namespace app::gui {

using core::experiment::RunRecord;

namespace {

QString q(const std::string& s) { return QString::fromStdString(s); }

RunRecord toRecord(const widgets::Run& run) {
  RunRecord r;
  r.name = run.name.toStdString();
  r.color = run.color.name().toStdString();
  r.visible = run.visible;
  r.status = run.status;
  r.statusMessage = run.statusMessage.toStdString();
  r.presetId = run.presetId.toStdString();
  r.config = run.config;
  r.targetAccuracy = run.targetAccuracy;
  r.batches = run.batches;
  r.epochs = run.epochs;
  for (const auto& d : run.devices) {
    core::experiment::DeviceRecord o;
    o.deviceId = d.deviceId.toStdString();
    o.label = d.label.toStdString();
    o.count = d.count;
    o.vcpus = d.vcpus;
    o.measured = d.measured;
    o.errorBand = d.errorBand.toStdString();
    o.report = d.report;
    o.epochSeconds.assign(d.epochSeconds.begin(), d.epochSeconds.end());
    r.devices.push_back(std::move(o));
  }
  for (const auto& m : run.references) r.references.push_back(figureFromReferenceMark(m));
  r.texts = run.texts;
  return r;
}

widgets::Run fromRecord(RunRecord r) {
  widgets::Run run;
  run.name = q(r.name);
  run.color = QColor(q(r.color));
  run.visible = r.visible;
  run.status = r.status;
  run.statusMessage = q(r.statusMessage);
  run.presetId = q(r.presetId);
  run.config = std::move(r.config);
  run.targetAccuracy = r.targetAccuracy;
  run.batches = std::move(r.batches);
  run.epochs = std::move(r.epochs);
  for (auto& d : r.devices) {
    widgets::DeviceResult o;
    o.deviceId = q(d.deviceId);
    o.label = q(d.label);
    o.count = d.count;
    o.vcpus = d.vcpus;
    o.measured = d.measured;
    o.errorBand = q(d.errorBand);
    o.report = std::move(d.report);
    o.epochSeconds = QVector<double>(d.epochSeconds.begin(), d.epochSeconds.end());
    run.devices << o;
  }
  for (const auto& f : r.references) run.references << referenceMarkFromFigure(f);
  run.texts = std::move(r.texts);
  return run;
}

}  // namespace

std::vector<widgets::Run> runsFromJson(const std::string& text, const QString& source, QStringList* skipped) {
  std::vector<std::string> skippedRuns;
  std::vector<RunRecord> records = core::experiment::runsFromJson(text, source.toStdString(), skipped ? &skippedRuns : nullptr);
  if (skipped)
    for (const auto& s : skippedRuns) *skipped << QString::fromUtf8(s.c_str());
  std::vector<widgets::Run> runs;
  for (auto& r : records) runs.push_back(fromRecord(std::move(r)));
  return runs;
}

std::string runsToJson(const std::vector<widgets::Run>& runs) {
  std::vector<RunRecord> records;
  for (const auto& r : runs) records.push_back(toRecord(r));
  return core::experiment::runsToJson(records);
}

std::string runFileJson(const widgets::Run& run) { return core::experiment::runFileJson(toRecord(run)); }

widgets::Run runFromFile(const std::string& text, const QString& source) {
  return fromRecord(core::experiment::runFromFile(text, source.toStdString()));
}

widgets::Run runFromJournal(const std::string& text, const QString& source) {
  return fromRecord(core::experiment::runFromJournal(text, source.toStdString()));
}

void applyEpochLine(widgets::Run& run, std::string_view text, const std::string& where) {
  // Only a whole line changes the run (it is read whole first).
  core::experiment::applyEpochLine(run, core::experiment::epochLineFromJson(text, where));
}

QString interruptedMessage(std::size_t epochs) { return q(core::experiment::interruptedMessage(epochs)); }

std::optional<std::string> epochLineJson(const widgets::Run& run, int epoch, std::size_t fromBatch, std::size_t* nextBatch) {
  const core::experiment::EpochSample* sample = nullptr;
  for (const auto& e : run.epochs)
    if (e.epoch == epoch) sample = &e;
  if (!sample) return std::nullopt;
  // Samples up to this epoch's end: those of the next epoch wait for its line.
  fromBatch = std::min(fromBatch, run.batches.size());
  std::size_t upTo = fromBatch;
  while (upTo < run.batches.size() && run.batches[upTo].epoch <= epoch) ++upTo;
  std::vector<double> seconds;
  for (const auto& d : run.devices)
    seconds.push_back(epoch >= 1 && epoch <= d.epochSeconds.size() ? d.epochSeconds[epoch - 1] : std::nan(""));
  // A language model's text of this evaluation (it reaches the run before its epoch).
  const core::experiment::TextSample* text =
      epoch >= 1 && static_cast<std::size_t>(epoch) <= run.texts.size() ? &run.texts[static_cast<std::size_t>(epoch) - 1] : nullptr;
  if (nextBatch) *nextBatch = upTo;
  return core::experiment::epochLineJson(*sample, std::span(run.batches).subspan(fromBatch, upTo - fromBatch), seconds, text);
}

}  // namespace app::gui
