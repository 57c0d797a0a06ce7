#include "core/sim/sim_report_json.h"

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>

#include "core/nn/transformer_spec.h"
#include "core/util/error.h"
#include "core/util/numbers.h"

namespace core::sim {

using util::Json;
using util::JsonReader;

namespace {

constexpr std::int64_t kMaxCount = std::int64_t{1} << 30;
constexpr std::int64_t kMaxSteps = std::numeric_limits<std::int64_t>::max() / 2;

Json figure(double v, JsonDigits digits) {
  return Json(digits == JsonDigits::Exact ? v : util::roundSignificant(v, 6));
}

template <class E, std::size_t N>
E readName(const JsonReader& in, const std::string& key, const util::NameTable<E, N>& table, E fallback) {
  if (!in.has(key)) return fallback;
  return *table.parse(in.choice(key, table.names()));
}

util::Precision readPrecision(const JsonReader& in, const std::string& key) {
  return *util::parsePrecision(in.choice(key, {"fp32", "tf32", "fp16", "bf16", "fp8", "fp4"}));
}

Json planToJson(const ParallelPlan& p) {
  Json j = Json::object();
  j.set("dp", p.dp);
  j.set("tp", p.tp);
  j.set("pp", p.pp);
  j.set("ep", p.ep);
  j.set("zero", p.zero);
  j.set("recompute", recomputeName(p.recompute));
  j.set("microbatch", p.microBatch);
  j.set("text", p.text());
  j.set("description", p.describe());
  return j;
}

ModelSize modelSizeFromJson(const JsonReader& in) {
  // Reports written before the size was stated read as 0 (unknown).
  ModelSize s;
  constexpr std::int64_t kMax = std::int64_t{1} << 53;
  s.params = in.integer("params", 0, 0, kMax);
  s.trainableParams = in.integer("trainable_params", 0, 0, kMax);
  s.activeParams = in.integer("active_params", 0, 0, kMax);
  in.string("active_params_convention", "");
  s.inputEmbeddingParams = s.activeParams - in.integer("active_params_without_input_embedding", s.activeParams, 0, kMax);
  s.forwardFlopsPerSample = in.number("forward_flops_per_sample", 0, 0, 1e30);
  return s;
}

// A price or an energy figure that is not known is null in the JSON, never 0 (which reads as free).
Json orNull(bool known, const Json& v) { return known ? v : Json(); }

void readEnergy(const JsonReader& in, Energy& e, EnergySettings& s) {
  if (!in.has("energy")) return;
  const JsonReader o = in.object("energy");
  o.boolean("estimate", true);
  const double watts = o.real("power_watts", std::nan(""));
  e.known = std::isfinite(watts);
  e.watts = e.known ? watts : 0;
  e.typicalDraw = o.string("power_from", "") == "typical training draw";
  s.pue = o.number("pue", 1.0, 1.0, 3.0);
  s.pueId = o.string("pue_choice", "");
  s.gridKgCo2ePerKwh = o.number("grid_kg_co2e_per_kwh", 0.0, 0.0, 2.0);
  s.regionId = o.string("grid_region", "");
  o.finish();
  const double kwh = in.real("energy_kwh", std::nan("")), co2 = in.real("co2e_kg", std::nan(""));
  e.kwh = e.known && std::isfinite(kwh) ? kwh : 0;
  e.co2eKg = e.known && std::isfinite(co2) ? co2 : 0;
}

ParallelPlan readPlan(const JsonReader& p, LlmPart& l) {
  // The text form holds every key; the keys beside it are read to check they agree.
  ParallelPlan plan;
  try {
    plan = parseParallelPlan(p.string("text"));
  } catch (const util::Error& e) {
    p.fail("text", e.what());
  }
  const ParallelPlan keys{static_cast<int>(p.integer("dp", 1, kMaxCount)), static_cast<int>(p.integer("tp", 1, kMaxCount)),
                          static_cast<int>(p.integer("pp", 1, kMaxCount)), static_cast<int>(p.integer("ep", 1, kMaxCount)),
                          static_cast<int>(p.integer("zero", 0, 3)),
                          *parseRecompute(p.choice("recompute", {"none", "selective", "full"})),
                          static_cast<int>(p.integer("microbatch", 1, kMaxCount))};
  if (!(keys == plan)) p.fail("text", "'" + plan.text() + "' disagrees with the plan's keys (" + keys.text() + ")");
  p.string("description", "");
  l.planSearched = p.boolean("searched", false);
  l.plansConsidered = static_cast<int>(p.integer("plans_considered", 0, 0, kMaxCount));
  l.plansFitting = static_cast<int>(p.integer("plans_fitting", 0, 0, kMaxCount));
  p.finish();
  return plan;
}

// A transformer's plan part (written beside the answer's keys when the report has one).
void readLlmPart(const JsonReader& in, SimReport& r) {
  LlmPart& l = *r.llm;
  SimConfig& c = r.config;
  l.modelName = in.string("model_name", "");
  l.chips = static_cast<int>(in.integer("chips", 1, kMaxCount));
  l.seqLen = static_cast<int>(in.integer("seq_len", 1, nn::kMaxSeqLen));
  c.llm.finetune = in.choice("finetune", {"full", "lora"}, std::string("full")) == "lora" ? Finetune::Lora : Finetune::Full;
  c.llm.loraRank = static_cast<int>(in.integer("lora_rank", c.llm.loraRank, 1, kMaxLoraRank));
  if (in.has("seq_len_set")) c.llm.seqLen = static_cast<int>(in.integer("seq_len_set", 1, nn::kMaxSeqLen));
  l.plan = readPlan(in.object("plan"), l);
  if (!l.planSearched) c.llm.plan = l.plan;
  l.tokensPerSecond = in.real("tokens_per_second", 0);
  in.real("samples_per_second", 0);  // images_per_second under the name a language model's user looks for
  in.real("mfu", 0);                 // utilization, likewise
  l.modelFlopsPerToken = in.real("model_flops_per_token", 0);
  l.evalStepSeconds = in.real("eval_step_seconds", 0);
  const JsonReader m = in.object("memory_breakdown");
  l.memory.weightBytes = m.real("weights_bytes", 0);
  l.memory.gradientBytes = m.real("gradients_bytes", 0);
  l.memory.optimizerBytes = m.real("optimizer_bytes", 0);
  l.memory.activationBytes = m.real("activations_bytes", 0);
  l.memory.reserveBytes = m.real("reserve_bytes", 0);
  m.real("total_bytes", 0);
  m.real("capacity_bytes", 0);
  m.finish();
  const double perMillion = in.real("usd_per_million_tokens", 0);
  l.usdPerMillionTokens = r.priceKnown && std::isfinite(perMillion) ? perMillion : 0;
  if (in.has("train_tokens")) {
    c.llm.trainTokens = in.number("train_tokens", 1, kMaxTrainTokens);
    l.timeToTokensSeconds = in.real("time_to_tokens_seconds", 0);
    const double usd = in.real("usd_to_tokens", 0);
    l.usdToTokens = r.priceKnown && std::isfinite(usd) ? usd : 0;
  }
  l.energyBasis = readName(in, "energy_basis", kEnergyBasisNames, EnergyBasis::OneHour);
}

// The answer's keys: the same in both forms.
void readAnswer(const JsonReader& in, SimReport& r) {
  r.stepSeconds = in.real("step_seconds", 0);
  const JsonReader b = in.object("breakdown");
  r.breakdown.computeSeconds = b.real("compute_seconds", 0);
  r.breakdown.memorySeconds = b.real("memory_seconds", 0);
  r.breakdown.overheadSeconds = b.real("overhead_seconds", 0);
  r.breakdown.inputSeconds = b.real("input_seconds", 0);
  r.breakdown.communicationSeconds = b.real("communication_seconds", 0);
  if (r.llm) {
    LlmPart& l = *r.llm;
    l.bubbleSeconds = b.real("bubble_seconds", 0);
    l.tpCommSeconds = b.real("tp_comm_seconds", 0);
    l.dpCommSeconds = b.real("dp_comm_seconds", 0);
    l.ppCommSeconds = b.real("pp_comm_seconds", 0);
    l.epCommSeconds = b.real("ep_comm_seconds", 0);
    l.optimizerSeconds = b.real("optimizer_seconds", 0);
    l.stepOverheadSeconds = b.real("step_overhead_seconds", 0);
    l.hostSeconds = b.real("host_dispatch_seconds", 0);
    l.exposedHostSeconds = b.real("exposed_host_dispatch_seconds", 0);
    l.kernelsPerStep = b.integer("kernels_per_step", 0, 0, kMaxSteps);
  }
  b.finish();
  r.bound = readName(in, "bound", kBoundNames, Bound::Compute);
  r.explanation = in.string("explanation", "");
  r.imagesPerSecond = in.real("images_per_second", 0);
  r.stepsPerEpoch = in.integer("steps_per_epoch", 0, 0, kMaxSteps);
  r.epochSeconds = in.real("epoch_seconds", 0);
  r.firstEpochSeconds = in.real("first_epoch_seconds", 0);
  r.runSeconds = in.real("run_seconds", 0);
  r.priceKnown = in.boolean("price_known", false);
  // Unknown prices are null (NaN here): kept as 0 in memory, as the simulator leaves them.
  auto price = [&](const char* key) {
    const double v = in.real(key, 0);
    return r.priceKnown && std::isfinite(v) ? v : 0.0;
  };
  r.usdPerHour = price("usd_per_hour");
  r.usdPerMillionImages = price("usd_per_million_images");
  r.usdPerRun = price("usd_per_run");
  r.priceSeller = in.string("price_seller", "");
  r.priceDate = in.string("price_date", "");
  readEnergy(in, r.energy, r.config.energy);
  r.memoryBytesPerDevice = in.real("memory_bytes_per_device", 0);
  r.memoryCapacityBytes = in.real("memory_capacity_bytes", 0);
  r.fitsInMemory = in.boolean("fits_in_memory", true);
  r.achievedTflops = in.real("achieved_tflops", 0);
  r.utilization = in.real("utilization", 0);
  r.size = modelSizeFromJson(in);
  r.deviceName = in.string("device_name", "");
  r.vcpus = static_cast<int>(in.integer("vcpus", 0, 0, kMaxCount));
  r.perDeviceBatch = static_cast<int>(in.integer("per_device_batch", 0, 0, kMaxCount));
  r.evalSecondsPerEpoch = in.real("eval_seconds_per_epoch", 0);
  r.compileSeconds = in.real("compile_seconds", 0);
  r.peakTflops = in.real("peak_tflops", 0);
  if (const std::string peak = in.string("peak_precision", ""); !peak.empty()) {
    const auto parsed = util::parsePrecision(peak);
    if (!parsed) throw util::FieldError("peak_precision", "'" + peak + "' is not a precision");
    r.peakPrecision = *parsed;
  } else {
    r.peakPrecision = r.config.precision;
  }
  r.precisionNote = in.string("precision_note", "");
  for (const JsonReader& o : in.objects("layers")) {
    LayerSeconds l;
    l.name = o.string("name");
    l.kind = o.string("kind", "");
    l.forwardSeconds = o.real("forward_seconds", 0);
    l.backwardSeconds = o.real("backward_seconds", 0);
    l.utilization = o.real("utilization", 0);
    l.bound = readName(o, "bound", kBoundNames, Bound::Compute);
    l.kernels = static_cast<int>(o.integer("kernels", 0, 0, kMaxCount));
    o.finish();
    r.layers.push_back(std::move(l));
  }
}

// The run history's first form: the configuration nested under "config".
void readNestedConfig(const JsonReader& in, SimConfig& c) {
  const JsonReader n = in.object("config");
  c.modelId = n.string("model");
  c.datasetId = n.string("dataset");
  c.deviceId = n.string("device");
  c.count = static_cast<int>(n.integer("count", 1, 0, kMaxCount));
  c.vcpus = static_cast<int>(n.integer("vcpus", 0, 0, kMaxCount));
  c.batch = static_cast<int>(n.integer("batch", 1, 0, kMaxCount));
  c.precision = readPrecision(n, "precision");
  c.epochs = static_cast<int>(n.integer("epochs", 1, 0, kMaxCount));
  c.preemptible = n.boolean("preemptible", false);
  c.cpuBuild = readName(n, "cpu_build", kCpuBuildNames, CpuBuild::Compiled);
  c.evalEachEpoch = n.boolean("eval_each_epoch", false);
  c.stepsPerEpoch = n.integer("steps_per_epoch", 0, 0, kMaxSteps);
  n.finish();
}

// A transformer's plan part, beside the answer's keys.
void writeLlmPart(Json& j, const SimReport& r, const std::function<Json(double)>& num,
                  const std::function<Json(double)>& bytes) {
  const LlmPart& l = *r.llm;
  const LlmSettings& s = r.config.llm;
  j.set("model_name", l.modelName);
  j.set("chips", l.chips);
  j.set("seq_len", l.seqLen);
  if (s.seqLen > 0) j.set("seq_len_set", s.seqLen);
  j.set("finetune", finetuneName(s.finetune));
  if (s.finetune == Finetune::Lora) j.set("lora_rank", s.loraRank);
  Json plan = planToJson(l.plan);
  plan.set("searched", l.planSearched);
  plan.set("plans_considered", l.plansConsidered);
  plan.set("plans_fitting", l.plansFitting);
  j.set("plan", std::move(plan));
  j.set("tokens_per_second", num(l.tokensPerSecond));
  j.set("samples_per_second", num(r.imagesPerSecond));
  j.set("mfu", num(r.utilization));
  j.set("model_flops_per_token", num(l.modelFlopsPerToken));
  j.set("eval_step_seconds", num(l.evalStepSeconds));
  Json mem = Json::object();
  mem.set("weights_bytes", bytes(l.memory.weightBytes));
  mem.set("gradients_bytes", bytes(l.memory.gradientBytes));
  mem.set("optimizer_bytes", bytes(l.memory.optimizerBytes));
  mem.set("activations_bytes", bytes(l.memory.activationBytes));
  mem.set("reserve_bytes", bytes(l.memory.reserveBytes));
  mem.set("total_bytes", bytes(l.memory.total()));
  mem.set("capacity_bytes", bytes(r.memoryCapacityBytes));
  j.set("memory_breakdown", std::move(mem));
  j.set("usd_per_million_tokens", orNull(r.priceKnown, num(l.usdPerMillionTokens)));
  if (s.trainTokens > 0) {
    j.set("train_tokens", s.trainTokens);
    j.set("time_to_tokens_seconds", num(l.timeToTokensSeconds));
    j.set("usd_to_tokens", orNull(r.priceKnown, num(l.usdToTokens)));
  }
  j.set("energy_basis", kEnergyBasisNames.name(l.energyBasis).data());
}

}  // namespace

void modelSizeToJson(Json& j, const ModelSize& size) {
  j.set("params", static_cast<long long>(size.params));
  j.set("trainable_params", static_cast<long long>(size.trainableParams));
  if (size.activeParams > 0) {
    j.set("active_params", static_cast<long long>(size.activeParams));
    j.set("active_params_convention", kActiveParamsConvention);
    j.set("active_params_without_input_embedding",
          static_cast<long long>(size.activeParams - size.inputEmbeddingParams));
  }
  j.set("forward_flops_per_sample", util::roundSignificant(size.forwardFlopsPerSample, 6));
}

Json simReportToJson(const SimReport& r, JsonDigits digits, JsonLayers layers) {
  const SimConfig& c = r.config;
  const std::function<Json(double)> num = [digits](double v) { return figure(v, digits); };
  // Bytes are whole in the CLI's form (every memory figure rounded alike, so they add up).
  const std::function<Json(double)> bytes = [digits](double v) { return Json(digits == JsonDigits::Six ? std::round(v) : v); };
  Json j = Json::object();
  // A transformer's plan asked without a run (the planner, `simulate --seq-len ...`, a log's
  // step predicted by the bridge) has no epochs or run to state.
  const bool run = !r.llm || r.llm->energyBasis == EnergyBasis::Run;
  j.set("model", c.modelId);
  if (run || !c.datasetId.empty()) j.set("dataset", c.datasetId);
  j.set("device", c.deviceId);
  j.set("device_name", r.deviceName);
  j.set("stack", c.stackId);
  j.set("stack_name", r.stackName);
  j.set("count", c.count);
  if (r.vcpus > 0 || c.vcpus > 0) {
    j.set("vcpus", r.vcpus > 0 ? r.vcpus : c.vcpus);
    j.set("cpu_build", cpuBuildName(c.cpuBuild));
  }
  if (c.memoryGib > 0) j.set("memory_gib", c.memoryGib);
  if (c.channelsLast) j.set("memory_format", *c.channelsLast ? "channels-last" : "nchw");
  j.set("batch", c.batch);
  j.set("per_device_batch", r.perDeviceBatch);
  j.set("precision", util::precisionName(c.precision));
  if (!r.precisionNote.empty()) j.set("precision_note", r.precisionNote);
  if (run) j.set("epochs", c.epochs);
  j.set("step_seconds", num(r.stepSeconds));
  j.set("images_per_second", num(r.imagesPerSecond));
  if (r.tokensPerSample > 0) j.set("tokens_per_sample", r.tokensPerSample);
  if (run) {
    j.set("steps_per_epoch", r.stepsPerEpoch);
    if (c.stepsPerEpoch > 0) j.set("steps_per_epoch_set", c.stepsPerEpoch);
    j.set("epoch_seconds", num(r.epochSeconds));
    j.set("first_epoch_seconds", num(r.firstEpochSeconds));
    j.set("compile_seconds", num(r.compileSeconds));
    j.set("eval_each_epoch", c.evalEachEpoch);
    j.set("eval_seconds_per_epoch", num(r.evalSecondsPerEpoch));
    j.set("run_seconds", num(r.runSeconds));
  }
  j.set("price_kind", kPriceKindLabels.name(r.priceKind).data());
  j.set("price_known", r.priceKnown);
  if (c.userUsdPerHour) j.set("usd_per_device_hour_set", num(*c.userUsdPerHour));
  if (!r.priceSeller.empty()) j.set("price_seller", r.priceSeller);
  if (!r.priceDate.empty()) j.set("price_date", r.priceDate);
  j.set("usd_per_hour", orNull(r.priceKnown, num(r.usdPerHour)));
  j.set("usd_per_million_images", orNull(r.priceKnown, num(r.usdPerMillionImages)));
  if (run) j.set("usd_per_run", orNull(r.priceKnown, num(r.usdPerRun)));
  j.set("energy_kwh", orNull(r.energy.known, num(r.energy.kwh)));
  j.set("co2e_kg", orNull(r.energy.known && c.energy.gridKgCo2ePerKwh > 0, num(r.energy.co2eKg)));
  j.set("energy", energyToJson(r.energy, c.energy, num));
  j.set("memory_bytes_per_device", bytes(r.memoryBytesPerDevice));
  j.set("memory_capacity_bytes", bytes(r.memoryCapacityBytes));
  j.set("fits_in_memory", r.fitsInMemory);
  modelSizeToJson(j, r.size);
  j.set("peak_tflops", num(r.peakTflops));
  j.set("peak_precision", util::precisionName(r.peakPrecision));
  j.set("achieved_tflops", num(r.achievedTflops));
  j.set("utilization", num(r.utilization));
  j.set("bound", boundName(r.bound));
  j.set("explanation", r.explanation);
  j.set("simulated", true);  // every figure here is the simulator's, never a measurement
  if (!r.contrastStackId.empty()) {
    Json o = Json::object();
    o.set("stack", r.contrastStackId);
    o.set("step_seconds", num(r.contrastStepSeconds));
    j.set("other_stack", std::move(o));
  }
  if (r.llm) writeLlmPart(j, r, num, bytes);
  Json b = Json::object();
  b.set("compute_seconds", num(r.breakdown.computeSeconds));
  b.set("memory_seconds", num(r.breakdown.memorySeconds));
  b.set("overhead_seconds", num(r.breakdown.overheadSeconds));
  b.set("input_seconds", num(r.breakdown.inputSeconds));
  b.set("communication_seconds", num(r.breakdown.communicationSeconds));
  if (r.llm) {
    const LlmPart& l = *r.llm;
    b.set("bubble_seconds", num(l.bubbleSeconds));
    b.set("tp_comm_seconds", num(l.tpCommSeconds));
    b.set("dp_comm_seconds", num(l.dpCommSeconds));
    b.set("pp_comm_seconds", num(l.ppCommSeconds));
    b.set("ep_comm_seconds", num(l.epCommSeconds));
    b.set("optimizer_seconds", num(l.optimizerSeconds));
    b.set("step_overhead_seconds", num(l.stepOverheadSeconds));
    b.set("host_dispatch_seconds", num(l.hostSeconds));
    b.set("exposed_host_dispatch_seconds", num(l.exposedHostSeconds));
    b.set("kernels_per_step", static_cast<long long>(l.kernelsPerStep));
  }
  j.set("breakdown", std::move(b));
  if (layers == JsonLayers::Write) {
    Json all = Json::array();
    for (const auto& l : r.layers) {
      Json o = Json::object();
      o.set("name", l.name);
      o.set("kind", l.kind);
      o.set("forward_seconds", num(l.forwardSeconds));
      o.set("backward_seconds", num(l.backwardSeconds));
      o.set("utilization", num(l.utilization));
      o.set("bound", boundName(l.bound));
      o.set("kernels", l.kernels);
      all.push(std::move(o));
    }
    j.set("layers", std::move(all));
  }
  return j;
}

SimReport simReportFromJson(const JsonReader& in) {
  SimReport r;
  SimConfig& c = r.config;
  if (in.has("config")) {
    readNestedConfig(in, c);
    r.priceKind = c.preemptible ? PriceKind::Preemptible : PriceKind::OnDemand;
  } else {
    c.modelId = in.string("model");
    if (in.has("plan")) r.llm.emplace();  // a transformer's report, with its plan part
    // A transformer's plan, asked without a run, has no dataset and no run keys.
    c.datasetId = r.llm ? in.string("dataset", "") : in.string("dataset");
    c.deviceId = in.string("device");
    c.stackId = in.string("stack", "");
    r.stackName = in.string("stack_name", "");
    c.count = static_cast<int>(in.integer("count", 1, 0, kMaxCount));
    c.cpuBuild = readName(in, "cpu_build", kCpuBuildNames, CpuBuild::Compiled);
    c.memoryGib = in.number("memory_gib", 0, 0, 1e9);
    if (in.has("memory_format"))
      c.channelsLast = in.choice("memory_format", {"nchw", "channels-last"}) == "channels-last";
    c.batch = static_cast<int>(in.integer("batch", 1, 0, kMaxCount));
    c.precision = readPrecision(in, "precision");
    c.epochs = static_cast<int>(in.integer("epochs", 1, 0, kMaxCount));
    c.stepsPerEpoch = in.integer("steps_per_epoch_set", 0, 0, kMaxSteps);
    c.evalEachEpoch = in.boolean("eval_each_epoch", false);
    r.priceKind = readName(in, "price_kind", kPriceKindLabels, PriceKind::OnDemand);
    c.preemptible = r.priceKind == PriceKind::Preemptible;
    if (in.has("usd_per_device_hour_set")) c.userUsdPerHour = in.number("usd_per_device_hour_set", kMinUserUsdPerHour, kMaxUserUsdPerHour);
    r.tokensPerSample = static_cast<int>(in.integer("tokens_per_sample", 0, 0, kMaxCount));
    if (in.has("other_stack")) {
      const JsonReader o = in.object("other_stack");
      r.contrastStackId = o.string("stack");
      r.contrastStepSeconds = o.real("step_seconds", 0);
      o.finish();
    }
  }
  readAnswer(in, r);
  if (r.llm) readLlmPart(in, r);
  if (!in.has("config")) {
    c.vcpus = r.vcpus;
    in.boolean("simulated", true);  // always true; read so that finish() accepts it
  }
  in.finish();
  return r;
}

}  // namespace core::sim
