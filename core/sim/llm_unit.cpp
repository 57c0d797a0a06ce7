#include "core/sim/llm_unit.h"

#include <algorithm>

#include "core/sim/cpu_scaling.h"
#include "core/sim/precision_model.h"
#include "core/util/units.h"

namespace core::sim {
namespace {

using util::Precision;

// A CPU as the transformer step sees it: each rank's share of the machine (cpu_scaling's compute,
// bandwidth and barrier costs for the whole machine, split evenly), vector units that tile
// matrices by the device's tile over the rank's threads, every op dispatched inline and paying
// a barrier per extra thread, and ranks that reduce through the machine's memory: its copy
// bandwidth one way, at the share of it the stack's collectives (gloo) reach.
void applyCpuRanks(const hw::DeviceSpec& d, const hw::SoftwareFigures& sw, const DeviceRates& r, const CpuRanks& cpu,
                   LlmUnit& u) {
  const int machine = cpu.vcpus > 0 ? cpu.vcpus : d.vcpusDefault;
  const int ranks = std::max(1, cpu.ranks);
  const CpuResources whole = cpuResources(d, sw, r.peak.tflops, machine, cpu.build);  // throws naming vcpus
  u.chipsPerDevice = 1;
  u.machineVcpus = machine;
  u.vcpus = std::max(1, machine / ranks);
  u.peakFlops = whole.flops / ranks;
  u.matmulFlops = u.peakFlops * r.matmulEfficiency;
  u.attentionFlops = u.matmulFlops;
  u.lowBitMatmuls = false;
  if (r.peak.ranAs == Precision::FP32 || r.peak.ranAs == Precision::TF32) {
    // No 16-bit units: the run is an fp32 run (the exported job drops to fp32 and says so).
    u.actBytes = 4;
    u.autocast = false;
  }
  u.matmulInputBytes = u.actBytes;
  u.memBytesPerSecond = whole.memBytesPerSecond / ranks;
  u.units = u.vcpus;
  u.systolic = false;
  u.inlineDispatch = true;
  u.launchSeconds = r.dispatchSeconds + whole.syncSecondsPerThread * (u.vcpus - 1);
  u.minKernelSeconds = 0;
  u.capacityBytes = (cpu.memoryGib > 0 ? cpu.memoryGib : d.memGib * machine) * util::kBytesPerGib / ranks;
  u.chipsPerNode = ranks;
  u.intraBytesPerSecond = whole.rawMemBytesPerSecond / 2 * sw.commEfficiency.value_or(kDefaultCpuCommEfficiency);
  u.interBytesPerSecond = 0;
  u.latencySeconds = d.allreduceLatencySeconds.value_or(kCpuCollectiveLatencySeconds);
}

}  // namespace

CpuRanks cpuRanksOf(const SimConfig& c) {
  CpuRanks r;
  r.vcpus = c.vcpus;
  r.ranks = c.count;
  r.build = c.cpuBuild;
  r.memoryGib = c.memoryGib;
  return r;
}

LlmUnit resolveLlmUnit(const hw::DeviceSpec& d, const hw::SoftwareFigures& sw, Precision precision, const CpuRanks& cpu) {
  const DeviceRates r = resolveDeviceRates(d, sw, precision);
  LlmUnit u;
  u.id = d.id;
  u.kind = d.kind;
  u.chipsPerDevice = std::max(1, d.chipsPerDevice);
  const double chips = u.chipsPerDevice;
  u.precisionNote = r.peak.note;
  u.peakPrecision = r.peak.ranAs;
  u.peakFlops = r.peak.tflops * 1e12 / chips;
  // Low-bit matmuls run where the chosen peak is the device's own fp8/fp4 one; a device that
  // falls back (fp4 on a Hopper runs fp8) takes the rules of what it runs.
  const bool fp4 = precision == Precision::FP4 && d.peakTflopsFp4.has_value();
  const bool fp8 = !fp4 && (precision == Precision::FP8 || precision == Precision::FP4) && d.peakTflopsFp8.has_value();
  u.lowBitMatmuls = fp4 || fp8;
  const double eff = r.matmulEfficiency;
  const double lowBitEff = fp4 ? sw.fp4MatmulEfficiency.value_or(sw.fp8MatmulEfficiency.value_or(eff))
                               : sw.fp8MatmulEfficiency.value_or(eff);
  u.matmulFlops = u.peakFlops * (u.lowBitMatmuls ? lowBitEff : eff);
  // Under fp8 and fp4 the attention core stays in 16 bits.
  const double attentionPeak = u.lowBitMatmuls ? peakFor(d, Precision::BF16).tflops * 1e12 / chips : u.peakFlops;
  u.attentionFlops = attentionPeak * eff;
  u.memBytesPerSecond = d.memBandwidthGBps * 1e9 / chips * r.memEfficiency;
  u.actBytes = r.activationBytes;
  // NVFP4: 4-bit values and one 8-bit scale per 16 (MXFP4: per 32; the larger figure is kept).
  u.matmulInputBytes = fp4 ? 0.5 + 1.0 / 16 : fp8 ? 1.0 : u.actBytes;
  u.tile = r.tile;
  u.tileMin = r.tileMin;
  u.systolic = r.systolic;
  u.units = r.computeUnits;
  u.launchSeconds = r.kernelLaunchSeconds;
  u.minKernelSeconds = r.minKernelSeconds;
  u.autocast = r.autocast;
  u.stepOverheadSeconds = r.stepOverheadSeconds;
  u.optimizerBytesPerParam = r.optimizerBytesPerParam;
  u.fusesElementwise = r.fusesElementwise;
  u.fusesEpilogues = r.fusesEpilogues;
  u.fusedLoss = r.fusedLoss;
  u.fusedAttention = r.fusedAttention;
  u.overlapsCollectives = sw.allReduce.value_or(hw::AllReduceMode::Bucketed) == hw::AllReduceMode::Bucketed;
  const double comm = sw.commEfficiency.value_or(kDefaultCommEfficiency);
  // Device files give interconnects bidirectional per device: a ring moves data one way.
  u.intraBytesPerSecond = d.interconnectGBps.value_or(0.0) * 1e9 / 2 * comm;
  u.interBytesPerSecond = d.internodeGBps.value_or(0.0) * 1e9 / chips * comm;
  u.chipsPerNode = d.devicesPerNode.value_or(1) * u.chipsPerDevice;
  u.latencySeconds = d.allreduceLatencySeconds.value_or(1e-5);
  u.capacityBytes = d.memGib * util::kBytesPerGib / chips;
  u.reserveBytes = r.reserveBytes;
  if (d.kind == hw::DeviceKind::Cpu) applyCpuRanks(d, sw, r, cpu, u);
  return u;
}

}  // namespace core::sim
