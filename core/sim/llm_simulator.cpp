#include "core/sim/llm_simulator.h"

#include <algorithm>
#include <cmath>

#include "core/nn/transformer_spec.h"
#include "core/sim/explanation.h"
#include "core/sim/pricing.h"
#include "core/hw/stack_catalog.h"
#include "core/util/error.h"

namespace core::sim {
namespace {

std::vector<int> powersOfTwoUpTo(int hi) {
  std::vector<int> v;
  for (int x = 1; x <= hi && x > 0; x *= 2) v.push_back(x);
  return v;
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

SimReport simulateLlm(const SimConfig& c, const hw::DeviceSpec& d, const hw::StackSpec& stack) {
  const nn::TransformerSpec* spec = nn::findTransformer(c.modelId);
  if (!spec) throw util::FieldError("model", "'" + c.modelId + "' is not a transformer (known: " + nn::transformerIdList() + ")");
  if (c.count < 1) throw util::FieldError("count", std::to_string(c.count) + " must be at least 1");
  if (c.batch < 1) throw util::FieldError("batch", std::to_string(c.batch) + " must be at least 1");
  hw::requireStackCovers(stack, d);
  const LlmSettings& ls = c.llm;
  const TransformerWork w = makeTransformerWork(*spec, ls.seqLen, ls.finetune, ls.loraRank);
  const LlmUnit u = resolveLlmUnit(d, hw::figuresFor(stack, d), c.precision, cpuRanksOf(c));
  const int chips = c.count * u.chipsPerDevice;
  const bool cpu = d.kind == hw::DeviceKind::Cpu;  // its count is processes on one machine
  if (chips > 1 && !cpu && !d.interconnectGBps)
    throw util::FieldError("count", "device '" + d.id + "' has no interconnect_gbps, so it cannot run over " +
                std::to_string(chips) + " chips");

  SimReport r;
  r.config = c;
  r.config.stackId = stack.id;
  LlmPart& l = r.llm.emplace();
  l.modelName = spec->name;
  r.deviceName = d.name;
  r.stackName = stack.name;
  r.precisionNote = u.precisionNote;
  r.peakPrecision = u.peakPrecision;
  l.chips = chips;
  l.seqLen = w.seqLen;
  r.tokensPerSample = spec->tokensPerSample(w.seqLen);
  r.size = modelSizeOf(w);
  r.perDeviceBatch = c.batch / c.count;

  PlanCost best;
  if (ls.plan) {
    const std::string problem = planProblem(w, *ls.plan, chips, c.batch);
    if (!problem.empty()) throw util::FieldError("parallel", problem);
    l.plan = *ls.plan;
    best = costPlan(w, u, l.plan, c.batch, c.perLayer);
    l.plansConsidered = 1;
    l.plansFitting = best.fits ? 1 : 0;
  } else {
    std::vector<ParallelPlan> plans = candidatePlans(w, chips, c.batch, u.chipsPerNode);
    if (ls.dataParallelOnly)
      std::erase_if(plans, [](const ParallelPlan& p) { return p.tp > 1 || p.pp > 1 || p.ep > 1; });
    if (plans.empty())
      throw util::FieldError("batch", "no parallel plan runs a global batch of " + std::to_string(c.batch) + " over " +
                  std::to_string(chips) + " chips (the batch must split over the data-parallel replicas)");
    l.planSearched = true;
    l.plansConsidered = static_cast<int>(plans.size());
    const ParallelPlan* chosen = nullptr;
    double bestSeconds = 0, leastMemory = 0;
    const ParallelPlan* smallest = nullptr;
    for (const auto& p : plans) {
      const PlanCost pc = costPlan(w, u, p, c.batch, false);
      if (pc.fits) {
        ++l.plansFitting;
        if (!chosen || pc.stepSeconds < bestSeconds) chosen = &p, bestSeconds = pc.stepSeconds;
      }
      if (!smallest || pc.memory.total() < leastMemory) smallest = &p, leastMemory = pc.memory.total();
    }
    l.plan = chosen ? *chosen : *smallest;  // none fits: the plan that comes closest, reported as OOM
    best = costPlan(w, u, l.plan, c.batch, c.perLayer);
  }

  r.stepSeconds = best.stepSeconds;
  l.evalStepSeconds = best.evalStepSeconds;
  l.bubbleSeconds = best.bubbleSeconds;
  l.tpCommSeconds = best.tpCommSeconds;
  l.ppCommSeconds = best.ppCommSeconds;
  l.epCommSeconds = best.epCommSeconds;
  l.dpCommSeconds = best.dpCommSeconds;
  l.optimizerSeconds = best.optimizerSeconds;
  l.stepOverheadSeconds = u.stepOverheadSeconds;
  l.hostSeconds = best.hostSeconds;
  l.exposedHostSeconds = best.exposedHostSeconds;
  l.kernelsPerStep = best.kernelsPerMicroBatch * best.microBatches;
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
  l.tokensPerSecond = tokensPerStep / r.stepSeconds;
  r.imagesPerSecond = c.batch / r.stepSeconds;
  l.modelFlopsPerToken = w.modelFlopsPerToken;
  r.peakTflops = u.peakFlops / 1e12;
  r.utilization = l.modelFlopsPerToken * l.tokensPerSecond / (chips * u.peakFlops);  // MFU
  r.achievedTflops = r.utilization * r.peakTflops;
  l.memory = best.memory;
  r.memoryBytesPerDevice = l.memory.total();
  r.memoryCapacityBytes = u.capacityBytes;
  r.fitsInMemory = best.fits;

  // A CPU's processes share one machine: its price is its vCPUs' (other devices have none).
  r.vcpus = u.machineVcpus;
  const Price price = priceFor(d, machinesOf(d, c.count), u.machineVcpus, c.preemptible, c.userUsdPerHour);
  r.priceKnown = price.known;
  r.priceKind = price.kind;
  r.priceSeller = price.seller;
  r.priceDate = price.date;
  r.usdPerHour = price.usdPerHour;
  if (price.known) {
    l.usdPerMillionTokens = price.usdPerHour / 3600.0 / l.tokensPerSecond * 1e6;
    r.usdPerMillionImages = usdPerMillionImages(price.usdPerHour, r.imagesPerSecond);
  }
  if (ls.trainTokens > 0) {
    l.timeToTokensSeconds = ls.trainTokens / l.tokensPerSecond;
    l.usdToTokens = price.usdPerHour * l.timeToTokensSeconds / 3600.0;
  }
  l.energyBasis = ls.trainTokens > 0 ? EnergyBasis::TrainTokens : EnergyBasis::OneHour;
  r.energy = energyFor(d, machinesOf(d, c.count), ls.trainTokens > 0 ? l.timeToTokensSeconds : 3600.0, c.energy);
  r.layers = std::move(best.ops);
  StepFacts facts;
  facts.memBytesPerSecond = u.memBytesPerSecond;
  facts.systolic = u.systolic;
  r.explanation = explainStep(r, facts);
  return r;
}

}  // namespace core::sim
