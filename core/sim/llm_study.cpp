#include "core/sim/llm_study.h"

#include <cmath>

#include "core/nn/model_file.h"
#include "core/nn/transformer_spec.h"
#include "core/util/error.h"
#include "core/util/files.h"
#include "core/util/json_reader.h"

namespace core::sim {

using util::Json;
using util::JsonReader;

std::string LlmScenario::label() const {
  std::string out = std::to_string(count) + "x " + deviceId;
  if (finetune == Finetune::Lora) out += ", LoRA";
  if (!stackId.empty()) out += " (" + stackId + ")";
  return out;
}

namespace {

}  // namespace

SimConfig scenarioConfig(const LlmStudy& s, const LlmScenario& sc) {
  SimConfig c;
  c.modelId = s.modelId;
  c.deviceId = sc.deviceId;
  c.stackId = sc.stackId;
  c.count = sc.count;
  c.batch = s.batch;
  c.llm.seqLen = s.seqLen;
  c.precision = s.precision;
  c.llm.finetune = sc.finetune;
  c.llm.loraRank = s.loraRank;
  c.llm.trainTokens = s.trainTokens;
  c.userUsdPerHour = sc.userUsdPerHour;
  return c;
}

namespace {

const hw::StackSpec& stackOf(const LlmScenario& sc, const hw::DeviceSpec& d, const hw::StackCatalog& stacks) {
  return sc.stackId.empty() ? stacks.defaultFor(d.kind) : stacks.at(sc.stackId);
}

}  // namespace

std::vector<LlmOutcome> runStudy(const LlmStudy& study, const hw::DeviceCatalog& devices, const hw::StackCatalog& stacks,
                                 const EnergySettings& energy, const HeldOutErrors* errors) {
  std::vector<LlmOutcome> out;
  for (const auto& sc : study.scenarios) {
    LlmOutcome o;
    o.scenario = sc;
    SimConfig config = scenarioConfig(study, sc);
    config.energy = energy;
    try {
      const hw::DeviceSpec& d = devices.at(sc.deviceId);
      const hw::StackSpec& stack = stackOf(sc, d, stacks);
      o.report = simulateLlm(config, d, stack);
      if (errors) {
        o.band = errorBandFor(*errors, study.modelId, stack.id, d);
        if (o.report->fitsInMemory) o.mfuCaution = mfuCaution(*errors, o.report->utilization, o.report->llm->chips, d.kind);
      }
    } catch (const std::exception& e) {
      o.error = e.what();
    }
    if (study.deadlineDays > 0 || study.budgetUsd > 0) {
      BackwardsGoal goal;
      goal.tokens = study.trainTokens;
      goal.deadlineSeconds = study.deadlineDays * 86400;
      goal.budgetUsd = study.budgetUsd;
      try {
        const hw::DeviceSpec& d = devices.at(sc.deviceId);
        SimConfig c = config;
        c.llm.plan.reset();  // the count changes: each count searches its own plan
        o.fewest = planBackwards(c, d, stackOf(sc, d, stacks), goal);
      } catch (const std::exception& e) {
        BackwardsAnswer none;
        none.why = e.what();
        o.fewest = none;
      }
    }
    out.push_back(std::move(o));
  }
  return out;
}

std::vector<ScalingPoint> scalingCurve(const LlmStudy& study, const LlmScenario& scenario, const hw::DeviceCatalog& devices,
                                       const hw::StackCatalog& stacks, int maxCount) {
  std::vector<ScalingPoint> points;
  const hw::DeviceSpec* d = devices.find(scenario.deviceId);
  if (!d) return points;
  const hw::StackSpec& stack = stackOf(scenario, *d, stacks);
  const int chipsPerDevice = std::max(1, d->chipsPerDevice);
  // Weak scaling keeps the study's sequences per chip (at least one, rounded down) at its own
  // scenario's count.
  const int perChip = std::max(1, study.batch / std::max(1, scenario.count * chipsPerDevice));
  double basePerChip = 0;
  std::string basePlan;  // at the smallest count that fits
  int baseChips = 0;
  for (int n = 1; n <= maxCount; n *= 2) {
    LlmScenario sc = scenario;
    sc.count = n;
    SimConfig c = scenarioConfig(study, sc);
    c.perLayer = false;
    const int chips = n * chipsPerDevice;
    if (study.weakScaling) {
      const std::int64_t batch = static_cast<std::int64_t>(perChip) * chips;
      if (batch > (1 << 24)) break;  // past the largest batch a study may hold
      c.batch = static_cast<int>(batch);
    } else if (c.batch < chips) {
      break;  // strong scaling: the batch does not split over more chips
    }
    try {
      const SimReport r = simulateLlm(c, *d, stack);
      ScalingPoint p;
      p.count = n;
      p.chips = r.llm->chips;
      p.batch = c.batch;
      p.fits = r.fitsInMemory;
      p.plan = r.llm->plan.describe();
      p.tokensPerSecond = r.fitsInMemory ? r.llm->tokensPerSecond : 0.0;
      const double tokensPerChip = p.tokensPerSecond / p.chips;
      if (p.fits && basePerChip <= 0) basePerChip = tokensPerChip, basePlan = p.plan, baseChips = p.chips;
      p.efficiency = basePerChip > 0 && p.fits ? tokensPerChip / basePerChip : 0.0;
      if (p.efficiency > 1.005)
        p.superLinearCause = std::to_string(baseChips) + (baseChips == 1 ? " chip needs " : " chips need ") + basePlan +
                             "; " + std::to_string(p.chips) + " have the memory for " + p.plan;
      points.push_back(p);
    } catch (const std::exception&) {
      // A count the model cannot run on (no interconnect, no plan): left out of the curve.
    }
  }
  return points;
}

std::vector<PublishedCheck> checkReferences(const LlmStudy& study, const std::vector<LlmOutcome>& outcomes) {
  std::vector<PublishedCheck> out;
  for (const auto& ref : study.references) {
    if (ref.scenario < 0 || ref.scenario >= static_cast<int>(outcomes.size())) continue;
    const LlmOutcome& o = outcomes[static_cast<std::size_t>(ref.scenario)];
    if (!o.report || !o.report->fitsInMemory) continue;
    PublishedCheck c;
    c.scenario = ref.scenario;
    c.reference = &ref;
    c.simulated = ref.metric == "mfu"                  ? o.report->utilization
                  : ref.metric == "samples_per_second" ? o.report->imagesPerSecond
                                                       : o.report->llm->tokensPerSecond;
    c.errorPct = (c.simulated / ref.value - 1) * 100;
    // The median of the band's rows, not the band widened to its own few rows' worst miss: the
    // mark may be one of those rows, and a tolerance made of its own miss could never flag it.
    c.tolerancePct = o.band.known() ? o.band.rowsMedianPct : kDefaultPublishedTolerancePct;
    c.outside = std::abs(c.errorPct) > c.tolerancePct;
    out.push_back(c);
  }
  return out;
}

Json studyToJson(const LlmStudy& s) {
  Json j = Json::object();
  if (!s.id.empty()) j.set("id", s.id);
  if (!s.title.empty()) j.set("title", s.title);
  if (!s.description.empty()) j.set("description", s.description);
  j.set("model", s.modelId);
  // A model imported while the program ran (a config.json) travels with the study, so the file
  // opens anywhere.
  if (const nn::TransformerSpec* t = nn::findTransformer(s.modelId); t && !t->shipped)
    j.set("model_file", nn::transformerToModelJson(*t));
  j.set("seq_len", s.seqLen);
  j.set("batch", s.batch);
  j.set("precision", util::precisionName(s.precision));
  j.set("lora_rank", s.loraRank);
  j.set("train_tokens", s.trainTokens);
  if (s.deadlineDays > 0) j.set("deadline_days", s.deadlineDays);
  if (s.budgetUsd > 0) j.set("budget_usd", s.budgetUsd);
  if (s.weakScaling) j.set("scaling", "weak");
  Json list = Json::array();
  for (const auto& sc : s.scenarios) {
    Json o = Json::object();
    o.set("device", sc.deviceId);
    o.set("count", sc.count);
    if (!sc.stackId.empty()) o.set("stack", sc.stackId);
    o.set("finetune", finetuneName(sc.finetune));
    if (sc.userUsdPerHour) o.set("usd_per_hour", *sc.userUsdPerHour);
    list.push(std::move(o));
  }
  j.set("scenarios", list);
  Json refs = Json::array();
  for (const auto& r : s.references) {
    Json o = Json::object();
    o.set("scenario", r.scenario);
    o.set("metric", r.metric);
    o.set("value", r.value);
    o.set("label", r.label);
    o.set("source", r.source);
    if (!r.knownCause.empty()) o.set("known_cause", r.knownCause);
    refs.push(std::move(o));
  }
  if (!s.references.empty()) j.set("references", refs);
  return j;
}

LlmStudy studyFromJson(const Json& j, const std::string& source) {
  if (!j.isObject()) throw util::Error(source + ": must be a JSON object");
  const JsonReader in(j, source);
  LlmStudy s;
  s.id = in.string("id", "");
  s.title = in.string("title", "");
  s.description = in.string("description", "");
  s.modelId = in.string("model");
  if (in.has("model_file")) {  // the study's own model (imported where it was written)
    const Json* embedded = j.find("model_file");
    in.object("model_file");
    try {
      const nn::TransformerSpec& t =
          nn::addImportedTransformer(nn::transformerFromModelJson(*embedded, source + ": model_file"));
      s.modelId = t.id;  // "-2" when another model had its id
    } catch (const util::Error& e) {
      in.fail("model_file", e.what());
    }
  }
  if (!nn::findTransformer(s.modelId)) in.fail("model", "'" + s.modelId + "' is not a transformer (" + nn::transformerIdList() + ")");
  s.seqLen = static_cast<int>(in.integer("seq_len", 0, 0, nn::kMaxSeqLen));
  s.batch = static_cast<int>(in.integer("batch", 128, 1, 1 << 24));
  s.precision = *util::parsePrecision(in.choice("precision", {"fp32", "tf32", "fp16", "bf16", "fp8"}, std::string("bf16")));
  s.loraRank = static_cast<int>(in.integer("lora_rank", 16, 1, kMaxLoraRank));
  s.trainTokens = in.number("train_tokens", 1e9, 0, kMaxTrainTokens);
  s.deadlineDays = in.number("deadline_days", 0, 0, 1e6);
  s.budgetUsd = in.number("budget_usd", 0, 0, 1e15);
  s.weakScaling = in.choice("scaling", {"strong", "weak"}, std::string("strong")) == "weak";
  for (const auto& o : in.objects("scenarios")) {
    LlmScenario sc;
    sc.deviceId = o.string("device");
    sc.count = static_cast<int>(o.integer("count", 1, 1, 65536));
    sc.stackId = o.string("stack", "");
    sc.finetune = o.choice("finetune", {"full", "lora"}, std::string("full")) == "lora" ? Finetune::Lora : Finetune::Full;
    if (o.has("usd_per_hour")) sc.userUsdPerHour = o.number("usd_per_hour", kMinUserUsdPerHour, kMaxUserUsdPerHour);
    o.finish();
    s.scenarios.push_back(sc);
  }
  for (const auto& o : in.objects("references")) {
    LlmReference r;
    r.scenario = static_cast<int>(o.integer("scenario", 0, static_cast<std::int64_t>(s.scenarios.size()) - 1));
    r.metric = o.choice("metric", {"tokens_per_second", "samples_per_second", "mfu"});
    r.value = o.number("value", 1e-9, 1e15);
    r.label = o.string("label");
    r.source = o.string("source");
    r.knownCause = o.string("known_cause", "");
    o.finish();
    s.references.push_back(r);
  }
  in.finish();
  return s;
}

LlmStudy readStudyFile(const std::string& path) { return studyFromJson(Json::parseFile(path, util::kMaxDataFileBytes, util::kDataFileJsonLimits), path); }

}  // namespace core::sim
