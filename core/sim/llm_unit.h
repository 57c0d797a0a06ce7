#pragma once
// One chip of a device under a software stack at a precision, as the transformer step model
// (llm_step.h) sees it: its matmul, attention and memory rates, what the stack fuses and
// overlaps, its links within and between nodes, its memory. A CPU is each torchrun rank's share
// of the machine (cpu_scaling.h). Pure functions.
#include <string>

#include "core/hw/device_spec.h"
#include "core/hw/software_figures.h"
#include "core/sim/device_rates.h"
#include "core/sim/sim_report.h"

namespace core::sim {

// One hop of a collective between torchrun's processes on one CPU when its device file gives no
// latency: gloo's all-reduce of 8 bytes between two ranks over loopback TCP took 0.6 ms (two ring
// hops), measured 2026-12-06 on a 2-vCPU AMD EPYC VM with PyTorch 1.13
// (packaging/bench/gloo_allreduce.py).
inline constexpr double kCpuCollectiveLatencySeconds = 3e-4;
// The share of a CPU's copy bandwidth (one way) that collectives between its processes reach
// when the stack gives none for CPUs: gloo's 1.0-1.3 GB/s of the same machine's 24 GB/s one way
// (the pytorch stacks' comm_efficiency.cpu, from the same measurement).
inline constexpr double kDefaultCpuCommEfficiency = 0.05;

// One chip of a device under a stack at a precision: the rates the step model uses.
struct LlmUnit {
  std::string id;
  hw::DeviceKind kind = hw::DeviceKind::Gpu;
  int chipsPerDevice = 1;
  double peakFlops = 0;        // per chip at the precision (nominal, for MFU)
  double matmulFlops = 0;      // per chip: peak x matmul efficiency (fp8/fp4 matmuls under fp8/fp4)
  double attentionFlops = 0;   // per chip: the attention core's rate (16-bit under fp8 and fp4)
  double memBytesPerSecond = 0;  // per chip, effective
  double actBytes = 2;         // bytes per activation element
  double matmulInputBytes = 2; // bytes per matmul operand (1 under fp8, 0.5 + block scales under fp4)
  bool lowBitMatmuls = false;  // fp8 or fp4 matmuls on units that have them (operands cast first)
  int tile = 128, tileMin = 16, units = 1;
  bool systolic = false;
  double launchSeconds = 0;     // host dispatch per kernel (the framework's per-op cost)
  // A CPU: the framework dispatches each op on the cores that then compute it, so no queue
  // hides the dispatch (it adds to every pass); a GPU's or TPU's host runs ahead of the device.
  bool inlineDispatch = false;
  int vcpus = 0;                // CPU: the vCPUs one rank computes on (at least 1)
  int machineVcpus = 0;         // CPU: the machine's, which its ranks share (priced once)
  double minKernelSeconds = 0;  // the device's shortest kernel (kMinGpuKernelSeconds; 0 on TPUs)
  bool autocast = false;        // PyTorch AMP over fp32 modules (16-bit precisions only)
  double stepOverheadSeconds = 0;
  double optimizerBytesPerParam = 28;
  bool fusesElementwise = false;
  bool fusesEpilogues = false;  // activations and bias gradients in the matmuls' epilogues
  bool fusedLoss = true;        // the vocabulary's loss as one kernel (logits + fp32 gradient kept)
  bool fusedAttention = true;
  bool overlapsCollectives = true;  // bucketed data-parallel reduction, overlapped TP
  double intraBytesPerSecond = 0;   // per chip, one direction, effective
  double interBytesPerSecond = 0;   // per chip between nodes, effective (0: no network)
  int chipsPerNode = 1;             // chips one intra-node link domain holds
  double latencySeconds = 1e-5;     // per collective hop
  double capacityBytes = 0;         // per chip
  double reserveBytes = 0;          // per chip, the runtime's
  std::string precisionNote;
  util::Precision peakPrecision = util::Precision::FP32;  // whose peak runs (PeakChoice::ranAs)
};

// A CPU's share for each of `ranks` processes of one job on one machine of `vcpus` vCPUs (0: the
// device's default): torchrun's processes split the machine's vCPUs, memory bandwidth and RAM
// and reduce through its memory (gloo); more processes than vCPUs each get their fraction of it.
// Not read for other devices.
struct CpuRanks {
  int vcpus = 0;
  int ranks = 1;
  CpuBuild build = CpuBuild::Compiled;
  double memoryGib = 0;  // the machine's RAM when the set-up states it (0: the per-vCPU figure)
};
CpuRanks cpuRanksOf(const SimConfig& c);
// The machines a run of `count` on `d` draws power from and is priced as: a CPU's processes share
// one; other devices are `count` of their own.
inline int machinesOf(const hw::DeviceSpec& d, int count) { return d.kind == hw::DeviceKind::Cpu ? 1 : count; }

// Throws core::util::Error naming the device when no peak applies at the precision, and naming
// vcpus when a CPU has not that many. A 16-bit precision on a CPU without units for it runs fp32
// (as the exported job does, and as PyTorch should: emulated bf16 is slower), and says so.
LlmUnit resolveLlmUnit(const hw::DeviceSpec& d, const hw::SoftwareFigures& sw, util::Precision precision,
                       const CpuRanks& cpu = {});

}  // namespace core::sim
