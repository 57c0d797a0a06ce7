#pragma once
// The `host` device: this machine, measured rather than typed in. Cores and vector ISA are
// detected; GEMM GFLOP/s (the engine's kernel, one GEMM per thread) and memory bandwidth (a stream-like
// copy) come from a short micro-benchmark that runs once and is cached as JSON in
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
  double memBandwidthGBps = 0;     // copy bandwidth (read + write bytes) with every vCPU
  double memGib = 0;               // RAM
  std::string measuredAt;          // UTC date, "YYYY-MM-DD"
};

// Runs the micro-benchmarks (about a second on two cores).
HostMeasurement measureHost();
// Reads `cachePath` when it holds a measurement of this CPU (same model and vCPU count);
// otherwise measures and writes it (atomically). A broken cache is re-measured, not fatal.
HostMeasurement cachedHostMeasurement(const std::string& cachePath, bool remeasure = false);
// The `host` device spec from a measurement (pure).
DeviceSpec hostSpecFromMeasurement(const HostMeasurement& m);
// cachedHostMeasurement(userDataDir()/host.json) -> spec. `remeasure`: ignore the cache
// (e.g. it was measured while the machine was busy) and write a fresh one.
DeviceSpec hostDeviceSpec(bool remeasure = false);

}  // namespace core::hw
