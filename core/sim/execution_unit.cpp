#include "core/sim/execution_unit.h"

#include <algorithm>

#include "core/sim/cpu_scaling.h"
#include "core/sim/precision_model.h"
#include "core/sim/utilization.h"

namespace core::sim {

StackDefaults stackDefaults(hw::DeviceKind kind) {
  switch (kind) {
    case hw::DeviceKind::Cpu: return {0.3, 0.7, 1e-5, 2e-3, 0.0, 0.0, 0.5, 25.0, 10.0, 16, 0};
    case hw::DeviceKind::Tpu: return {0.5, 0.8, 0.0, 0.01, 10.0, 0.1, 0.5, 25.0, 1.0, 128, 96};
    case hw::DeviceKind::Gpu: break;
  }
  return {0.5, 0.75, 1e-5, 3e-3, 1.0, 0.01, 0.5, 25.0, 12.0, 128, 4};
}

ExecutionUnit resolveUnit(const hw::DeviceSpec& d, const hw::SoftwareFigures& sw, const SimConfig& c) {
  const StackDefaults def = stackDefaults(d.kind);
  const PeakChoice peak = peakFor(d, c.precision);
  ExecutionUnit u;
  u.kind = d.kind;
  u.id = d.id;
  u.precisionNote = peak.note;
  u.gemmEfficiency = sw.gemmEfficiency.value_or(def.gemmEfficiency);
  u.depthwiseEfficiency = sw.depthwiseEfficiency.value_or(0.0);
  u.activationBytes = activationBytes(c.precision);
  u.stepOverheadSeconds = sw.stepOverheadSeconds.value_or(def.stepOverheadSeconds);
  u.optimizerBytesPerParam = sw.optimizerBytesPerParam.value_or(kFusedAdamBytesPerParam);
  u.compileSeconds = sw.compileSeconds.value_or(def.compileSeconds);
  u.compileSecondsPerLayer = sw.compileSecondsPerLayer.value_or(def.compileSecondsPerLayer);
  u.tile = d.matrixTile.value_or(def.tile);
  u.tileMin = std::min(u.tile, sw.matrixTileMin.value_or(kMinTile));
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
  const double reserve = sw.frameworkReserveGib.value_or(def.frameworkReserveGib) * 1024.0 * 1024 * 1024;
  const double launch = sw.kernelLaunchSeconds.value_or(def.kernelLaunchSeconds);
  // TPUs only run XLA-compiled graphs: they fuse whatever the stack says.
  u.fusesElementwise = d.kind == hw::DeviceKind::Tpu || sw.fusesElementwise.value_or(false);

  if (d.kind == hw::DeviceKind::Cpu) {
    const int vcpus = c.vcpus > 0 ? c.vcpus : d.vcpusDefault;
    const CpuResources r = cpuResources(d, sw, peak.tflops, vcpus, c.cpuBuild);
    u.vcpus = vcpus;
    u.peakFlops = r.flops;
    u.peakTflopsNominal = peak.tflops * vcpus;
    u.vectorFlops = r.flops;
    u.memBytesPerSecond = r.memBytesPerSecond;
    u.opSeconds = launch;
    u.syncSecondsPerThread = r.syncSecondsPerThread;
    u.asyncLaunch = false;
    u.parallelUnits = vcpus;
    // The VM's RAM when the set-up states it (a Kaggle session), else the per-vCPU figure.
    u.memCapacityBytes = (c.memoryGib > 0 ? c.memoryGib : d.memGib * vcpus) * 1024.0 * 1024 * 1024;
    u.reserveBytes = reserve;
    u.hostVcpus = d.hostVcpus.value_or(vcpus);
    return u;
  }
  u.peakFlops = peak.tflops * 1e12;
  u.peakTflopsNominal = peak.tflops;
  // Running on the fp32 units of a GPU that also has matrix units: their own efficiency.
  if (d.kind == hw::DeviceKind::Gpu && sw.gemmEfficiencyFp32 && d.peakTflopsFp32 && peak.tflops == *d.peakTflopsFp32)
    u.gemmEfficiency = *sw.gemmEfficiencyFp32;
  u.vectorFlops = d.vectorTflopsFp32.value_or(d.peakTflopsFp32.value_or(peak.tflops / 8)) * 1e12;
  u.memBytesPerSecond = d.memBandwidthGBps * 1e9 * sw.memEfficiency.value_or(def.memEfficiency);
  u.opSeconds = launch;
  u.asyncLaunch = true;
  u.replicas = d.kind == hw::DeviceKind::Tpu ? std::max(1, d.coresPerDevice) : 1;
  u.systolic = d.kind == hw::DeviceKind::Tpu;
  u.parallelUnits = d.computeUnits.value_or(d.kind == hw::DeviceKind::Tpu ? 1 : 40);
  u.memCapacityBytes = d.memGib * 1024.0 * 1024 * 1024;
  u.reserveBytes = reserve;
  u.hostVcpus = d.hostVcpus.value_or(def.hostVcpus);
  // Tensor cores run at 16 bits where the precision's peak is above the fp32 units'.
  const bool tensorCores = d.kind == hw::DeviceKind::Gpu && u.activationBytes < 4 && u.peakFlops > u.vectorFlops;
  u.nchwTransposes = tensorCores && !c.channelsLast.value_or(sw.channelsLast.value_or(true));
  return u;
}

}  // namespace core::sim
