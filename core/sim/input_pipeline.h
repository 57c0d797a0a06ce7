#pragma once
// The input pipeline on the host: JPEG datasets are decoded and augmented per image on the
// host's vCPUs; raw arrays (IDX, CIFAR binary, token ids) only need copying; synthetic data is
// generated on the device and costs nothing. The batch then crosses the host link (PCIe,
// TPU infeed). Both stages run ahead of the device (prefetch), so they cap throughput rather
// than add to the step.
#include "core/sim/execution_unit.h"
#include "core/sim/workload.h"

namespace core::sim {

// Copying pre-decoded arrays: bytes per second per host vCPU.
inline constexpr double kRawCopyBytesPerSecondPerVcpu = 2e9;

// Host seconds per sample on one vCPU.
double hostSecondsPerSample(const DataFeed& f, const ExecutionUnit& u);

// Seconds the input pipeline needs per step for `perDeviceBatch` samples of one device (each
// device has its own share of host vCPUs and its own link).
double inputSecondsPerStep(const DataFeed& f, const ExecutionUnit& u, double perDeviceBatch);

}  // namespace core::sim
