#pragma once
// How a scalable cloud CPU behaves at a given vCPU count: compute grows with the vCPUs (two
// per physical core share its vector units), memory bandwidth grows with cores until the
// socket saturates, and every parallel op pays a synchronisation cost that grows with the
// thread count and doubles once threads span two sockets (NUMA). Together they make the
// speed-up flatten and reverse at high counts, as published for 64 vs 32 vCPUs.
#include "core/hw/device_spec.h"
#include "core/hw/software_figures.h"
#include "core/sim/sim_report.h"

namespace core::sim {

struct CpuResources {
  int vcpus = 1;
  int cores = 1;
  int sockets = 1;
  double flops = 0;             // FLOP/s at peak, all vCPUs, after the build factor
  double memBytesPerSecond = 0; // effective (mem_efficiency applied)
  double rawMemBytesPerSecond = 0;  // the hardware's copy bandwidth for these vCPUs (no efficiency)
  double syncSecondsPerThread = 0;  // per parallel op, per thread beyond the first (NUMA incl.)
};

// Threads one op keeps busy: its independent blocks (GEMM tiles, or chunks of an elementwise
// pass), at most the vCPUs. Small ops stay on a few threads and pay no wider barrier.
int threadsForBlocks(double blocks, int vcpus);

// Cross-socket barriers cost more than a local one (UPI round trip vs L3); the stack's
// cross_socket_sync_factor says how much, else this default.
inline constexpr double kDefaultCrossSocketSyncFactor = 2.0;

// `peakTflopsPerVcpu` is the precision's peak per vCPU. Throws naming --vcpus when the count
// is outside [1, vcpus_max].
CpuResources cpuResources(const hw::DeviceSpec& d, const hw::SoftwareFigures& sw, double peakTflopsPerVcpu, int vcpus,
                          CpuBuild build);

}  // namespace core::sim
