#pragma once
// CONTRACT: one device of the hardware catalog as a plain struct (Timeloop/Habitat habit:
// hardware as data). Parsed from resources/devices/<id>.json by core/hw/device_catalog.
// Units are in the names. std::optional = "not set", which differs from zero.
#include <optional>
#include <string>
#include <vector>

#include "core/hw/software_figures.h"
#include "core/util/name_table.h"
#include "core/util/precision.h"

namespace core::hw {

enum class DeviceKind { Cpu, Gpu, Tpu };

// A kind's one name in files, the CLI and the GUI ("cpu", "gpu", "tpu"), in catalog order.
inline constexpr util::NameTable<DeviceKind, 3> kDeviceKinds{
    {{{DeviceKind::Cpu, "cpu"}, {DeviceKind::Gpu, "gpu"}, {DeviceKind::Tpu, "tpu"}}}};
const char* deviceKindName(DeviceKind k);
std::string deviceKindPlural(DeviceKind k);  // "CPUs", "GPUs", "TPUs": for explanations

// The id of this machine's CPU, measured by the host probe (core/hw/host_probe) and added to the
// catalog after every file: the one spelling of "host".
inline constexpr const char* kHostDeviceId = "host";

// The price a device is rented at: its file's usd_per_hour_on_demand (false) or
// usd_per_hour_preemptible (true).
inline constexpr util::NameTable<bool, 2> kPriceKindNames{{{{false, "on-demand"}, {true, "preemptible"}}}};

// --- traits: how a device computes, launches and fuses ------------------------------------
// What the cost models ask of a device beyond its figures. Each kind has defaults (a GPU:
// SIMT cores, tensor cores where its peaks say, kernels launched one by one; a TPU: systolic
// matrix units running one XLA-compiled program per step, one replica per core); a device
// file may state its own (keys matrix_unit, launch_model, fusion, replicas), so a new kind of
// accelerator is a file, not code.
enum class MatrixUnit { Vector, Simt, Systolic };
enum class LaunchModel { Inline, PerKernel, CompiledProgram };
enum class FusionRule { AsStack, Compiler };
enum class ReplicaRule { PerDevice, PerCore };
inline constexpr util::NameTable<MatrixUnit, 3> kMatrixUnits{
    {{{MatrixUnit::Vector, "vector"}, {MatrixUnit::Simt, "simt"}, {MatrixUnit::Systolic, "systolic"}}}};
inline constexpr util::NameTable<LaunchModel, 3> kLaunchModels{{{{LaunchModel::Inline, "inline"},
                                                                  {LaunchModel::PerKernel, "per-kernel"},
                                                                  {LaunchModel::CompiledProgram, "compiled-program"}}}};
inline constexpr util::NameTable<FusionRule, 2> kFusionRules{
    {{{FusionRule::AsStack, "as-stack"}, {FusionRule::Compiler, "compiler"}}}};
inline constexpr util::NameTable<ReplicaRule, 2> kReplicaRules{
    {{{ReplicaRule::PerDevice, "per-device"}, {ReplicaRule::PerCore, "per-core"}}}};

struct DeviceTraits {
  // vector: CPU SIMD lanes; simt: GPU cores, with tensor cores where the precision's peak is
  // above the fp32 one; systolic: weight-stationary matrix units (TPU MXU), which have no fp32
  // or fp16 path of their own (fp32 and fp16 matmuls run as bf16 passes).
  MatrixUnit matrixUnit = MatrixUnit::Simt;
  // inline: ops are function calls on the host's threads (their dispatch adds); per-kernel: the
  // host launches each kernel asynchronously (its launch overlaps running kernels, and a kernel
  // takes at least a few microseconds); compiled-program: the step is one compiled program
  // (XLA): no per-kernel launch, no autocast casts.
  LaunchModel launch = LaunchModel::PerKernel;
  // compiler: its compiler fuses element-wise work, matmul epilogues and attention whatever the
  // stack's figures say; as-stack: the stack's fuses_elementwise / fuses_epilogues /
  // fused_attention decide.
  FusionRule fusion = FusionRule::AsStack;
  // per-core: each core of a board runs its own data-parallel replica (a TPU v2/v3 board's 8
  // TensorCores); per-device: one replica per device.
  ReplicaRule replicas = ReplicaRule::PerDevice;
};
DeviceTraits defaultTraits(DeviceKind kind);

// Provenance of one figure of a device file: which key, where it comes from, and when.
struct SourcedValue {
  std::string key;   // device-file key, e.g. "peak_tflops_fp32"
  std::string ref;   // the document (or "fitted on calibration.csv ...")
  std::string date;  // when the figure was published or valid, e.g. "2018-04"
};

// The device-file key of the software figures fitted on a user's runs.
inline constexpr const char* kCalibratedSoftware = "calibrated_software";

struct DeviceSpec;
// The hardware generation a figure or an error band is kept for: the file's generation, else its id.
std::string generationOf(const DeviceSpec& d);

struct DeviceSpec {
  std::string id;             // "v100", "tpu-v3-8", "cpu-skylake", "host"
  std::string name;           // "NVIDIA Tesla V100 SXM2 16 GB"
  DeviceKind kind = DeviceKind::Gpu;
  // Traits the file states; traitsOf() fills the rest from the kind's defaults.
  std::optional<MatrixUnit> matrixUnit;
  std::optional<LaunchModel> launchModel;
  std::optional<FusionRule> fusion;
  std::optional<ReplicaRule> replicaRule;
  int releaseYear = 0;        // for ordering the catalog (0 = not given)
  std::string generation;     // "volta", "tpu-v3", ... (hardwareGenerations()); empty: its kind's
                              // figures in every stack
  // Compute: peak dense FLOP/s per precision for ONE unit (one GPU die, one TPU board,
  // one vCPU for scalable CPUs).
  std::optional<double> peakTflopsFp32, peakTflopsTf32, peakTflopsFp16, peakTflopsBf16, peakTflopsFp8, peakTflopsFp4;
  double memGib = 0;                 // per unit (CPU: per vCPU)
  double memBandwidthGBps = 0;       // per unit (CPU: whole socket shared; see cpu model)
  std::optional<double> interconnectGBps;  // per device, for all-reduce between devices
  // ... the engine of the simulator adds fields it needs (matrix unit tile, launch overhead,
  // compile seconds, host cores, input pipeline rate, vCPU scaling); see below.
  std::optional<double> usdPerHourOnDemand, usdPerHourPreemptible;
  std::string priceDate, source, notes;
  std::string priceSeller;           // who sells the on-demand price: "hyperscaler", "neocloud", ...
  // Power of one unit (GPU board, TPU board; absent for scalable CPUs): the published board
  // power (TDP) and, where one is published, the typical draw while training.
  std::optional<double> boardPowerWatts, trainingPowerWatts;
  std::string filePath;              // where it was loaded from

  // --- architecture, for the utilisation models ------------------------------------------
  int coresPerDevice = 1;                 // TPU board: 8 TensorCores, one replica each
  int chipsPerDevice = 1;                 // accelerator chips in one unit (a TPU board: 4 or 8); the
                                          // LLM planner shards over chips
  std::optional<int> computeUnits;        // GPU: streaming multiprocessors
  std::optional<int> matrixTile;          // edge of the matrix unit / GEMM tile (TPU MXU 128)
  std::optional<double> vectorTflopsFp32; // rate outside the matrix units (depthwise, elementwise)
  std::optional<double> hostLinkGBps;     // host -> device (PCIe, TPU infeed)
  std::optional<double> allreduceLatencySeconds;  // per ring hop
  // A multi-device run spans nodes of this many devices (DGX-1: 8 V100s); between nodes the
  // gradients cross the network at internodeGBps per device (the node's NICs shared out).
  std::optional<int> devicesPerNode;
  std::optional<double> internodeGBps;

  // --- scalable CPUs (kind == Cpu): figures above are per vCPU ---------------------------
  int vcpusDefault = 0;                   // used when the configuration says 0
  int vcpusMax = 0;                       // largest machine shape offered
  int vcpusPerCore = 2;                   // hyper-threads per physical core
  int coresPerSocket = 0;                 // NUMA: threads beyond one socket cross QPI/UPI
  std::optional<double> memBandwidthPerCoreGBps;  // what one core can pull (socket: memBandwidthGBps)

  // --- the host that feeds the device ----------------------------------------------------
  std::optional<int> hostVcpus;                      // per device

  // --- the software that ran on it: only a measured device (host) or one calibrated on the
  // user's runs (device-file key "calibrated_software", accellab-cli calibrate) carries its own;
  // they override the stack's. Every other device takes these from the software stack chosen
  // with it (resources/stacks).
  SoftwareFigures measuredSoftware;

  // --- measured hosts ----------------------------------------------------------------------
  std::string vectorIsa;   // "avx512", "avx2", ... (host only)
  bool measured = false;   // figures measured on this machine (host), not typed in

  std::vector<SourcedValue> sources;  // one per figure set in the file

  // Provenance of a device-file key; nullptr when the file gives none.
  const SourcedValue* sourceOf(const std::string& key) const;
};

// The device's traits: what its file states over its kind's defaults.
DeviceTraits traitsOf(const DeviceSpec& spec);

// The device's dense peak at precision `p` (TFLOP/s per unit); nullopt when the device has no
// such units (e.g. fp32 on a TPU, fp16 tensor cores on a K80).
inline std::optional<double> peakTflops(const DeviceSpec& spec, util::Precision p) {
  switch (p) {
    case util::Precision::FP32: return spec.peakTflopsFp32;
    case util::Precision::TF32: return spec.peakTflopsTf32;
    case util::Precision::FP16: return spec.peakTflopsFp16;
    case util::Precision::BF16: return spec.peakTflopsBf16;
    case util::Precision::FP8: return spec.peakTflopsFp8;
    case util::Precision::FP4: return spec.peakTflopsFp4;
  }
  return std::nullopt;
}

// The hardware generations a device file's `generation` and a stack's selectors may name.
const std::vector<std::string>& hardwareGenerations();
bool isHardwareGeneration(const std::string& name);
std::string hardwareGenerationList();  // comma-separated, for error messages

// The kinds of seller a device file's `price_seller` may name (hyperscaler, neocloud,
// marketplace, reserved).
const std::vector<std::string>& priceSellers();
bool isPriceSeller(const std::string& name);
std::string priceSellerList();

// Checks the invariants a parsed spec must hold (positive bandwidths, a peak, a fraction in
// (0, 1], ...). Throws core::util::Error naming `spec.filePath` (or id) and the key.
void validate(const DeviceSpec& spec);

inline std::string generationOf(const DeviceSpec& d) { return d.generation.empty() ? d.id : d.generation; }

}  // namespace core::hw
