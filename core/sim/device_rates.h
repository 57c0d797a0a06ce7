#pragma once
// One device under one software stack at one precision: the rates every cost model uses, in
// one place. The device file gives the hardware (peaks, bandwidths, links) and its traits
// (hw::traitsOf: matrix unit, launch model, fusion, replicas); the stack gives the software's
// figures for the device's generation (hw::figuresFor), or the documented defaults of the
// device's kind where it leaves one out. The CNN's ExecutionUnit (execution_unit.h) and the
// transformer's LlmUnit (llm_step.h) are views of these rates: the first per device and per
// replica, the second per chip.
#include <string>

#include "core/hw/device_spec.h"
#include "core/hw/software_figures.h"
#include "core/sim/precision_model.h"
#include "core/util/precision.h"

namespace core::sim {

// Fused Adam update per fp32 parameter: read parameter, gradient, m, v; write parameter, m, v.
inline constexpr double kFusedAdamBytesPerParam = 28.0;
// The shortest a GPU kernel takes back to back, however little it does (launch latency and
// the grid's ramp up and drain: about 2-3 us on V100 to H100 in Nsight traces of tiny
// element-wise kernels without CUDA graphs).
inline constexpr double kMinGpuKernelSeconds = 2.5e-6;
// Of the stack's defaults when it leaves the transformer figures out.
inline constexpr double kDefaultMatmulEfficiency = 0.6;
inline constexpr double kDefaultCommEfficiency = 0.75;
// GPU streaming multiprocessors when a device file gives none (a V100 has 80).
inline constexpr int kDefaultComputeUnits = 80;

// Defaults of the software-stack figures when a stack leaves them out, by device kind.
struct StackDefaults {
  double gemmEfficiency, memEfficiency, kernelLaunchSeconds, stepOverheadSeconds, compileSeconds,
      compileSecondsPerLayer, frameworkReserveGib, hostJpegMBpsPerVcpu, hostLinkGBps;
  int tile, hostVcpus;
};
StackDefaults stackDefaults(hw::DeviceKind kind);

struct DeviceRates {
  std::string id;
  hw::DeviceKind kind = hw::DeviceKind::Gpu;
  hw::DeviceTraits traits;
  StackDefaults defaults{};
  PeakChoice peak;                // TFLOP/s per device (CPU: per vCPU) at the precision, and why
  double activationBytes = 4;     // per element at the precision
  // The precision runs on a GPU's fp32 (CUDA-core) path: gemm_efficiency_fp32 applies (the CNN
  // path, any precision that falls back there), matmul_efficiency_fp32 to an fp32 run.
  bool onFp32Units = false;
  double gemmEfficiency = 0.5;    // convolutions and GEMMs (the CNN path)
  double matmulEfficiency = 0.6;  // plain matmuls (the transformer path)
  double memEfficiency = 0.75;    // of the bandwidth, for streaming kernels
  double dispatchSeconds = 0;     // the framework's cost per op (kernel_launch_seconds)
  double kernelLaunchSeconds = 0; // per kernel launched by the host: 0 in one compiled program
  double minKernelSeconds = 0;    // the shortest kernel (per-kernel launch only)
  double stepOverheadSeconds = 0;
  double optimizerBytesPerParam = kFusedAdamBytesPerParam;
  double compileSeconds = 0, compileSecondsPerLayer = 0;
  double reserveBytes = 0;        // per device, kept by the runtime
  int tile = 128, tileMin = 16;   // matrix-unit tile edge; narrowest tile the kernels use
  int computeUnits = 1;           // GPU SMs; 1 for a systolic array
  int replicas = 1;               // data-parallel replicas per device (per-core: its cores)
  bool systolic = false;
  bool fusesElementwise = false;  // element-wise layers fuse into their producer
  bool fusesEpilogues = false;    // activations and bias gradients in the matmuls' epilogues
  bool fusedAttention = true;     // FlashAttention-style kernels: no T x T matrix in memory
  bool autocast = false;          // PyTorch AMP over fp32 modules (16-bit precisions only)
  bool fusedLoss = true;          // the vocabulary's loss as one kernel (SoftwareFigures::fusedLoss)
};

// Throws core::util::Error naming the device when no peak applies at the precision.
DeviceRates resolveDeviceRates(const hw::DeviceSpec& d, const hw::SoftwareFigures& sw, util::Precision precision);

}  // namespace core::sim
