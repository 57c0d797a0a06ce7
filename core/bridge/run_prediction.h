#pragma once
// A measured run beside the simulator's prediction for the same configuration on the device it
// ran on: the check that closes the loop between "simulated there" and "measured there".
#include <string>

#include "core/bridge/run_log.h"
#include "core/hw/device_catalog.h"
#include "core/hw/stack_catalog.h"
#include "core/sim/sim_report.h"
#include "core/sim/simulator.h"

namespace core::bridge {

// The catalog device a log ran on: "host" for this machine's CPU (when the catalog has it), a
// GPU by the name PyTorch reported ("NVIDIA H100 80GB HBM3" -> h100; "NVIDIA A100-SXM4-80GB" ->
// the 80 GB SXM A100). Empty when nothing matches: never the device it was exported for (a
// job exported for an H100 and run on an RTX card is judged where it ran, or where the user says).
std::string matchDevice(const hw::DeviceCatalog& catalog, const RunLog& log);
// "" when the log ran on `deviceId` or on no catalog device; else one line saying which is which:
// "a.jsonl ran on 'NVIDIA H100 80GB HBM3', which is h100 in the catalog, not t4".
std::string deviceMismatch(const hw::DeviceCatalog& catalog, const RunLog& log, const std::string& deviceId);

// The simulator's configuration of a logged run on `deviceId` under `stackId`: model, dataset,
// global batch, precision and device count (no per-layer detail); a transformer's sequence
// length, and the plan, fine-tuning and LoRA rank it ran where its log records them; a CPU run's
// vCPUs (its processes' threads). Throws
// core::util::Error naming the file when the log's precision is unknown.
sim::SimConfig simConfigOf(const RunLog& log, const std::string& deviceId, const std::string& stackId);

// The stack a logged run is simulated under: `stackId` when given; else what an exported
// transformer job says it ran (pytorch-compile or pytorch-eager, where the catalog has it);
// else "" (the device kind's default).
std::string stackOfRun(const RunLog& log, const std::string& stackId, const hw::StackCatalog& stacks);

// The simulator's step for a logged run's configuration (simConfigOf): a transformer through
// the LLM step model with the plan it ran, anything else layer by layer. Throws
// core::util::Error when the simulator refuses it.
sim::SimReport simulateLoggedRun(const sim::Simulator& sim, const sim::SimConfig& config, const hw::DeviceSpec& device,
                                 const hw::StackSpec& stack);

struct RunPrediction {
  bool known = false;
  std::string why;            // when not known: why there is no prediction
  std::string deviceId, deviceName, stackId, stackName;
  double stepSeconds = 0;     // predicted steady-state step
  double perSecond = 0;       // the log's unit per second
  // Simulated throughput / measured throughput - 1, the project's one sign convention: negative,
  // AccelLab predicted slower than measured; positive, faster (errorInWords says it).
  double error = 0;
  bool fitsInMemory = true;
  // The simulator's report for it (the CNN/MLP step model, or a transformer's step with its plan
  // part, no run), for charts that set prediction beside measurement.
  sim::SimReport report;
};

// PyTorch, not the AccelLab engine, on a measured device (the host): its peaks are measured rates
// (a GEMM, a copy), so the layer model's GEMM and bandwidth efficiencies stay its own (1: a large
// GEMM reaches the measured rate); the framework's costs (per op, per step, optimizer traffic,
// fusion) and its transformer matmuls' share of the peak (matmul_efficiency) are the stack's, not
// the engine's. The software figures to simulate a run of PyTorch there with (empty elsewhere).
hw::SoftwareFigures measuredRatesOnly(const hw::DeviceSpec& device);

// "AccelLab predicted 31% slower than measured" (error < 0), "... 12% faster ..." (error > 0),
// "AccelLab's prediction matches the measurement" (|error| < 0.05%).
std::string errorInWords(double error);

// The prediction for the log's model, dataset, global batch, precision and device count on
// `deviceId` under `stackId` ("" = the device kind's default: pytorch-eager on CPUs and GPUs).
// The host is simulated as PyTorch runs on it: its measured rates (GEMM, copy) with the stack's
// framework costs (per op, per step, optimizer traffic), not the AccelLab engine's own. Never throws for a configuration the simulator refuses
// (that is a prediction with `why`).
RunPrediction predictRun(const hw::DeviceCatalog& catalog, const hw::StackCatalog& stacks, const RunLog& log,
                         const std::string& deviceId, const std::string& stackId = {});

}  // namespace core::bridge
