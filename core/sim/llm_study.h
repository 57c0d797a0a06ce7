#pragma once
// An LLM study: one transformer, its sequence length, batch, precision and tokens to train, and
// several hardware scenarios (a device, a count, a stack, full or LoRA training) side by side,
// with the published figures to mark beside them. The GUI's LLM planner edits one and shows
// its reports; presets (resources/llm-presets/*.json) are studies. Plain values and a strict
// JSON codec; no Qt.
#include <optional>
#include <string>
#include <vector>

#include "core/hw/device_catalog.h"
#include "core/hw/stack_catalog.h"
#include "core/sim/error_band.h"
#include "core/sim/backwards_plan.h"
#include "core/sim/llm_simulator.h"
#include "core/util/json.h"

namespace core::sim {

struct LlmScenario {
  std::string deviceId;
  int count = 1;
  std::string stackId;                 // "" = the device kind's default
  Finetune finetune = Finetune::Full;
  std::optional<double> userUsdPerHour; // the price the user pays per device-hour; nullopt = the catalog's
  std::string label() const;           // "8x h100, LoRA"
  friend bool operator==(const LlmScenario&, const LlmScenario&) = default;
};

// A published figure for one scenario, drawn as a reference mark beside the simulated bar.
struct LlmReference {
  int scenario = 0;                    // index into LlmStudy::scenarios
  std::string metric;                  // tokens_per_second, samples_per_second, mfu
  double value = 0;
  std::string label;                   // "MLPerf v5.0 (Dell, measured)"
  std::string source;
  std::string knownCause;              // why the simulator misses it, where known ("" = not known)
  friend bool operator==(const LlmReference&, const LlmReference&) = default;
};

struct LlmStudy {
  std::string id, title, description;  // presets only
  std::string modelId = "llama3-8b";
  int seqLen = 0;                      // 0 = the model's own
  int batch = 128;                     // global, sequences
  util::Precision precision = util::Precision::BF16;
  int loraRank = 16;
  double trainTokens = 1e9;
  // Planning backwards (0 = not asked): each scenario's device also answers with the fewest
  // devices that train trainTokens within the deadline and/or the budget.
  double deadlineDays = 0;
  double budgetUsd = 0;
  // The scaling chart: strong scaling at the study's global batch (false), or weak scaling, the
  // study's sequences per chip kept as the chips grow (JSON "scaling": "strong" | "weak").
  bool weakScaling = false;
  std::vector<LlmScenario> scenarios;
  std::vector<LlmReference> references;
  friend bool operator==(const LlmStudy&, const LlmStudy&) = default;
};

// The simulator's configuration of one scenario of a study: the study's model, sequence, global
// batch, precision, LoRA rank and tokens; the scenario's device, count, stack, fine-tuning and
// price (the plan is searched).
SimConfig scenarioConfig(const LlmStudy& study, const LlmScenario& scenario);

// Each scenario's report, or why the simulator refused it.
struct LlmOutcome {
  LlmScenario scenario;
  std::optional<SimReport> report;
  std::string error;
  std::optional<BackwardsAnswer> fewest;  // when the study has a deadline or a budget
  ErrorBand band;  // the held-out error of the scenario's stack on its device (unknown without `errors`)
  std::string mfuCaution;  // its MFU above what published runs of that scale reached ("" if not)
};
// `energy`: the PUE and grid the energy and CO2e estimates use (the app's; default: IT power only);
// `errors`: the held-out errors the bands come from (none: no bands).
std::vector<LlmOutcome> runStudy(const LlmStudy& study, const hw::DeviceCatalog& devices, const hw::StackCatalog& stacks,
                                 const EnergySettings& energy = {}, const HeldOutErrors* errors = nullptr);

// Throughput against chips for one scenario, device counts 1, 2, 4, ... up to maxCount: strong
// scaling at the study's global batch (counts with more chips than sequences are left out, not
// given a larger batch), or weak scaling at the study's sequences per chip. The efficiency is
// tokens/s per chip relative to the smallest count that fits; where it exceeds 1 the point says
// why (the smallest count's plan pays for memory that more chips do not need).
struct ScalingPoint {
  int count = 0;       // devices
  int chips = 0;       // devices x chips per device (a TPU board is its chips): the chart's x
  int batch = 0;       // the global batch simulated
  double tokensPerSecond = 0;
  double efficiency = 0;
  bool fits = true;
  std::string plan;              // the plan at this count
  std::string superLinearCause;  // efficiency > 1: why; "" otherwise
};
std::vector<ScalingPoint> scalingCurve(const LlmStudy& study, const LlmScenario& scenario, const hw::DeviceCatalog& devices,
                                       const hw::StackCatalog& stacks, int maxCount = 1024);

// A published mark beside the simulated figure of its scenario, as the preset table does it: the
// error (simulated / published - 1) and whether it lies outside the tolerance, the scenario's
// error band (20% where no band is known), with the known cause where the study gives one.
struct PublishedCheck {
  int scenario = 0;
  const LlmReference* reference = nullptr;
  double simulated = 0;    // in the reference's metric
  double errorPct = 0;     // (simulated / published - 1) x 100
  double tolerancePct = 0;
  bool outside = false;
};
inline constexpr double kDefaultPublishedTolerancePct = 20;
std::vector<PublishedCheck> checkReferences(const LlmStudy& study, const std::vector<LlmOutcome>& outcomes);

util::Json studyToJson(const LlmStudy& s);
// Strict: names `source` and the key path for unknown keys and bad values.
LlmStudy studyFromJson(const util::Json& j, const std::string& source);
LlmStudy readStudyFile(const std::string& path);

}  // namespace core::sim
