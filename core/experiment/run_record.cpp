#include "core/experiment/run_record.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "core/experiment/experiment_json.h"
#include "core/sim/sim_report_json.h"
#include "core/util/error.h"
#include "core/util/json_reader.h"

namespace core::experiment {

using util::Error;
using util::Json;
using util::JsonReader;

namespace {

constexpr int kFormatVersion = kRunHistoryFormatVersion;

// The record's format version: one this codec reads, or an error naming it.
int readVersion(const JsonReader& in) {
  const std::int64_t v = in.integer("version", kOldestRunHistoryFormatVersion, std::numeric_limits<int>::max());
  if (v > kFormatVersion)
    in.fail("version", std::to_string(v) + " is newer than this AccelLab reads (" +
                           std::to_string(kOldestRunHistoryFormatVersion) + " to " + std::to_string(kFormatVersion) +
                           "): a later AccelLab wrote it");
  return static_cast<int>(v);
}

Json numbers(const std::vector<double>& v) {
  Json a = Json::array();
  for (double x : v) a.push(x);
  return a;
}

template <class T, class F>
Json column(std::span<const T> rows, F get) {
  Json a = Json::array();
  for (const auto& r : rows) a.push(static_cast<double>(get(r)));
  return a;
}

Json batchesToJson(std::span<const BatchSample> rows) {
  Json batches = Json::object();
  batches.set("epoch", column<BatchSample>(rows, [](const BatchSample& b) { return b.epoch; }));
  batches.set("step", column<BatchSample>(rows, [](const BatchSample& b) { return b.step; }));
  batches.set("loss", column<BatchSample>(rows, [](const BatchSample& b) { return b.loss; }));
  batches.set("accuracy", column<BatchSample>(rows, [](const BatchSample& b) { return b.accuracy; }));
  batches.set("images", column<BatchSample>(rows, [](const BatchSample& b) { return b.images; }));
  batches.set("wall_seconds", column<BatchSample>(rows, [](const BatchSample& b) { return b.wallSeconds; }));
  batches.set("step_seconds", column<BatchSample>(rows, [](const BatchSample& b) { return b.stepSeconds; }));
  return batches;
}

void appendBatches(const JsonReader& b, std::vector<BatchSample>& out) {
  const auto epoch = b.numbers("epoch"), step = b.numbers("step"), loss = b.numbers("loss"),
             acc = b.numbers("accuracy"), images = b.numbers("images"), wall = b.numbers("wall_seconds"),
             stepSeconds = b.numbers("step_seconds");
  for (const auto* col : {&step, &loss, &acc, &images, &wall, &stepSeconds})
    if (col->size() != epoch.size()) b.fail("", "the batch columns have different lengths");
  b.finish();
  for (std::size_t i = 0; i < epoch.size(); ++i) {
    BatchSample s;
    s.epoch = static_cast<int>(epoch[i]);
    s.step = static_cast<std::int64_t>(step[i]);
    s.loss = loss[i];
    s.accuracy = acc[i];
    s.images = static_cast<std::int64_t>(images[i]);
    s.wallSeconds = wall[i];
    s.stepSeconds = stepSeconds[i];
    out.push_back(s);
  }
}

Json epochToJson(const EpochSample& e) {
  Json o = Json::object();
  o.set("epoch", e.epoch);
  o.set("train_loss", e.trainLoss);
  o.set("train_accuracy", e.trainAccuracy);
  o.set("test_loss", e.testLoss);
  o.set("test_accuracy", e.testAccuracy);
  o.set("host_seconds", e.hostSeconds);
  o.set("host_images_per_second", e.hostImagesPerSecond);
  o.set("eval_seconds", e.evalSeconds);
  o.set("images", static_cast<long long>(e.images));
  return o;
}

EpochSample epochFromJson(const JsonReader& e) {
  EpochSample s;
  s.epoch = static_cast<int>(e.integer("epoch", 0, 1 << 20));
  s.trainLoss = e.real("train_loss", 0);
  s.trainAccuracy = e.real("train_accuracy", 0);
  s.testLoss = e.real("test_loss", 0);
  s.testAccuracy = e.real("test_accuracy", 0);
  s.hostSeconds = e.real("host_seconds", 0);
  s.hostImagesPerSecond = e.real("host_images_per_second", 0);
  s.evalSeconds = e.real("eval_seconds", 0);
  s.images = e.integer("images", 0, 0, INT64_MAX / 2);
  e.finish();
  return s;
}

Json textToJson(const TextSample& t) {
  Json o = Json::object();
  o.set("step", static_cast<double>(t.step));
  o.set("bits_per_char", t.bitsPerChar);
  o.set("prompt", t.prompt);
  o.set("greedy", t.greedy);
  o.set("sampled", t.sampled);
  return o;
}

TextSample textFromJson(const JsonReader& in) {
  TextSample t;
  t.step = in.integer("step", 0, 0, std::int64_t{1} << 40);
  t.bitsPerChar = in.number("bits_per_char", 0, 0, 1e6);
  t.prompt = in.string("prompt", "");
  t.greedy = in.string("greedy", "");
  t.sampled = in.string("sampled", "");
  in.finish();
  return t;
}

Json runToJson(const RunRecord& run) {
  Json j = Json::object();
  j.set("name", run.name);
  j.set("color", run.color);
  j.set("visible", run.visible);
  j.set("status", runStatusName(run.status));
  if (!run.statusMessage.empty()) j.set("status_message", run.statusMessage);
  if (!run.presetId.empty()) j.set("preset", run.presetId);
  j.set("config", trainConfigToJson(run.config));
  j.set("target_accuracy", run.targetAccuracy);

  j.set("batches", batchesToJson(run.batches));
  Json epochs = Json::array();
  for (const auto& e : run.epochs) epochs.push(epochToJson(e));
  j.set("epochs", std::move(epochs));

  Json devices = Json::array();
  for (const auto& d : run.devices) {
    Json o = Json::object();
    o.set("id", d.deviceId);
    o.set("label", d.label);
    o.set("count", d.count);
    o.set("vcpus", d.vcpus);
    o.set("measured", d.measured);
    if (!d.errorBand.empty()) o.set("error_band", d.errorBand);
    o.set("report", sim::simReportToJson(d.report));
    o.set("epoch_seconds", numbers(d.epochSeconds));
    devices.push(std::move(o));
  }
  j.set("devices", std::move(devices));

  Json refs = Json::array();
  for (const auto& m : run.references) refs.push(publishedFigureToJson(m));
  j.set("references", std::move(refs));
  if (!run.texts.empty()) {
    Json texts = Json::array();
    for (const auto& t : run.texts) texts.push(textToJson(t));
    j.set("texts", std::move(texts));
  }
  return j;
}

RunRecord runFromJson(const JsonReader& in, int version) {
  RunRecord run;
  run.name = in.string("name");
  run.color = in.string("color", "");
  run.visible = in.boolean("visible", true);
  run.status = *kRunStatusNames.parse(in.choice("status", kRunStatusNames.names()));
  run.statusMessage = in.string("status_message", "");
  run.presetId = in.string("preset", "");
  run.config = trainConfigFromJson(in.object("config"));
  run.targetAccuracy = in.number("target_accuracy", 0, 0, 1);
  if (run.status == RunStatus::Running || run.status == RunStatus::Paused) {
    run.status = RunStatus::Stopped;
    run.statusMessage = kInterruptedWhileRunning;
  }

  appendBatches(in.object("batches"), run.batches);
  for (const JsonReader& e : in.objects("epochs")) run.epochs.push_back(epochFromJson(e));
  for (const JsonReader& d : in.objects("devices")) {
    DeviceRecord r;
    r.deviceId = d.string("id");
    r.label = d.string("label", "");
    r.count = static_cast<int>(d.integer("count", 1, 0, 1 << 20));
    r.vcpus = static_cast<int>(d.integer("vcpus", 0, 0, 1 << 20));
    r.measured = d.boolean("measured", false);
    r.errorBand = d.string("error_band", "");
    const JsonReader report = d.object("report");
    // Version 1 wrote a transformer's report without its plan part.
    if (version < 2 && report.has("plan")) report.fail("plan", "a version 1 record has no plan part");
    r.report = sim::simReportFromJson(report);
    r.epochSeconds = d.numbers("epoch_seconds");
    d.finish();
    run.devices.push_back(std::move(r));
  }
  for (const JsonReader& m : in.objects("references")) run.references.push_back(publishedFigureFromJson(m));
  if (in.has("texts"))
    for (const JsonReader& t : in.objects("texts")) run.texts.push_back(textFromJson(t));
  in.finish();
  return run;
}

// The JSON budgets of the history's texts. A record is written indented (every value on a
// line of its own, five bytes or more), an epoch's line compact (two bytes or more a value).
util::JsonLimits recordLimits(std::size_t bytes) { return {bytes / 4 + 4096, 32}; }
util::JsonLimits epochLineLimits(std::size_t bytes) { return {bytes / 2 + 1024, 16}; }

}  // namespace

std::string interruptedMessage(std::size_t epochs) {
  return "Interrupted: the app ended during this run; its " + std::to_string(epochs) + " finished epoch" +
         (epochs == 1 ? " was" : "s were") + " kept.";
}

std::vector<RunRecord> runsFromJson(const std::string& text, const std::string& source, std::vector<std::string>* skipped) {
  const Json root = Json::parse(text, source);
  const JsonReader in(root, source);
  in.choice("format", {"accellab-runs"});
  const int version = readVersion(in);
  std::vector<RunRecord> runs;
  for (const JsonReader& r : in.objects("runs")) {
    try {
      runs.push_back(runFromJson(r, version));
    } catch (const std::exception& e) {
      if (!skipped) throw;
      skipped->emplace_back(e.what());
    }
  }
  in.finish();
  return runs;
}

std::string runsToJson(const std::vector<RunRecord>& runs) {
  Json root = Json::object();
  root.set("format", "accellab-runs");
  root.set("version", kFormatVersion);
  Json list = Json::array();
  for (const auto& r : runs) list.push(runToJson(r));
  root.set("runs", std::move(list));
  return root.dump(1) + "\n";
}

std::string runFileJson(const RunRecord& run) {
  Json root = Json::object();
  root.set("format", "accellab-run");
  root.set("version", kFormatVersion);
  root.set("run", runToJson(run));
  return root.dump(1) + "\n";
}

RunRecord runFromFile(const std::string& text, const std::string& source) {
  const Json root = Json::parse(text, source, recordLimits(text.size()));
  const JsonReader in(root, source);
  in.choice("format", {"accellab-run"});
  const int version = readVersion(in);
  RunRecord run = runFromJson(in.object("run"), version);
  in.finish();
  return run;
}

EpochLine epochLineFromJson(std::string_view text, const std::string& where) {
  const Json j = Json::parse(text, where, epochLineLimits(text.size()));
  const JsonReader in(j, where);
  EpochLine line;
  line.epoch = epochFromJson(in.object("epoch"));
  appendBatches(in.object("batches"), line.batches);
  if (in.has("text")) line.text = textFromJson(in.object("text"));
  line.deviceSeconds = in.numbers("device_epoch_seconds");
  in.finish();
  return line;
}

// A journal: line 1 {"format": "accellab-journal", "run": {...}}, then one line per epoch
// {"epoch": {...}, "batches": {...}, "device_epoch_seconds": [...]}. A last line cut short
// by a kill is ignored; the run comes back interrupted with every whole epoch.
RunRecord runFromJournal(const std::string& text, const std::string& source) {
  std::size_t lineEnd = text.find('\n');
  if (lineEnd == std::string::npos) throw Error(source + ": the journal has no complete first line");
  const std::string_view first = std::string_view(text).substr(0, lineEnd);
  const Json head = Json::parse(first, source + ":1", recordLimits(first.size()));
  const JsonReader h(head, source + ":1");
  h.choice("format", {"accellab-journal"});
  RunRecord run = runFromJson(h.object("run"), kOldestRunHistoryFormatVersion);  // journals predate version 2
  h.finish();
  int line = 1;
  while (lineEnd + 1 < text.size()) {
    const std::size_t next = text.find('\n', lineEnd + 1);
    if (next == std::string::npos) break;  // the line in progress when the app ended
    ++line;
    applyEpochLine(run, epochLineFromJson(std::string_view(text).substr(lineEnd + 1, next - lineEnd - 1),
                                          source + ":" + std::to_string(line)));
    lineEnd = next;
  }
  run.status = RunStatus::Stopped;
  run.statusMessage = interruptedMessage(run.epochs.size());
  return run;
}

std::string epochLineJson(const EpochSample& epoch, std::span<const BatchSample> batches,
                          const std::vector<double>& deviceSeconds, const TextSample* text) {
  Json line = Json::object();
  line.set("epoch", epochToJson(epoch));
  line.set("batches", batchesToJson(batches));
  Json seconds = Json::array();
  for (double s : deviceSeconds) seconds.push(std::isnan(s) ? Json() : Json(s));
  line.set("device_epoch_seconds", std::move(seconds));
  if (text) line.set("text", textToJson(*text));
  return line.dump();
}

}  // namespace core::experiment
