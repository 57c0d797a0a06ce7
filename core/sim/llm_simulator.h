#pragma once
// Transformer training at LLM scale: a configuration (model, device and count, stack, precision,
// and in config.llm the sequence length, fine-tune mode, parallel plan or "auto") in, a
// SimReport with its LlmPart out: step time and what binds it, tokens/s, samples/s, MFU, the
// plan, memory per chip by kind, cost per million tokens and to a number of tokens. With no
// plan given, every plan that can run is costed and the fastest that fits is taken (Calculon's
// search, over the same formulas).
#include <optional>
#include <string>
#include <vector>

#include "core/hw/device_spec.h"
#include "core/hw/stack_catalog.h"
#include "core/sim/llm_step.h"
#include "core/sim/parallel_plan.h"
#include "core/sim/sim_report.h"

namespace core::sim {

// Throws core::util::Error naming the argument for unknown models, impossible counts or batches,
// a plan that cannot run (FieldError "parallel: ...") or that no plan can. A plan that does not fit in
// memory is a report with fitsInMemory false.
// On a CPU, c.count is torchrun's processes on one machine of c.vcpus vCPUs (0: the device's
// default; CpuRanks): they share it, and it is priced once. The configuration's dataset and epochs
// are not read (simulateTransformerRun reads them); the per-op list (SimReport::layers) is filled
// when c.perLayer.
SimReport simulateLlm(const SimConfig& c, const hw::DeviceSpec& device, const hw::StackSpec& stack);

// Every plan that can run `w` over `chips` chips at `globalBatch` (for the search and tests).
std::vector<ParallelPlan> candidatePlans(const TransformerWork& w, int chips, int globalBatch, int chipsPerNode);

}  // namespace core::sim
