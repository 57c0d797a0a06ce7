#include "core/sim/device_rates.h"

#include <algorithm>

#include "core/sim/utilization.h"
#include "core/util/units.h"

namespace core::sim {

StackDefaults stackDefaults(hw::DeviceKind kind) {
  switch (kind) {
    case hw::DeviceKind::Cpu: return {0.3, 0.7, 1e-5, 2e-3, 0.0, 0.0, 0.5, 25.0, 10.0, 16, 0};
    case hw::DeviceKind::Tpu: return {0.5, 0.8, 0.0, 0.01, 10.0, 0.1, 0.5, 25.0, 1.0, 128, 96};
    case hw::DeviceKind::Gpu: break;
  }
  return {0.5, 0.75, 1e-5, 3e-3, 1.0, 0.01, 0.5, 25.0, 12.0, 128, 4};
}

DeviceRates resolveDeviceRates(const hw::DeviceSpec& d, const hw::SoftwareFigures& sw, util::Precision precision) {
  DeviceRates r;
  r.id = d.id;
  r.kind = d.kind;
  r.traits = hw::traitsOf(d);
  r.defaults = stackDefaults(d.kind);
  const StackDefaults& def = r.defaults;
  r.peak = peakFor(d, precision);
  r.activationBytes = sw.fp32Activations.value_or(false) ? 4.0 : activationBytes(precision);
  r.systolic = r.traits.matrixUnit == hw::MatrixUnit::Systolic;
  r.onFp32Units = r.traits.matrixUnit == hw::MatrixUnit::Simt && d.peakTflopsFp32 && r.peak.tflops == *d.peakTflopsFp32;
  r.gemmEfficiency = sw.gemmEfficiency.value_or(def.gemmEfficiency);
  if (r.onFp32Units && sw.gemmEfficiencyFp32) r.gemmEfficiency = *sw.gemmEfficiencyFp32;
  r.matmulEfficiency = sw.matmulEfficiency.value_or(kDefaultMatmulEfficiency);
  // matmul_efficiency_fp32 is SGEMM with TF32 off, fitted on fp32 rows: an fp32 run on the fp32
  // units only (a tf32 or bf16 run that falls back to the fp32 peak keeps the stack's figure).
  if (r.onFp32Units && precision == util::Precision::FP32)
    r.matmulEfficiency = sw.matmulEfficiencyFp32.value_or(r.matmulEfficiency);
  r.memEfficiency = sw.memEfficiency.value_or(def.memEfficiency);

  const bool compiled = r.traits.launch == hw::LaunchModel::CompiledProgram;
  r.dispatchSeconds = sw.kernelLaunchSeconds.value_or(def.kernelLaunchSeconds);
  r.kernelLaunchSeconds = compiled ? 0.0 : r.dispatchSeconds;
  r.minKernelSeconds = r.traits.launch == hw::LaunchModel::PerKernel ? kMinGpuKernelSeconds : 0.0;
  r.stepOverheadSeconds = sw.stepOverheadSeconds.value_or(def.stepOverheadSeconds);
  r.optimizerBytesPerParam = sw.optimizerBytesPerParam.value_or(kFusedAdamBytesPerParam);
  r.compileSeconds = sw.compileSeconds.value_or(def.compileSeconds);
  r.compileSecondsPerLayer = sw.compileSecondsPerLayer.value_or(def.compileSecondsPerLayer);
  r.reserveBytes = sw.frameworkReserveGib.value_or(def.frameworkReserveGib) * util::kBytesPerGib;

  r.tile = d.matrixTile.value_or(def.tile);
  r.tileMin = std::min(r.tile, sw.matrixTileMin.value_or(kMinTile));
  r.computeUnits = d.computeUnits.value_or(r.systolic ? 1 : kDefaultComputeUnits);
  r.replicas = r.traits.replicas == hw::ReplicaRule::PerCore ? std::max(1, d.coresPerDevice) : 1;

  // A compiler that fuses (XLA on a TPU) fuses whatever the stack's figures say.
  const bool compilerFuses = r.traits.fusion == hw::FusionRule::Compiler;
  r.fusesElementwise = compilerFuses || sw.fusesElementwise.value_or(false);
  r.fusesEpilogues = r.fusesElementwise && (compilerFuses || sw.fusesEpilogues.value_or(true));
  r.fusedAttention = compilerFuses || sw.fusedAttention.value_or(true);
  // One compiled program has no autocast casts: it keeps the precision it was traced at.
  r.autocast = !compiled && r.activationBytes < 4 && sw.autocast.value_or(false);
  r.fusedLoss = compilerFuses || sw.fusedLoss.value_or(true);
  return r;
}

}  // namespace core::sim
