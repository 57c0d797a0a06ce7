#include "core/sim/execution_unit.h"

#include <algorithm>

#include "core/sim/cpu_scaling.h"
#include "core/sim/utilization.h"
#include "core/util/units.h"

namespace core::sim {

ExecutionUnit resolveUnit(const hw::DeviceSpec& d, const hw::SoftwareFigures& sw, const SimConfig& c) {
  const DeviceRates r = resolveDeviceRates(d, sw, c.precision);
  const StackDefaults& def = r.defaults;
  const PeakChoice& peak = r.peak;
  ExecutionUnit u;
  u.kind = d.kind;
  u.id = d.id;
  u.precisionNote = peak.note;
  u.peakPrecision = peak.ranAs;
  u.gemmEfficiency = r.gemmEfficiency;
  u.depthwiseEfficiency = sw.depthwiseEfficiency.value_or(0.0);
  u.activationBytes = r.activationBytes;
  u.stepOverheadSeconds = r.stepOverheadSeconds;
  u.optimizerBytesPerParam = r.optimizerBytesPerParam;
  u.compileSeconds = r.compileSeconds;
  u.compileSecondsPerLayer = r.compileSecondsPerLayer;
  u.tile = r.tile;
  u.tileMin = r.tileMin;
  u.hostLinkBytesPerSecond = d.hostLinkGBps.value_or(def.hostLinkGBps) * 1e9;
  u.interconnectBytesPerSecond = d.interconnectGBps.value_or(0.0) * 1e9;
  u.internodeBytesPerSecond = d.internodeGBps.value_or(0.0) * 1e9;
  u.devicesPerNode = d.devicesPerNode.value_or(0);
  u.allreduceLatencySeconds = d.allreduceLatencySeconds.value_or(10e-6);
  u.hostJpegBytesPerSecondPerVcpu = sw.hostJpegMBpsPerVcpu.value_or(def.hostJpegMBpsPerVcpu) * 1e6;
  u.deviceDecode = sw.inputPipeline.value_or(hw::InputPipeline::HostDecode) == hw::InputPipeline::DeviceDecode &&
                   d.kind != hw::DeviceKind::Cpu;
  u.deviceJpegBytesPerSecond = sw.deviceJpegMBps.value_or(0.0) * 1e6;
  u.allReduceAfterBackward = sw.allReduce.value_or(hw::AllReduceMode::Bucketed) == hw::AllReduceMode::AfterBackward;
  u.fusesElementwise = r.fusesElementwise;
  u.opSeconds = r.dispatchSeconds;
  u.reserveBytes = r.reserveBytes;

  if (d.kind == hw::DeviceKind::Cpu) {
    const int vcpus = c.vcpus > 0 ? c.vcpus : d.vcpusDefault;
    const CpuResources cpu = cpuResources(d, sw, peak.tflops, vcpus, c.cpuBuild);
    u.vcpus = vcpus;
    u.peakFlops = cpu.flops;
    u.peakTflopsNominal = peak.tflops * vcpus;
    u.vectorFlops = cpu.flops;
    u.memBytesPerSecond = cpu.memBytesPerSecond;
    u.syncSecondsPerThread = cpu.syncSecondsPerThread;
    u.asyncLaunch = false;
    u.parallelUnits = vcpus;
    // The VM's RAM when the set-up states it (a Kaggle session), else the per-vCPU figure.
    u.memCapacityBytes = (c.memoryGib > 0 ? c.memoryGib : d.memGib * vcpus) * util::kBytesPerGib;
    u.hostVcpus = d.hostVcpus.value_or(vcpus);
    return u;
  }
  u.peakFlops = peak.tflops * 1e12;
  u.peakTflopsNominal = peak.tflops;
  u.vectorFlops = d.vectorTflopsFp32.value_or(d.peakTflopsFp32.value_or(peak.tflops / 8)) * 1e12;
  u.memBytesPerSecond = d.memBandwidthGBps * 1e9 * r.memEfficiency;
  u.asyncLaunch = r.traits.launch != hw::LaunchModel::Inline;
  u.replicas = r.replicas;
  u.systolic = r.systolic;
  u.parallelUnits = r.computeUnits;
  u.memCapacityBytes = d.memGib * util::kBytesPerGib;
  u.hostVcpus = d.hostVcpus.value_or(def.hostVcpus);
  // Tensor cores run at 16 bits where the precision's peak is above the fp32 units'.
  const bool tensorCores = r.traits.matrixUnit == hw::MatrixUnit::Simt && u.activationBytes < 4 && u.peakFlops > u.vectorFlops;
  u.nchwTransposes = tensorCores && !c.channelsLast.value_or(sw.channelsLast.value_or(true));
  return u;
}

}  // namespace core::sim
