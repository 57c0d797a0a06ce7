#pragma once
// CONTRACT: what the simulator answers for one configuration. Plain values; the CLI prints
// them as JSON and the GUI charts them.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/sim/energy.h"
#include "core/sim/parallel_plan.h"
#include "core/sim/pricing.h"

#include "core/util/name_table.h"
#include "core/util/precision.h"

namespace core::sim {

// The software stack of a scalable CPU: TensorFlow as pip shipped it in 2017 (no AVX2/FMA
// kernels) or compiled for the machine. Ignored for other devices.
enum class CpuBuild { Compiled, Pip };
inline constexpr util::NameTable<CpuBuild, 2> kCpuBuildNames{{{{CpuBuild::Compiled, "compiled"}, {CpuBuild::Pip, "pip"}}}};
inline const char* cpuBuildName(CpuBuild b) { return kCpuBuildNames.name(b).data(); }

// What a transformer at LLM scale is asked beyond a run (core/sim/llm_simulator); the other
// models leave these as they are.
struct LlmSettings {
  int seqLen = 0;                    // 0 = the model's own
  Finetune finetune = Finetune::Full;
  int loraRank = 16;
  std::optional<ParallelPlan> plan;  // nullopt = search ("auto")
  double trainTokens = 0;            // > 0: also the time and cost to this many tokens (at most kMaxTrainTokens)
  // The search keeps tp = pp = ep = 1: the plans a plain PyTorch job runs (DDP, ZeRO, FSDP,
  // recomputation, micro-batches), for an exported job.
  bool dataParallelOnly = false;
};
inline constexpr double kMaxTrainTokens = 1e18;

struct SimConfig {
  std::string modelId;
  std::string datasetId;
  std::string dataDir;        // image-folder: the folder whose images make the epoch (data::datasetInfoIn)
  std::string deviceId;
  std::string stackId;        // software stack (resources/stacks); empty = the device kind's default
  int count = 1;              // devices in synchronous data parallel
  int vcpus = 0;              // scalable CPUs only (0 = device default)
  double memoryGib = 0;       // scalable CPUs only: the VM's RAM (0 = per-vCPU figure x vCPUs)
  int batch = 128;            // GLOBAL batch
  util::Precision precision = util::Precision::FP32;
  int epochs = 1;
  bool preemptible = false;   // price kind
  std::optional<double> userUsdPerHour;  // the user's own $/h per device (per vCPU on a CPU)
  EnergySettings energy;      // PUE and grid intensity for the energy and CO2e estimate
  CpuBuild cpuBuild = CpuBuild::Compiled;
  // CNN activation layout (--memory-format): nullopt = the stack's (channels_last figure).
  std::optional<bool> channelsLast;
  bool evalEachEpoch = false;      // a forward pass over the test split after every epoch
  std::int64_t stepsPerEpoch = 0;  // 0 = ceil(train size / batch)
  bool perLayer = true;            // fill SimReport::layers (sweeps leave it off: faster)
  LlmSettings llm;                 // transformers only
};

enum class Bound { Compute, Memory, Overhead, Input, Communication };
inline constexpr util::NameTable<Bound, 5> kBoundNames{{{{Bound::Compute, "compute"},
                                                        {Bound::Memory, "memory"},
                                                        {Bound::Overhead, "overhead"},
                                                        {Bound::Input, "input"},
                                                        {Bound::Communication, "communication"}}}};
inline const char* boundName(Bound b) { return kBoundNames.name(b).data(); }

using hw::kPriceKindNames;  // the price a device is rented at (SimConfig::preemptible)

struct StepBreakdown {
  double computeSeconds = 0;
  double memorySeconds = 0;
  double overheadSeconds = 0;
  double inputSeconds = 0;
  double communicationSeconds = 0;
};

// One layer's share of the step (forward + backward on one device).
struct LayerSeconds {
  std::string name;
  std::string kind;               // nn::layerKindName
  double forwardSeconds = 0;
  double backwardSeconds = 0;
  double utilization = 0;         // matrix-unit utilisation of its GEMMs from their shape (1 if none)
  Bound bound = Bound::Compute;   // compute, memory or overhead (dispatch)
  int kernels = 0;                // kernels its forward and backward launch (transformer step; 0: not counted)
};

// The model's size, as every simulated report states it.
struct ModelSize {
  std::int64_t params = 0;           // all of them
  std::int64_t trainableParams = 0;  // LoRA: the adapters; frozen batch-norm statistics excluded
  std::int64_t activeParams = 0;     // a mixture of experts: used per token (nn::TransformerSpec::activeParams); else 0
  std::int64_t inputEmbeddingParams = 0;  // with activeParams: the lookup tables it includes
  double forwardFlopsPerSample = 0;  // 2 x the multiply-adds of one sample's forward pass
};

// Memory per chip by kind (a transformer's plan states it).
struct MemoryBreakdown {
  double weightBytes = 0, gradientBytes = 0, optimizerBytes = 0, activationBytes = 0, reserveBytes = 0;
  double total() const { return weightBytes + gradientBytes + optimizerBytes + activationBytes + reserveBytes; }
};

// What an energy figure covers: the run (every report of a run), or for a transformer's plan
// the tokens asked for, else one hour of training.
enum class EnergyBasis { Run, TrainTokens, OneHour };
inline constexpr util::NameTable<EnergyBasis, 3> kEnergyBasisNames{
    {{{EnergyBasis::Run, "run"}, {EnergyBasis::TrainTokens, "train_tokens"}, {EnergyBasis::OneHour, "one hour"}}}};

// A transformer at LLM scale: the parallel plan and what it costs, beyond what every report
// states. Its step's op list is SimReport::layers, its MFU SimReport::utilization.
struct LlmPart {
  std::string modelName;
  int chips = 0;                  // devices x chips per device: what the plan spans
  int seqLen = 0;                 // the sequence length used
  ParallelPlan plan;
  bool planSearched = false;
  int plansConsidered = 0, plansFitting = 0;
  double evalStepSeconds = 0;     // the global batch's forward alone (an evaluation step)
  double bubbleSeconds = 0;       // pipeline fill/drain, included in compute/memory/overhead
  double tpCommSeconds = 0, ppCommSeconds = 0, epCommSeconds = 0, dpCommSeconds = 0;  // exposed
  double optimizerSeconds = 0;
  double stepOverheadSeconds = 0; // the stack's fixed per-step cost, included in stepSeconds
  double hostSeconds = 0;         // host dispatch of the step's kernels (overlaps the device's work)
  double exposedHostSeconds = 0;  // of it, what the device waited for (in overhead)
  std::int64_t kernelsPerStep = 0;  // kernels the slowest stage launches in a step
  double tokensPerSecond = 0;     // global; ViT: patch tokens
  double modelFlopsPerToken = 0;
  MemoryBreakdown memory;         // per chip
  double usdPerMillionTokens = 0;
  double timeToTokensSeconds = 0; // config.llm.trainTokens > 0
  double usdToTokens = 0;
  EnergyBasis energyBasis = EnergyBasis::OneHour;
};

struct SimReport {
  SimConfig config;
  ModelSize size;
  double stepSeconds = 0;
  StepBreakdown breakdown;
  Bound bound = Bound::Compute;
  std::string explanation;          // one sentence: what binds and why
  double imagesPerSecond = 0;       // global
  std::int64_t stepsPerEpoch = 0;
  double epochSeconds = 0;          // steady state
  double firstEpochSeconds = 0;     // includes compilation / warm-up
  double runSeconds = 0;            // all epochs
  double usdPerHour = 0;            // all devices together; 0 when no price is known
  bool priceKnown = false;
  PriceKind priceKind = PriceKind::OnDemand;
  std::string priceSeller, priceDate;  // a catalog price's seller kind and date
  Energy energy;                    // over runSeconds, with the configuration's PUE and grid
  double usdPerMillionImages = 0;   // per million samples: images, or sequences of a language model
  int tokensPerSample = 0;          // transformers: tokens one sample is (0 for the other models)
  double usdPerRun = 0;
  double memoryBytesPerDevice = 0;
  double memoryCapacityBytes = 0;
  bool fitsInMemory = true;
  double achievedTflops = 0;        // per device
  double utilization = 0;           // achieved / peak at this precision (transformers: MFU, the model's FLOPs)
  // Added by the simulator:
  std::string deviceName;
  std::string stackName;            // the software stack's name (config.stackId is its id)
  std::string contrastStackId;      // detailed reports: the same step under another stack...
  double contrastStepSeconds = 0;   // ...takes this long (0 = not computed)
  int vcpus = 0;                    // scalable CPUs: the vCPU count used
  int perDeviceBatch = 0;
  double evalSecondsPerEpoch = 0;   // included in epochSeconds when config.evalEachEpoch
  double compileSeconds = 0;        // first-epoch extra (graph build, XLA compile, warm-up)
  double peakTflops = 0;            // per device at this precision (after fallbacks)
  std::string precisionNote;        // e.g. "k80 has no fp16 units: runs at its fp32 peak"
  util::Precision peakPrecision = util::Precision::FP32;  // whose peak peakTflops is (after fallbacks)
  std::vector<LayerSeconds> layers; // per layer, in execution order (a transformer: one block's ops and the head's)
  std::optional<LlmPart> llm;       // transformers: the plan, tokens and memory by kind
};

}  // namespace core::sim
