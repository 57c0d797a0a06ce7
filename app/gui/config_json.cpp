#include "app/gui/config_json.h"

#include <QDir>
#include <QFileInfo>
#include <QSaveFile>
#include <cmath>
#include <cstdint>
#include <limits>

#include "core/util/error.h"

namespace app::gui {

using core::util::Json;

const char* optimizerName(core::train::OptimizerKind kind) {
  return kind == core::train::OptimizerKind::SGD ? "sgd" : "adam";
}

namespace {

const char* scheduleName(core::train::Schedule s) {
  switch (s) {
    case core::train::Schedule::Constant: return "constant";
    case core::train::Schedule::Step: return "step";
    case core::train::Schedule::Cosine: return "cosine";
  }
  return "constant";
}

core::util::Precision readPrecision(const JsonReader& in, const std::string& key, core::util::Precision fallback) {
  const std::string name = in.choice(key, {"fp32", "tf32", "fp16", "bf16"}, std::string(core::util::precisionName(fallback)));
  return *core::util::parsePrecision(name);
}

}  // namespace

Json trainConfigToJson(const core::train::TrainConfig& c) {
  Json j = Json::object();
  j.set("dataset", c.datasetId);
  if (!c.dataDir.empty()) j.set("data_dir", c.dataDir);
  j.set("model", c.modelId);
  j.set("batch", c.batch);
  j.set("epochs", c.epochs);
  if (c.limit) j.set("limit", static_cast<long long>(c.limit));
  if (c.testLimit) j.set("test_limit", static_cast<long long>(c.testLimit));
  j.set("optimizer", optimizerName(c.optimizer));
  j.set("learning_rate", c.learningRate);
  if (c.optimizer == core::train::OptimizerKind::SGD) {
    j.set("momentum", c.momentum);
    j.set("nesterov", c.nesterov);
  }
  if (c.weightDecay != 0) j.set("weight_decay", c.weightDecay);
  if (c.schedule != core::train::Schedule::Constant) j.set("schedule", scheduleName(c.schedule));
  j.set("precision", core::util::precisionName(c.precision));
  j.set("seed", static_cast<unsigned long long>(c.seed));
  j.set("threads", c.threads);
  if (c.bnStatsSamples > 0) j.set("bn_stats_samples", static_cast<long long>(c.bnStatsSamples));
  return j;
}

core::train::TrainConfig trainConfigFromJson(const JsonReader& in) {
  core::train::TrainConfig c;
  c.datasetId = in.string("dataset");
  c.dataDir = in.string("data_dir", "");
  c.modelId = in.string("model");
  c.batch = static_cast<int>(in.integer("batch", 1, 1 << 20));
  c.epochs = static_cast<int>(in.integer("epochs", c.epochs, 1, 100000));
  c.limit = in.integer("limit", 0, 0, std::numeric_limits<std::int32_t>::max());
  c.testLimit = in.integer("test_limit", 0, 0, std::numeric_limits<std::int32_t>::max());
  c.optimizer = in.choice("optimizer", {"adam", "sgd"}, std::string("adam")) == "sgd" ? core::train::OptimizerKind::SGD
                                                                                      : core::train::OptimizerKind::Adam;
  c.learningRate = in.number("learning_rate", c.learningRate, 1e-12, 1e9);
  c.momentum = in.number("momentum", c.momentum, 0, 1);
  c.nesterov = in.boolean("nesterov", c.nesterov);
  c.weightDecay = in.number("weight_decay", c.weightDecay, 0, 1);
  const std::string schedule = in.choice("schedule", {"constant", "step", "cosine"}, std::string("constant"));
  c.schedule = schedule == "step" ? core::train::Schedule::Step
               : schedule == "cosine" ? core::train::Schedule::Cosine
                                      : core::train::Schedule::Constant;
  c.precision = readPrecision(in, "precision", c.precision);
  c.seed = static_cast<std::uint64_t>(in.integer("seed", 0, 0, std::numeric_limits<std::int32_t>::max()));
  c.threads = static_cast<int>(in.integer("threads", 0, 0, 1024));
  c.bnStatsSamples = in.integer("bn_stats_samples", 0, 0, std::numeric_limits<std::int32_t>::max());
  in.finish();
  return c;
}

Json deviceChoiceToJson(const widgets::DeviceChoice& d) {
  Json j = Json::object();
  j.set("id", d.deviceId.toStdString());
  if (d.vcpus > 0) {
    j.set("vcpus", d.vcpus);
  } else {
    j.set("count", d.count);
  }
  j.set("price", d.preemptible ? "preemptible" : "on-demand");
  j.set("precision", d.precision ? core::util::precisionName(*d.precision) : "as-run");
  return j;
}

widgets::DeviceChoice deviceChoiceFromJson(const JsonReader& in) {
  widgets::DeviceChoice d;
  d.deviceId = QString::fromStdString(in.string("id"));
  d.count = static_cast<int>(in.integer("count", 1, 1, 4096));
  d.vcpus = static_cast<int>(in.integer("vcpus", 0, 1, 4096));
  d.preemptible = in.choice("price", {"on-demand", "preemptible"}, std::string("on-demand")) == "preemptible";
  const std::string p = in.choice("precision", {"as-run", "fp32", "tf32", "fp16", "bf16"}, std::string("as-run"));
  if (p != "as-run") d.precision = core::util::parsePrecision(p);
  in.finish();
  return d;
}

Json referenceMarkToJson(const widgets::ReferenceMark& m, const QString& source) {
  Json r = Json::object();
  r.set("chart", m.chart.toStdString());
  r.set("device", m.deviceId.toStdString());
  if (std::isfinite(m.x)) r.set("x", m.x);
  r.set("value", m.value);
  r.set("label", m.label.toStdString());
  if (!source.isEmpty()) r.set("source", source.toStdString());
  return r;
}

widgets::ReferenceMark referenceMarkFromJson(const JsonReader& in, QString* source) {
  widgets::ReferenceMark m;
  m.chart = QString::fromStdString(
      in.choice("chart", {"epoch_time", "throughput", "cost", "cost_per_million", "time_to_accuracy", "sweep"}));
  m.deviceId = QString::fromStdString(in.string("device"));
  m.x = in.has("x") ? in.number("x", -1e15, 1e15) : std::nan("");
  m.value = in.number("value", 0, 1e15);
  m.label = QString::fromStdString(in.string("label"));
  const QString s = QString::fromStdString(in.string("source", ""));
  if (source) *source = s;
  in.finish();
  return m;
}

void writeTextFile(const QString& path, const std::string& text) {
  const QFileInfo info(path);
  if (!QDir().mkpath(info.absolutePath()))
    throw core::util::Error(path.toStdString() + ": cannot create the folder " + info.absolutePath().toStdString());
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly) || file.write(text.data(), static_cast<qint64>(text.size())) < 0 || !file.commit())
    throw core::util::Error(path.toStdString() + ": cannot write: " + file.errorString().toStdString());
}

std::string experimentSetupToJson(const ExperimentSetup& setup) {
  Json j = Json::object();
  j.set("config", trainConfigToJson(setup.config));
  Json devices = Json::array();
  for (const auto& d : setup.devices) devices.push(deviceChoiceToJson(d));
  j.set("devices", std::move(devices));
  j.set("train_here", setup.trainHere);
  if (!setup.presetId.isEmpty()) j.set("preset", setup.presetId.toStdString());
  return j.dump();
}

ExperimentSetup experimentSetupFromJson(const std::string& text, const std::string& source) {
  const Json root = Json::parse(text, source);
  const JsonReader in(root, source);
  ExperimentSetup s;
  s.config = trainConfigFromJson(in.object("config"));
  for (const JsonReader& d : in.objects("devices")) s.devices << deviceChoiceFromJson(d);
  s.trainHere = in.boolean("train_here", true);
  s.presetId = QString::fromStdString(in.string("preset", ""));
  in.finish();
  return s;
}

}  // namespace app::gui
