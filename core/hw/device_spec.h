#pragma once
// CONTRACT: one device of the hardware catalog as a plain struct (Timeloop/Habitat habit:
// hardware as data). Parsed from resources/devices/<id>.json by core/hw/device_catalog.
// Units are in the names. std::optional = "not set", which differs from zero.
#include <optional>
#include <string>
#include <vector>

namespace core::hw {

enum class DeviceKind { Cpu, Gpu, Tpu };

struct SourcedValue;  // see device_catalog.h for provenance records

struct DeviceSpec {
  std::string id;             // "v100", "tpu-v3-8", "cpu-skylake", "host"
  std::string name;           // "NVIDIA Tesla V100 SXM2 16 GB"
  DeviceKind kind = DeviceKind::Gpu;
  // Compute: peak dense FLOP/s per precision for ONE unit (one GPU die, one TPU board,
  // one vCPU for scalable CPUs).
  std::optional<double> peakTflopsFp32, peakTflopsTf32, peakTflopsFp16, peakTflopsBf16;
  double memGib = 0;                 // per unit (CPU: per vCPU)
  double memBandwidthGBps = 0;       // per unit (CPU: whole socket shared; see cpu model)
  std::optional<double> interconnectGBps;  // per device, for all-reduce between devices
  // ... the engine of the simulator adds fields it needs (matrix unit tile, launch overhead,
  // compile seconds, host cores, input pipeline rate, vCPU scaling); see device_catalog.h.
  std::optional<double> usdPerHourOnDemand, usdPerHourPreemptible;
  std::string priceDate, source, notes;
  std::string filePath;              // where it was loaded from
};

}  // namespace core::hw
