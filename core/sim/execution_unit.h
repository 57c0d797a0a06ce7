#pragma once
// A device resolved for one CNN configuration (precision, vCPUs, software stack): the CNN cost
// models' view of the device's rates (device_rates.h), with the CPU's vCPU scaling and the
// input pipeline's figures.
#include <string>

#include "core/hw/device_spec.h"
#include "core/hw/software_figures.h"
#include "core/sim/device_rates.h"
#include "core/sim/sim_report.h"

namespace core::sim {

struct ExecutionUnit {
  hw::DeviceKind kind = hw::DeviceKind::Gpu;
  std::string id;
  double peakFlops = 0;          // per device (board / GPU / all vCPUs), FLOP/s at the precision
  double peakTflopsNominal = 0;  // per device, as in the file (no build factor)
  double vectorFlops = 0;        // per device, outside the matrix units
  double gemmEfficiency = 0.5;
  double depthwiseEfficiency = 0;  // of vectorFlops; 0 = gemmEfficiency x the direct-kernel ratio
  double memBytesPerSecond = 0;  // per device, effective
  double opSeconds = 0;          // per op dispatch / kernel launch (CPU: incl. thread sync)
  bool asyncLaunch = true;       // GPU/TPU: launches overlap running kernels; CPU: they add
  double syncSecondsPerThread = 0;  // CPU: per parallel op, per thread beyond the first
  double stepOverheadSeconds = 0;
  double optimizerBytesPerParam = kFusedAdamBytesPerParam;
  double compileSeconds = 0, compileSecondsPerLayer = 0;
  int replicas = 1;              // TPU cores per board: each runs a replica on its batch share
  int parallelUnits = 1;         // GPU SMs, CPU threads, MXUs per TPU core
  int tile = 128;                // matrix-unit / GEMM tile edge
  int tileMin = 16;              // narrowest tile the kernels use for narrow outputs
  bool systolic = false;         // TPU MXU (weights stationary, batch streams)
  bool fusesElementwise = false; // the stack compiles the graph (XLA on TPU): elementwise layers
                                 // fuse into their producer and cost no traffic of their own
  double activationBytes = 4;    // per element at this precision
  // NCHW activations on tensor cores at 16 bits: cuDNN transposes each convolution's input and
  // output to NHWC and back (forward), and its gradients (backward).
  bool nchwTransposes = false;
  double memCapacityBytes = 0;   // per device
  double reserveBytes = 0;       // per device, kept by the runtime
  double hostLinkBytesPerSecond = 0;
  double interconnectBytesPerSecond = 0;  // 0 = none given
  double internodeBytesPerSecond = 0;     // per device, between nodes; 0 = one flat ring
  int devicesPerNode = 0;                 // 0 = not given (one flat ring)
  bool allReduceAfterBackward = false;    // the stack all-reduces after backward, not in buckets
  double allreduceLatencySeconds = 0;
  int hostVcpus = 1;             // per device
  double hostJpegBytesPerSecondPerVcpu = 0;
  bool deviceDecode = false;              // the stack decodes JPEG on the device (DALI)
  double deviceJpegBytesPerSecond = 0;    // its rate per device
  int vcpus = 0;                 // CPU
  std::string precisionNote;
  util::Precision peakPrecision = util::Precision::FP32;  // whose peak runs (PeakChoice::ranAs)
};

// The device `d` running software with figures `sw` (hw::figuresFor: its stack's, overlaid by
// what the device measured itself). Throws core::util::Error naming the argument for impossible values (vCPUs
// out of range).
ExecutionUnit resolveUnit(const hw::DeviceSpec& d, const hw::SoftwareFigures& sw, const SimConfig& c);

}  // namespace core::sim
