#include "core/sim/cpu_scaling.h"

#include <algorithm>
#include <cmath>

#include "core/util/error.h"

namespace core::sim {

CpuResources cpuResources(const hw::DeviceSpec& d, const hw::SoftwareFigures& sw, double peakTflopsPerVcpu, int vcpus,
                          CpuBuild build) {
  if (vcpus < 1 || (d.vcpusMax > 0 && vcpus > d.vcpusMax))
    throw util::FieldError("vcpus", std::to_string(vcpus) + " is outside [1, " + std::to_string(std::max(1, d.vcpusMax)) +
                      "] for device '" + d.id + "'");
  CpuResources r;
  r.vcpus = vcpus;
  const int perCore = std::max(1, d.vcpusPerCore);
  r.cores = std::max(1, (vcpus + perCore - 1) / perCore);
  const int perSocket = d.coresPerSocket > 0 ? d.coresPerSocket : r.cores;
  r.sockets = std::max(1, (r.cores + perSocket - 1) / perSocket);
  const double buildFactor = build == CpuBuild::Pip ? sw.pipBuildFactor.value_or(1.0) : 1.0;
  r.flops = peakTflopsPerVcpu * 1e12 * vcpus * buildFactor;
  const double socketBw = d.memBandwidthGBps * 1e9 * r.sockets;
  const double coreBw = d.memBandwidthPerCoreGBps ? *d.memBandwidthPerCoreGBps * 1e9 * r.cores : socketBw;
  r.rawMemBytesPerSecond = std::min(socketBw, coreBw);
  r.memBytesPerSecond = r.rawMemBytesPerSecond * sw.memEfficiency.value_or(0.7);
  const double numa = r.sockets > 1 ? sw.crossSocketSyncFactor.value_or(kDefaultCrossSocketSyncFactor) : 1.0;
  r.syncSecondsPerThread = sw.syncSecondsPerThread.value_or(0.0) * numa;
  return r;
}

int threadsForBlocks(double blocks, int vcpus) {
  if (!(blocks >= 1)) return 1;
  return static_cast<int>(std::min<double>(std::max(1, vcpus), std::ceil(blocks)));
}

}  // namespace core::sim
