#include "core/experiment/experiment_json.h"

#include "core/experiment/limits.h"
#include "core/experiment/names.h"
#include "core/sim/pricing.h"

namespace core::experiment {

using util::Json;
using util::JsonReader;

namespace {

const std::vector<std::string> kPrecisionNames = {"fp32", "tf32", "fp16", "bf16"};

template <class E, std::size_t N>
E readEnum(const JsonReader& in, const std::string& key, const NameTable<E, N>& table, E fallback) {
  return *table.parse(in.choice(key, table.names(), std::string(table.name(fallback))));
}

}  // namespace

Json trainConfigToJson(const TrainConfig& c) {
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
  // Every setting is written, whatever the optimizer: switching optimizer and back loses nothing.
  j.set("momentum", c.momentum);
  j.set("nesterov", c.nesterov);
  j.set("weight_decay", c.weightDecay);
  j.set("schedule", scheduleName(c.schedule));
  j.set("precision", util::precisionName(c.precision));
  j.set("seed", static_cast<unsigned long long>(c.seed));
  j.set("threads", c.threads);
  if (c.bnStatsSamples > 0) j.set("bn_stats_samples", static_cast<long long>(c.bnStatsSamples));
  if (c.fileWeights) j.set("weights", "file");
  return j;
}

TrainConfig trainConfigFromJson(const JsonReader& in) {
  TrainConfig c;
  c.datasetId = in.string("dataset");
  c.dataDir = in.string("data_dir", "");
  c.modelId = in.string("model");
  c.batch = static_cast<int>(in.integer("batch", 1, kMaxBatch));
  c.epochs = static_cast<int>(in.integer("epochs", c.epochs, 1, kMaxEpochs));
  c.limit = in.integer("limit", 0, 0, kMaxSamples);
  c.testLimit = in.integer("test_limit", 0, 0, kMaxSamples);
  c.optimizer = readEnum(in, "optimizer", kOptimizerNames, c.optimizer);
  c.learningRate = in.number("learning_rate", c.learningRate, 1e-12, kMaxLearningRate);
  // [0, 1): momentum 1 never forgets a gradient, so it is refused rather than quietly changed.
  c.momentum = in.number("momentum", c.momentum, 0, 0.999999);
  c.nesterov = in.boolean("nesterov", c.nesterov);
  c.weightDecay = in.number("weight_decay", c.weightDecay, 0, kMaxWeightDecay);
  c.schedule = readEnum(in, "schedule", kScheduleNames, c.schedule);
  c.precision = *util::parsePrecision(in.choice("precision", kPrecisionNames, std::string(util::precisionName(c.precision))));
  c.seed = static_cast<std::uint64_t>(in.integer("seed", 0, 0, static_cast<std::int64_t>(kMaxSeed)));
  c.threads = static_cast<int>(in.integer("threads", 0, 0, kMaxThreads));
  c.bnStatsSamples = in.integer("bn_stats_samples", 0, 0, kMaxSamples);
  c.fileWeights = in.choice("weights", {"fresh", "file"}, "fresh") == "file";
  in.finish();
  return c;
}

Json deviceChoiceToJson(const DeviceChoice& d) {
  Json j = Json::object();
  j.set("id", d.deviceId);
  if (d.vcpus > 0) {
    j.set("vcpus", d.vcpus);
    if (d.memoryGib > 0) j.set("memory_gib", d.memoryGib);
  } else {
    j.set("count", d.count);
  }
  j.set("price", priceKindName(d.preemptible));
  if (d.userUsdPerHour) j.set("usd_per_hour", *d.userUsdPerHour);
  j.set("precision", d.precision ? util::precisionName(*d.precision) : "as-run");
  if (!d.stackId.empty()) j.set("stack", d.stackId);
  return j;
}

DeviceChoice deviceChoiceFromJson(const JsonReader& in) {
  DeviceChoice d;
  d.deviceId = in.string("id");
  if (d.deviceId.empty()) in.fail("id", "must name a device");
  // Found by the experiment fuzz target: both were read, only vcpus was written back.
  if (in.has("count") && in.has("vcpus"))
    in.fail("vcpus", "a device takes \"count\" (devices in data parallel) or \"vcpus\" (a scalable CPU), not both");
  d.count = static_cast<int>(in.integer("count", 1, 1, kMaxDeviceCount));
  d.vcpus = static_cast<int>(in.integer("vcpus", 0, 1, kMaxVcpus));
  // A cloud CPU's RAM is the VM's (a Kaggle session: 13 GB whatever its vCPUs), not per vCPU.
  if (in.has("memory_gib") && !in.has("vcpus"))
    in.fail("memory_gib", "is a scalable CPU's RAM: give it with \"vcpus\"");
  d.memoryGib = in.number("memory_gib", 0, 0.125, 1 << 20);
  d.preemptible = readEnum(in, "price", kPriceKindNames, false);
  // The price the user pays, per device-hour (per vCPU-hour on a scalable CPU): it replaces the
  // catalog's in every cost.
  if (in.has("usd_per_hour")) d.userUsdPerHour = in.number("usd_per_hour", sim::kMinUserUsdPerHour, sim::kMaxUserUsdPerHour);
  std::vector<std::string> precisions = {"as-run"};
  precisions.insert(precisions.end(), kPrecisionNames.begin(), kPrecisionNames.end());
  precisions.push_back("fp8");  // a simulated device may run fp8 or fp4; the engine (TrainConfig) may not
  precisions.push_back("fp4");
  const std::string p = in.choice("precision", precisions, std::string("as-run"));
  if (p != "as-run") d.precision = util::parsePrecision(p);
  d.stackId = in.string("stack", "");
  in.finish();
  return d;
}

Json experimentToJson(const Experiment& e) {
  Json j = Json::object();
  j.set("experiment", trainConfigToJson(e.train));
  j.set("mode", e.trainHere ? "train" : "simulate");
  if (!e.stackId.empty()) j.set("stack", e.stackId);
  if (!e.compareStackId.empty()) j.set("compare_stack", e.compareStackId);
  Json devices = Json::array();
  for (const auto& d : e.devices) devices.push(deviceChoiceToJson(d));
  j.set("devices", std::move(devices));
  if (!e.presetId.empty()) j.set("preset", e.presetId);
  return j;
}

Experiment readExperimentKeys(const JsonReader& in) {
  Experiment e;
  e.train = trainConfigFromJson(in.object("experiment"));
  e.trainHere = in.choice("mode", {"train", "simulate"}, std::string("train")) == "train";
  e.stackId = in.string("stack", "");
  e.compareStackId = in.string("compare_stack", "");
  for (const JsonReader& d : in.objects("devices")) {
    DeviceChoice choice = deviceChoiceFromJson(d);
    for (const auto& other : e.devices)
      if (other.deviceId == choice.deviceId) d.fail("id", "device \"" + choice.deviceId + "\" is listed twice");
    e.devices.push_back(std::move(choice));
  }
  e.presetId = in.string("preset", "");
  return e;
}

Experiment experimentFromJson(const JsonReader& in) {
  Experiment e = readExperimentKeys(in);
  in.finish();
  return e;
}

Experiment experimentFromJsonText(const std::string& text, const std::string& source) {
  const Json root = Json::parse(text, source);
  return experimentFromJson(JsonReader(root, source));
}

}  // namespace core::experiment
