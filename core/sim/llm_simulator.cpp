#include "core/sim/llm_simulator.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "core/nn/transformer_spec.h"
#include "core/sim/pricing.h"
#include "core/hw/stack_catalog.h"
#include "core/util/error.h"
#include "core/util/numbers.h"
#include "core/util/units.h"

namespace core::sim {
namespace {

using util::Error;

std::vector<int> powersOfTwoUpTo(int hi) {
  std::vector<int> v;
  for (int x = 1; x <= hi && x > 0; x *= 2) v.push_back(x);
  return v;
}

std::string pct(double x) { return util::percentText(x); }
std::string num(double x, int digits = 3) { return util::explainedNumber(x, digits); }
std::string gib(double bytes) { return num(bytes / util::kBytesPerGib); }

std::string explain(const LlmReport& r, const LlmUnit& u) {
  const StepBreakdown& b = r.breakdown;
  std::string out;
  const std::string step = num(r.stepSeconds) + " s step";
  switch (r.bound) {
    case Bound::Compute:
      out = "Compute binds: " + pct(b.computeSeconds / r.stepSeconds) + " of the " + step +
            " is matmul and attention arithmetic; the model's FLOPs reach " + pct(r.mfu) + " of the " +
            num(r.peakTflopsPerChip) + " TFLOP/s " + util::precisionName(r.config.precision) + " peak per chip (MFU).";
      break;
    case Bound::Memory:
      out = "Memory bandwidth binds: " + pct(b.memorySeconds / r.stepSeconds) + " of the " + step +
            " moves norms, activations and small matmuls at " + num(u.memBytesPerSecond / 1e9) + " GB/s per chip.";
      break;
    case Bound::Overhead:
      out = "Fixed overheads bind: " + pct(b.overheadSeconds / r.stepSeconds) + " of the " + step +
            " is kernel launches and per-step framework work the chips cannot hide at this batch.";
      break;
    case Bound::Communication:
      out = "Communication binds: " + num(b.communicationSeconds) + " s of the " + step +
            " is exposed traffic (tensor parallel " + num(r.tpCommSeconds) + " s, data parallel " +
            num(r.dpCommSeconds) + " s, pipeline " + num(r.ppCommSeconds) + " s, experts " + num(r.epCommSeconds) +
            " s) that the links cannot hide behind compute.";
      break;
    case Bound::Input: break;
  }
  if (r.bubbleSeconds > 0.05 * r.stepSeconds)
    out += " The pipeline's fill and drain idle the stages " + pct(r.bubbleSeconds / r.stepSeconds) + " of the step.";
  out += " Plan: " + r.plan.describe();
  if (r.planSearched)
    out += " (the fastest of " + std::to_string(r.plansFitting) + " plans that fit, of " +
           std::to_string(r.plansConsidered) + " considered)";
  out += ". Per chip: " + gib(r.memory.total()) + " of " + gib(r.memoryCapacityBytes) + " GiB (weights " +
         gib(r.memory.weightBytes) + ", gradients " + gib(r.memory.gradientBytes) + ", optimizer " +
         gib(r.memory.optimizerBytes) + ", activations " + gib(r.memory.activationBytes) + ")";
  out += r.fitsInMemory ? "." : ": it does NOT fit.";
  if (!r.precisionNote.empty()) out += " Note: " + r.precisionNote + ".";
  out += " Software: " + r.stackName;
  if (r.kernelsPerStep > 0 && r.hostSeconds > 0) {
    // What the stack's kernel count costs: hidden while the device has queued work.
    const double exposed = r.exposedHostSeconds;
    out += ", " + std::to_string(r.kernelsPerStep) + " kernels a step, dispatched in " + num(r.hostSeconds) + " s of host time (" +
           (exposed > 0.05 * r.stepSeconds ? num(exposed) + " s of it not hidden behind the device's work" : "hidden behind the device's work") +
           ")";
  }
  out += ".";
  return out;
}

}  // namespace

std::vector<ParallelPlan> candidatePlans(const TransformerWork& w, int chips, int globalBatch, int chipsPerNode) {
  const auto& s = *w.spec;
  std::vector<ParallelPlan> plans;
  for (int tp : powersOfTwoUpTo(std::min({chips, std::max(1, chipsPerNode), s.heads}))) {
    if (chips % tp != 0) continue;
    for (int pp : powersOfTwoUpTo(std::min(chips / tp, s.layers))) {
      if ((chips / tp) % pp != 0) continue;
      const int dp = chips / tp / pp;
      if (globalBatch % dp != 0) continue;
      const int perReplica = globalBatch / dp;
      for (int ep : powersOfTwoUpTo(s.experts > 1 ? std::min(dp, s.experts) : 1)) {
        for (int zero : {0, 1, 3}) {
          if (dp == 1 && zero > 0) continue;
          for (Recompute rc : {Recompute::None, Recompute::Selective, Recompute::Full}) {
            for (int mb : powersOfTwoUpTo(std::min(perReplica, 64))) {
              if (perReplica % mb != 0) continue;
              ParallelPlan p;
              p.dp = dp;
              p.tp = tp;
              p.pp = pp;
              p.ep = ep;
              p.zero = zero;
              p.recompute = rc;
              p.microBatch = mb;
              if (planProblem(w, p, chips, globalBatch).empty()) plans.push_back(p);
            }
          }
        }
      }
    }
  }
  return plans;
}

LlmReport simulateLlm(const LlmConfig& c, const hw::DeviceSpec& d, const hw::StackSpec& stack) {
  const nn::TransformerSpec* spec = nn::findTransformer(c.modelId);
  if (!spec) throw util::FieldError("model", "'" + c.modelId + "' is not a transformer (known: " + nn::transformerIdList() + ")");
  if (c.count < 1) throw util::FieldError("count", std::to_string(c.count) + " must be at least 1");
  if (c.batch < 1) throw util::FieldError("batch", std::to_string(c.batch) + " must be at least 1");
  if (d.kind == hw::DeviceKind::Cpu)
    throw util::FieldError("device", "'" + d.id + "' is a CPU; LLM-scale simulation covers GPUs, TPUs and Gaudi (train the "
                                       "small transformers on this machine instead)");
  hw::requireStackCovers(stack, d);
  const TransformerWork w = makeTransformerWork(*spec, c.seqLen, c.finetune, c.loraRank);
  const LlmUnit u = resolveLlmUnit(d, hw::figuresFor(stack, d), c.precision);
  const int chips = c.count * u.chipsPerDevice;
  if (chips > 1 && !d.interconnectGBps)
    throw util::FieldError("count", "device '" + d.id + "' has no interconnect_gbps, so it cannot run over " +
                std::to_string(chips) + " chips");

  LlmReport r;
  r.config = c;
  r.config.stackId = stack.id;
  r.modelName = spec->name;
  r.deviceName = d.name;
  r.stackName = stack.name;
  r.precisionNote = u.precisionNote;
  r.chips = chips;
  r.seqLen = w.seqLen;
  r.size = modelSizeOf(w);

  PlanCost best;
  if (c.plan) {
    const std::string problem = planProblem(w, *c.plan, chips, c.batch);
    if (!problem.empty()) throw util::FieldError("parallel", problem);
    r.plan = *c.plan;
    best = costPlan(w, u, r.plan, c.batch, c.perOp);
    r.plansConsidered = 1;
    r.plansFitting = best.fits ? 1 : 0;
  } else {
    const std::vector<ParallelPlan> plans = candidatePlans(w, chips, c.batch, u.chipsPerNode);
    if (plans.empty())
      throw util::FieldError("batch", "no parallel plan runs a global batch of " + std::to_string(c.batch) + " over " +
                  std::to_string(chips) + " chips (the batch must split over the data-parallel replicas)");
    r.planSearched = true;
    r.plansConsidered = static_cast<int>(plans.size());
    const ParallelPlan* chosen = nullptr;
    double bestSeconds = 0, leastMemory = 0;
    const ParallelPlan* smallest = nullptr;
    for (const auto& p : plans) {
      const PlanCost pc = costPlan(w, u, p, c.batch, false);
      if (pc.fits) {
        ++r.plansFitting;
        if (!chosen || pc.stepSeconds < bestSeconds) chosen = &p, bestSeconds = pc.stepSeconds;
      }
      if (!smallest || pc.memory.total() < leastMemory) smallest = &p, leastMemory = pc.memory.total();
    }
    r.plan = chosen ? *chosen : *smallest;  // none fits: the plan that comes closest, reported as OOM
    best = costPlan(w, u, r.plan, c.batch, c.perOp);
  }

  r.stepSeconds = best.stepSeconds;
  r.evalStepSeconds = best.evalStepSeconds;
  r.bubbleSeconds = best.bubbleSeconds;
  r.tpCommSeconds = best.tpCommSeconds;
  r.ppCommSeconds = best.ppCommSeconds;
  r.epCommSeconds = best.epCommSeconds;
  r.dpCommSeconds = best.dpCommSeconds;
  r.optimizerSeconds = best.optimizerSeconds;
  r.stepOverheadSeconds = u.stepOverheadSeconds;
  r.hostSeconds = best.hostSeconds;
  r.exposedHostSeconds = best.exposedHostSeconds;
  r.kernelsPerStep = best.kernelsPerMicroBatch * best.microBatches;
  r.breakdown.computeSeconds = best.computeSeconds;
  r.breakdown.memorySeconds = best.memorySeconds + best.optimizerSeconds;
  r.breakdown.overheadSeconds = best.overheadSeconds;
  r.breakdown.communicationSeconds = best.tpCommSeconds + best.ppCommSeconds + best.epCommSeconds + best.dpCommSeconds;
  const StepBreakdown& b = r.breakdown;
  r.bound = Bound::Compute;
  double most = b.computeSeconds;
  if (b.memorySeconds > most) r.bound = Bound::Memory, most = b.memorySeconds;
  if (b.overheadSeconds > most) r.bound = Bound::Overhead, most = b.overheadSeconds;
  if (b.communicationSeconds > most) r.bound = Bound::Communication;

  const double tokensPerStep = static_cast<double>(c.batch) * w.seqLen;
  r.tokensPerSecond = tokensPerStep / r.stepSeconds;
  r.samplesPerSecond = c.batch / r.stepSeconds;
  r.modelFlopsPerToken = w.modelFlopsPerToken;
  r.peakTflopsPerChip = u.peakFlops / 1e12;
  r.mfu = r.modelFlopsPerToken * r.tokensPerSecond / (chips * u.peakFlops);
  r.memory = best.memory;
  r.memoryCapacityBytes = u.capacityBytes;
  r.fitsInMemory = best.fits;

  const Price price = priceFor(d, c.count, 0, c.preemptible, c.userUsdPerHour);
  r.priceKnown = price.known;
  r.priceKind = price.kind;
  r.priceSeller = price.seller;
  r.priceDate = price.date;
  r.usdPerHour = price.usdPerHour;
  if (price.known) r.usdPerMillionTokens = price.usdPerHour / 3600.0 / r.tokensPerSecond * 1e6;
  if (c.trainTokens > 0) {
    r.timeToTokensSeconds = c.trainTokens / r.tokensPerSecond;
    r.usdToTokens = price.usdPerHour * r.timeToTokensSeconds / 3600.0;
  }
  r.energyPerHour = c.trainTokens <= 0;
  r.energy = energyFor(d, c.count, r.energyPerHour ? 3600.0 : r.timeToTokensSeconds, c.energy);
  r.ops = std::move(best.ops);
  r.explanation = explain(r, u);
  return r;
}

}  // namespace core::sim
