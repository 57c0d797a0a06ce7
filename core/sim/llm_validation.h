#pragma once
// The transformer simulator against published measurements: rows in the format of
// ../shared/reference/calibration-llm.csv (MLPerf, NeMo/Megatron, MaxText, NeuSight), each run
// as published (model, device, count, global batch, sequence length, precision, stack, LoRA),
// with the plan left to the simulator's own search, and the absolute percentage errors
// summarised per device generation, per stack and overall.
#include <optional>
#include <string>
#include <vector>

#include "core/hw/device_catalog.h"
#include "core/hw/stack_catalog.h"
#include "core/sim/parallel_plan.h"
#include "core/sim/validation.h"

namespace core::sim {

extern const char* const kLlmValidationRules;

struct LlmReferenceRow {
  std::string id, model, dataset, device;
  int count = 1, batch = 0, seqLen = 0;  // seqLen 0: the model's own
  std::optional<ParallelPlan> plan;      // the optional 'parallel' column: the plan that ran
  util::Precision precision = util::Precision::BF16;
  std::string stack;     // "" = the device kind's default
  bool lora = false;
  std::string metric;    // tokens_per_second, samples_per_second, step_seconds, mfu
  double value = 0;
  std::string notes, source;
  int line = 0;
};

// True when the CSV's header is calibration-llm.csv's (it has seq_len and finetune columns).
bool isLlmReferenceCsv(const std::string& text);
// Strict reading: throws core::util::Error naming the file, line and column.
std::vector<LlmReferenceRow> parseLlmReferenceCsv(const std::string& text, const std::string& path);
std::vector<LlmReferenceRow> readLlmReferenceCsv(const std::string& path);
// The shipped copy (resourceDir()/calibration/calibration-llm.csv).
std::string shippedLlmCalibrationCsv();

// The configuration a row ran (its model, device, count, batch, sequence length, precision,
// fine-tuning and plan), as the simulator takes it; no per-op list.
SimConfig simConfigOf(const LlmReferenceRow& row);

struct LlmRowResult {
  LlmReferenceRow row;
  std::string family;       // the device's generation ("hopper", "tpu-v6e", ...), else its id
  std::string stack;        // the stack it ran under
  double predicted = 0;
  double absPctError = 0;
  bool ok = true;
  std::string error;
  std::string plan;         // the plan the simulator chose
  std::string explanation;
  // The MFU the published figure implies (the simulator's MFU scaled by published / predicted
  // throughput; the row's own for an mfu row); 0 where it cannot be read (a step time without
  // the optimizer step, a refused row).
  double publishedMfu = 0;
  int chips = 0;            // the row's chips (devices x chips per device)
};

struct LlmValidationResult : ErrorSummary {
  std::vector<LlmRowResult> rows;
  int unsupported = 0;      // rows the simulator refused
};

LlmValidationResult validateLlmRows(const hw::DeviceCatalog& devices, const hw::StackCatalog& stacks,
                                    const std::vector<LlmReferenceRow>& rows, const std::string& stackOverride = "");

}  // namespace core::sim
