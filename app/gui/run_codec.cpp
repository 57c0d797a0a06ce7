#include "app/gui/run_codec.h"

#include <QObject>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string_view>

#include "app/gui/config_json.h"
#include "core/experiment/experiment_json.h"
#include "core/experiment/names.h"
#include "core/sim/sim_report_json.h"
#include "core/util/error.h"

namespace app::gui {

using core::experiment::RunStatus;
using core::util::JsonReader;
using core::util::Error;
using core::util::Json;

namespace {

constexpr int kFormatVersion = 1;

Json numbers(const std::vector<double>& v) {
  Json a = Json::array();
  for (double x : v) a.push(x);
  return a;
}

template <class T, class F>
Json column(const std::vector<T>& rows, F get) {
  Json a = Json::array();
  for (const auto& r : rows) a.push(static_cast<double>(get(r)));
  return a;
}

Json batchesToJson(const std::vector<core::experiment::BatchSample>& all, std::size_t from) {
  using core::experiment::BatchSample;
  const std::vector<BatchSample> rows(all.begin() + static_cast<std::ptrdiff_t>(std::min(from, all.size())), all.end());
  Json batches = Json::object();
  batches.set("epoch", column(rows, [](const BatchSample& b) { return b.epoch; }));
  batches.set("step", column(rows, [](const BatchSample& b) { return b.step; }));
  batches.set("loss", column(rows, [](const BatchSample& b) { return b.loss; }));
  batches.set("accuracy", column(rows, [](const BatchSample& b) { return b.accuracy; }));
  batches.set("images", column(rows, [](const BatchSample& b) { return b.images; }));
  batches.set("wall_seconds", column(rows, [](const BatchSample& b) { return b.wallSeconds; }));
  batches.set("step_seconds", column(rows, [](const BatchSample& b) { return b.stepSeconds; }));
  return batches;
}

void appendBatches(const JsonReader& b, std::vector<core::experiment::BatchSample>& out) {
  const auto epoch = b.numbers("epoch"), step = b.numbers("step"), loss = b.numbers("loss"),
             acc = b.numbers("accuracy"), images = b.numbers("images"), wall = b.numbers("wall_seconds"),
             stepSeconds = b.numbers("step_seconds");
  for (const auto* col : {&step, &loss, &acc, &images, &wall, &stepSeconds})
    if (col->size() != epoch.size()) b.fail("", "the batch columns have different lengths");
  b.finish();
  for (std::size_t i = 0; i < epoch.size(); ++i) {
    core::experiment::BatchSample s;
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

Json epochToJson(const core::experiment::EpochSample& e) {
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

core::experiment::EpochSample epochFromJson(const JsonReader& e) {
  core::experiment::EpochSample s;
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

Json textToJson(const core::experiment::TextSample& t) {
  Json o = Json::object();
  o.set("step", static_cast<double>(t.step));
  o.set("bits_per_char", t.bitsPerChar);
  o.set("prompt", t.prompt);
  o.set("greedy", t.greedy);
  o.set("sampled", t.sampled);
  return o;
}

core::experiment::TextSample textFromJson(const JsonReader& in) {
  core::experiment::TextSample t;
  t.step = in.integer("step", 0, 0, std::int64_t{1} << 40);
  t.bitsPerChar = in.number("bits_per_char", 0, 0, 1e6);
  t.prompt = in.string("prompt", "");
  t.greedy = in.string("greedy", "");
  t.sampled = in.string("sampled", "");
  in.finish();
  return t;
}

Json runToJson(const widgets::Run& run) {
  Json j = Json::object();
  j.set("name", run.name.toStdString());
  j.set("color", run.color.name().toStdString());
  j.set("visible", run.visible);
  j.set("status", core::experiment::runStatusName(run.status));
  if (!run.statusMessage.isEmpty()) j.set("status_message", run.statusMessage.toStdString());
  if (!run.presetId.isEmpty()) j.set("preset", run.presetId.toStdString());
  j.set("config", core::experiment::trainConfigToJson(run.config));
  j.set("target_accuracy", run.targetAccuracy);

  j.set("batches", batchesToJson(run.batches, 0));
  Json epochs = Json::array();
  for (const auto& e : run.epochs) epochs.push(epochToJson(e));
  j.set("epochs", std::move(epochs));

  Json devices = Json::array();
  for (const auto& d : run.devices) {
    Json o = Json::object();
    o.set("id", d.deviceId.toStdString());
    o.set("label", d.label.toStdString());
    o.set("count", d.count);
    o.set("vcpus", d.vcpus);
    o.set("measured", d.measured);
    if (!d.errorBand.isEmpty()) o.set("error_band", d.errorBand.toStdString());
    o.set("report", core::sim::simReportToJson(d.report));
    o.set("epoch_seconds", numbers(std::vector<double>(d.epochSeconds.begin(), d.epochSeconds.end())));
    devices.push(std::move(o));
  }
  j.set("devices", std::move(devices));

  Json refs = Json::array();
  for (const auto& m : run.references) refs.push(referenceMarkToJson(m));
  j.set("references", std::move(refs));
  if (!run.texts.empty()) {
    Json texts = Json::array();
    for (const auto& t : run.texts) texts.push(textToJson(t));
    j.set("texts", std::move(texts));
  }
  return j;
}

widgets::Run runFromJson(const JsonReader& in) {
  widgets::Run run;
  run.name = QString::fromStdString(in.string("name"));
  run.color = QColor(QString::fromStdString(in.string("color", "")));
  run.visible = in.boolean("visible", true);
  run.status = *core::experiment::kRunStatusNames.parse(in.choice("status", core::experiment::kRunStatusNames.names()));
  run.statusMessage = QString::fromStdString(in.string("status_message", ""));
  run.presetId = QString::fromStdString(in.string("preset", ""));
  run.config = core::experiment::trainConfigFromJson(in.object("config"));
  run.targetAccuracy = in.number("target_accuracy", 0, 0, 1);
  if (run.status == RunStatus::Running || run.status == RunStatus::Paused) {
    run.status = RunStatus::Stopped;
    run.statusMessage = QObject::tr("Interrupted: the app closed during this run.");
  }

  appendBatches(in.object("batches"), run.batches);
  for (const JsonReader& e : in.objects("epochs")) run.epochs.push_back(epochFromJson(e));
  for (const JsonReader& d : in.objects("devices")) {
    widgets::DeviceResult r;
    r.deviceId = QString::fromStdString(d.string("id"));
    r.label = QString::fromStdString(d.string("label", ""));
    r.count = static_cast<int>(d.integer("count", 1, 0, 1 << 20));
    r.vcpus = static_cast<int>(d.integer("vcpus", 0, 0, 1 << 20));
    r.measured = d.boolean("measured", false);
    r.errorBand = QString::fromStdString(d.string("error_band", ""));
    r.report = core::sim::simReportFromJson(d.object("report"));
    for (double v : d.numbers("epoch_seconds")) r.epochSeconds << v;
    d.finish();
    run.devices << r;
  }
  for (const JsonReader& m : in.objects("references")) run.references << referenceMarkFromJson(m);
  if (in.has("texts"))
    for (const JsonReader& t : in.objects("texts")) run.texts.push_back(textFromJson(t));
  in.finish();
  return run;
}

}  // namespace

std::vector<widgets::Run> runsFromJson(const std::string& text, const QString& source, QStringList* skipped) {
  const std::string src = source.toStdString();
  const Json root = Json::parse(text, src);
  const JsonReader in(root, src);
  in.choice("format", {"accellab-runs"});
  in.integer("version", kFormatVersion, kFormatVersion);
  std::vector<widgets::Run> runs;
  for (const JsonReader& r : in.objects("runs")) {
    try {
      runs.push_back(runFromJson(r));
    } catch (const std::exception& e) {
      if (!skipped) throw;
      *skipped << QString::fromUtf8(e.what());
    }
  }
  in.finish();
  return runs;
}

std::string runsToJson(const std::vector<widgets::Run>& runs) {
  Json root = Json::object();
  root.set("format", "accellab-runs");
  root.set("version", kFormatVersion);
  Json list = Json::array();
  for (const auto& r : runs) list.push(runToJson(r));
  root.set("runs", std::move(list));
  return root.dump(1) + "\n";
}

std::string runFileJson(const widgets::Run& run) {
  Json root = Json::object();
  root.set("format", "accellab-run");
  root.set("version", kFormatVersion);
  root.set("run", runToJson(run));
  return root.dump(1) + "\n";
}

namespace {

// The JSON budgets of the history's texts. A record is written indented (every value on a
// line of its own, five bytes or more), an epoch's line compact (two bytes or more a value).
core::util::JsonLimits recordLimits(std::size_t bytes) { return {bytes / 4 + 4096, 32}; }
core::util::JsonLimits epochLineLimits(std::size_t bytes) { return {bytes / 2 + 1024, 16}; }

}  // namespace

void applyEpochLine(widgets::Run& run, std::string_view text, const std::string& where) {
  const Json j = Json::parse(text, where, epochLineLimits(text.size()));
  const JsonReader in(j, where);
  core::experiment::EpochSample epoch = epochFromJson(in.object("epoch"));
  std::vector<core::experiment::BatchSample> batches;
  appendBatches(in.object("batches"), batches);
  std::optional<core::experiment::TextSample> sample;
  if (in.has("text")) sample = textFromJson(in.object("text"));
  const auto seconds = in.numbers("device_epoch_seconds");
  in.finish();
  // Only a whole line changes the run.
  run.epochs.push_back(epoch);
  run.batches.insert(run.batches.end(), batches.begin(), batches.end());
  if (sample) run.texts.push_back(std::move(*sample));
  for (int d = 0; d < run.devices.size() && static_cast<std::size_t>(d) < seconds.size(); ++d)
    if (std::isfinite(seconds[static_cast<std::size_t>(d)])) run.devices[d].epochSeconds << seconds[static_cast<std::size_t>(d)];
}

QString interruptedMessage(std::size_t epochs) {
  return QObject::tr("Interrupted: the app ended during this run; its %n finished epoch(s) were kept.", nullptr,
                     static_cast<int>(epochs));
}

widgets::Run runFromFile(const std::string& text, const QString& source) {
  const std::string src = source.toStdString();
  const Json root = Json::parse(text, src, recordLimits(text.size()));
  const JsonReader in(root, src);
  in.choice("format", {"accellab-run"});
  in.integer("version", kFormatVersion, kFormatVersion);
  widgets::Run run = runFromJson(in.object("run"));
  in.finish();
  return run;
}

// A journal: line 1 {"format": "accellab-journal", "run": {...}}, then one line per epoch
// {"epoch": {...}, "batches": {...}, "device_epoch_seconds": [...]}. A last line cut short
// by a kill is ignored; the run comes back interrupted with every whole epoch.
widgets::Run runFromJournal(const std::string& text, const QString& source) {
  const std::string src = source.toStdString();
  std::size_t lineEnd = text.find('\n');
  if (lineEnd == std::string::npos) throw Error(src + ": the journal has no complete first line");
  const std::string_view first = std::string_view(text).substr(0, lineEnd);
  const Json head = Json::parse(first, src + ":1", recordLimits(first.size()));
  const JsonReader h(head, src + ":1");
  h.choice("format", {"accellab-journal"});
  widgets::Run run = runFromJson(h.object("run"));
  h.finish();
  int line = 1;
  while (lineEnd + 1 < text.size()) {
    const std::size_t next = text.find('\n', lineEnd + 1);
    if (next == std::string::npos) break;  // the line in progress when the app ended
    ++line;
    applyEpochLine(run, std::string_view(text).substr(lineEnd + 1, next - lineEnd - 1), src + ":" + std::to_string(line));
    lineEnd = next;
  }
  run.status = RunStatus::Stopped;
  run.statusMessage = interruptedMessage(run.epochs.size());
  return run;
}

std::optional<std::string> epochLineJson(const widgets::Run& run, int epoch, std::size_t fromBatch, std::size_t* nextBatch) {
  const core::experiment::EpochSample* sample = nullptr;
  for (const auto& e : run.epochs)
    if (e.epoch == epoch) sample = &e;
  if (!sample) return std::nullopt;
  Json line = Json::object();
  line.set("epoch", epochToJson(*sample));
  // Samples up to this epoch's end: those of the next epoch wait for its line.
  fromBatch = std::min(fromBatch, run.batches.size());
  std::size_t upTo = fromBatch;
  while (upTo < run.batches.size() && run.batches[upTo].epoch <= epoch) ++upTo;
  std::vector<core::experiment::BatchSample> rows(run.batches.begin() + static_cast<std::ptrdiff_t>(fromBatch),
                                                  run.batches.begin() + static_cast<std::ptrdiff_t>(upTo));
  line.set("batches", batchesToJson(rows, 0));
  Json seconds = Json::array();
  for (const auto& d : run.devices)
    seconds.push(epoch >= 1 && epoch <= d.epochSeconds.size() ? Json(d.epochSeconds[epoch - 1]) : Json());
  line.set("device_epoch_seconds", std::move(seconds));
  // A language model's text of this evaluation (it reaches the run before its epoch).
  if (epoch >= 1 && static_cast<std::size_t>(epoch) <= run.texts.size()) line.set("text", textToJson(run.texts[static_cast<std::size_t>(epoch) - 1]));
  if (nextBatch) *nextBatch = upTo;
  return line.dump();
}

}  // namespace app::gui
