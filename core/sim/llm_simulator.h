#pragma once
// Transformer training at LLM scale: a configuration (model, sequence length, device and count,
// stack, precision, fine-tune mode, parallel plan or "auto") in, an LlmReport out: step time and
// what binds it, tokens/s, samples/s, MFU, the plan, memory per chip by kind, cost per million
// tokens and to a number of tokens. With no plan given, every plan that can run is costed and
// the fastest that fits is taken (Calculon's search, over the same formulas).
#include <optional>
#include <string>
#include <vector>

#include "core/hw/device_spec.h"
#include "core/hw/stack_catalog.h"
#include "core/sim/llm_step.h"
#include "core/sim/parallel_plan.h"
#include "core/sim/sim_report.h"

namespace core::sim {

struct LlmConfig {
  std::string modelId;            // a transformer of the zoo (nn::referenceTransformers)
  std::string deviceId;
  std::string stackId;            // "" = the device kind's default stack
  int count = 1;                  // devices (GPUs, or TPU boards of chipsPerDevice chips)
  int batch = 0;                  // GLOBAL batch in sequences (images for ViT)
  int seqLen = 0;                 // 0 = the model's own
  util::Precision precision = util::Precision::BF16;
  Finetune finetune = Finetune::Full;
  int loraRank = 16;
  std::optional<ParallelPlan> plan;  // nullopt = search ("auto")
  double trainTokens = 0;         // > 0: also time and cost to this many tokens
  bool preemptible = false;
  std::optional<double> userUsdPerHour;  // the user's own $/h per device
  EnergySettings energy;
  bool perOp = true;              // fill LlmReport::ops
};

struct LlmReport {
  LlmConfig config;
  std::string modelName, deviceName, stackName, precisionNote;
  int chips = 0;                  // devices x chips per device: what the plan spans
  int seqLen = 0;
  ParallelPlan plan;
  bool planSearched = false;
  int plansConsidered = 0, plansFitting = 0;
  double stepSeconds = 0;
  double evalStepSeconds = 0;     // the global batch's forward alone (an evaluation step)
  StepBreakdown breakdown;        // compute, memory, overhead, communication (exposed, incl. the bubble's share: none)
  double bubbleSeconds = 0;       // pipeline fill/drain, included in compute/memory/overhead
  double tpCommSeconds = 0, ppCommSeconds = 0, epCommSeconds = 0, dpCommSeconds = 0, optimizerSeconds = 0;
  double stepOverheadSeconds = 0; // the stack's fixed per-step cost, included in stepSeconds
  double hostSeconds = 0;         // host dispatch of the step's kernels (overlaps the device's work)
  double exposedHostSeconds = 0;  // of it, what the device waited for (in overhead)
  std::int64_t kernelsPerStep = 0;  // kernels the slowest stage launches in a step
  Bound bound = Bound::Compute;
  std::string explanation;
  double tokensPerSecond = 0;     // global; ViT: patch tokens
  double samplesPerSecond = 0;    // sequences or images, global
  double modelFlopsPerToken = 0;
  double mfu = 0;                 // model FLOPs / (chips x dense peak at the precision)
  double peakTflopsPerChip = 0;
  ModelSize size;
  MemoryBreakdown memory;         // per chip
  double memoryCapacityBytes = 0; // per chip
  bool fitsInMemory = true;
  bool priceKnown = false;
  double usdPerHour = 0;          // all devices
  double usdPerMillionTokens = 0;
  double timeToTokensSeconds = 0; // config.trainTokens > 0
  double usdToTokens = 0;
  PriceKind priceKind = PriceKind::OnDemand;
  std::string priceSeller, priceDate;
  // Over timeToTokensSeconds when config.trainTokens > 0, else over one hour of training
  // (energyPerHour says which).
  Energy energy;
  bool energyPerHour = false;
  std::vector<LayerSeconds> ops;  // one block's ops and the head's, per micro-batch
};

// Throws core::util::Error naming the argument for unknown models, impossible counts or batches,
// a plan that cannot run (FieldError "parallel: ...") or that no plan can. A plan that does not fit in
// memory is a report with fitsInMemory false.
LlmReport simulateLlm(const LlmConfig& c, const hw::DeviceSpec& device, const hw::StackSpec& stack);

// Every plan that can run `w` over `chips` chips at `globalBatch` (for the search and tests).
std::vector<ParallelPlan> candidatePlans(const TransformerWork& w, int chips, int globalBatch, int chipsPerNode);

}  // namespace core::sim
