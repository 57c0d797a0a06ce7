#pragma once
// The `host` device: this machine, measured rather than typed in. Cores and vector ISA are
// detected; GEMM GFLOP/s (the engine's kernel, one GEMM per thread; fp32, and bf16 where the CPU
// multiplies bf16 in hardware) and memory bandwidth (a stream-like copy) come from a short micro-benchmark that runs once and is cached as JSON in
// userDataDir()/host.json.
#include <string>

#include "core/hw/device_spec.h"

namespace core::hw {

struct HostMeasurement {
  std::string cpuModel;       // /proc/cpuinfo "model name"
  int vcpus = 1;              // logical CPUs the process may use
  int cores = 1;              // physical cores
  std::string vectorIsa;      // best ISA of the CPU: "avx512", "avx2", "avx", "sse4", "generic"
  std::string buildIsa;       // ISA this build of AccelLab was compiled for
  double gemmGflopsPerThread = 0;  // fp32, one thread alone
  double gemmGflopsAll = 0;        // fp32, every vCPU running a GEMM at once
  // bf16 (AMX tiles or AVX512_BF16 dot products), every vCPU at once: the fp32 rate times the
  // bf16/fp32 ratio on a narrow, layer-like product (conversion included); 0 where the GEMM path
  // has no bf16 hardware (a bf16 run then costs what fp32 does: the engine emulates it).
  double gemmBf16GflopsAll = 0;
  std::string gemmPath;            // the GEMM kernels it was measured with: "avx512-bf16", "avx2", ...
  double memBandwidthGBps = 0;     // copy bandwidth (read + write bytes) with every vCPU
  double memGib = 0;               // RAM
  std::string measuredAt;          // UTC date, "YYYY-MM-DD"
  // Its own noise: the all-vCPU GEMM measured in several trials, (best - worst) / best; and
  // the share of the vCPUs other processes kept busy while it ran (/proc/stat less this
  // process's own CPU time). A share above kHostBusyShare means it was measured under load.
  double gemmSpread = 0;
  double othersBusyShare = 0;
  double measuredAtUnix = 0;       // seconds since the epoch (when to retake one under load)
  bool underLoad() const;
  // One line: "GEMM spread 4% over 5 trials; other processes used 3% of the vCPUs".
  std::string noiseText() const;
};

// Other processes using more than this share of the vCPUs while the host was measured make
// the measurement one taken under load: flagged, and measured again at the first start at
// least kHostRetakeSeconds later (a busy machine is not measured over and over while busy).
inline constexpr double kHostBusyShare = 0.15;
inline constexpr double kHostRetakeSeconds = 600;

// The share of `cpus` CPUs that other processes kept busy over `wallSeconds`: the CPUs' busy
// time less this process's own, clamped to [0, 1] (pure; measureHost reads /proc/stat).
double othersBusyShare(double busySeconds, double ownSeconds, double wallSeconds, int cpus);

// Runs the micro-benchmarks (about a second on two cores).
HostMeasurement measureHost();
// When to measure rather than read the cache. Any mode measures when the cache is missing,
// broken or of another CPU.
enum class HostMeasure {
  RetakeUnderLoad,  // a start: also when the cache was taken under load kHostRetakeSeconds ago or more
  Cached,           // a reload while running (the GUI thread): the cache, flagged if under load
  Now,              // Re-measure This Machine, --remeasure
};

// Reads `cachePath` when it holds a measurement of this CPU (same model and vCPU count) and
// `mode` allows; otherwise measures and writes it (atomically). A broken cache is re-measured,
// not fatal. One call at a time (a mutex): a worker's measurement and a reload do not overlap.
HostMeasurement cachedHostMeasurement(const std::string& cachePath, HostMeasure mode = HostMeasure::RetakeUnderLoad);
// The `host` device spec from a measurement (pure).
DeviceSpec hostSpecFromMeasurement(const HostMeasurement& m);
// cachedHostMeasurement(userDataDir()/host.json) -> spec. `remeasure`: ignore the cache
// (e.g. it was measured while the machine was busy) and write a fresh one.
DeviceSpec hostDeviceSpec(HostMeasure mode = HostMeasure::RetakeUnderLoad);

}  // namespace core::hw
