#include "core/sim/llm_report_json.h"

#include <cmath>

#include "core/sim/sim_report_json.h"
#include "core/util/numbers.h"

namespace core::sim {
namespace {

using util::Json;

// Four significant digits: simulated figures carry no more precision than that.
Json rounded(double v) { return Json(util::roundSignificant(v, 4)); }

}  // namespace

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

Json llmReportToJson(const LlmReport& r) {
  const LlmConfig& c = r.config;
  Json j = Json::object();
  j.set("simulated", true);
  j.set("model", c.modelId);
  j.set("model_name", r.modelName);
  j.set("device", c.deviceId);
  j.set("device_name", r.deviceName);
  j.set("count", c.count);
  j.set("chips", r.chips);
  j.set("batch", c.batch);
  j.set("seq_len", r.seqLen);
  j.set("precision", util::precisionName(c.precision));
  j.set("stack", c.stackId);
  j.set("stack_name", r.stackName);
  j.set("finetune", finetuneName(c.finetune));
  if (c.finetune == Finetune::Lora) j.set("lora_rank", c.loraRank);
  modelSizeToJson(j, r.size);
  Json plan = planToJson(r.plan);
  plan.set("searched", r.planSearched);
  plan.set("plans_considered", r.plansConsidered);
  plan.set("plans_fitting", r.plansFitting);
  j.set("plan", plan);
  j.set("step_seconds", rounded(r.stepSeconds));
  j.set("tokens_per_second", rounded(r.tokensPerSecond));
  j.set("samples_per_second", rounded(r.samplesPerSecond));
  j.set("mfu", rounded(r.mfu));
  j.set("model_flops_per_token", rounded(r.modelFlopsPerToken));
  j.set("peak_tflops_per_chip", rounded(r.peakTflopsPerChip));
  Json mem = Json::object();
  mem.set("weights_bytes", rounded(r.memory.weightBytes));
  mem.set("gradients_bytes", rounded(r.memory.gradientBytes));
  mem.set("optimizer_bytes", rounded(r.memory.optimizerBytes));
  mem.set("activations_bytes", rounded(r.memory.activationBytes));
  mem.set("reserve_bytes", rounded(r.memory.reserveBytes));
  mem.set("total_bytes", rounded(r.memory.total()));
  mem.set("capacity_bytes", rounded(r.memoryCapacityBytes));
  j.set("memory_breakdown", mem);
  j.set("memory_bytes_per_device", rounded(r.memory.total()));
  j.set("fits_in_memory", r.fitsInMemory);
  Json b = Json::object();
  b.set("compute_seconds", rounded(r.breakdown.computeSeconds));
  b.set("memory_seconds", rounded(r.breakdown.memorySeconds));
  b.set("overhead_seconds", rounded(r.breakdown.overheadSeconds));
  b.set("communication_seconds", rounded(r.breakdown.communicationSeconds));
  b.set("bubble_seconds", rounded(r.bubbleSeconds));
  b.set("tp_comm_seconds", rounded(r.tpCommSeconds));
  b.set("dp_comm_seconds", rounded(r.dpCommSeconds));
  b.set("pp_comm_seconds", rounded(r.ppCommSeconds));
  b.set("ep_comm_seconds", rounded(r.epCommSeconds));
  b.set("optimizer_seconds", rounded(r.optimizerSeconds));
  b.set("host_dispatch_seconds", rounded(r.hostSeconds));
  b.set("kernels_per_step", r.kernelsPerStep);
  j.set("breakdown", b);
  j.set("bound", boundName(r.bound));
  j.set("explanation", r.explanation);
  j.set("precision_note", r.precisionNote);
  j.set("price_kind", kPriceKindLabels.name(r.priceKind).data());
  j.set("price_known", r.priceKnown);
  if (c.userUsdPerHour) j.set("usd_per_device_hour_set", rounded(*c.userUsdPerHour));
  if (!r.priceSeller.empty()) j.set("price_seller", r.priceSeller);
  if (!r.priceDate.empty()) j.set("price_date", r.priceDate);
  j.set("usd_per_hour", r.priceKnown ? rounded(r.usdPerHour) : Json());
  j.set("usd_per_million_tokens", r.priceKnown ? rounded(r.usdPerMillionTokens) : Json());
  if (c.trainTokens > 0) {
    j.set("train_tokens", c.trainTokens);
    j.set("time_to_tokens_seconds", rounded(r.timeToTokensSeconds));
    j.set("usd_to_tokens", r.priceKnown ? rounded(r.usdToTokens) : Json());
  }
  // Energy over the tokens asked for, else over one hour of training (energy_basis says which).
  j.set("energy_basis", r.energyPerHour ? "one hour" : "train_tokens");
  j.set("energy_kwh", r.energy.known ? rounded(r.energy.kwh) : Json());
  j.set("co2e_kg", r.energy.known && c.energy.gridKgCo2ePerKwh > 0 ? rounded(r.energy.co2eKg) : Json());
  j.set("energy", energyToJson(r.energy, c.energy, [](double v) { return rounded(v); }));
  Json ops = Json::array();
  for (const auto& l : r.ops) {
    Json o = Json::object();
    o.set("name", l.name);
    o.set("kind", l.kind);
    o.set("forward_seconds", rounded(l.forwardSeconds));
    o.set("backward_seconds", rounded(l.backwardSeconds));
    o.set("utilization", rounded(l.utilization));
    o.set("bound", boundName(l.bound));
    o.set("kernels", l.kernels);
    ops.push(std::move(o));
  }
  j.set("ops", ops);
  return j;
}

}  // namespace core::sim
