#pragma once
// The time of one layer's forward or backward pass on a resolved device: a roofline (compute
// at the utilisation the GEMM shape allows vs bytes at the effective bandwidth) plus the
// framework's per-op dispatch (GPU/TPU launches overlap running kernels, CPU dispatch adds).
// Recurrent layers are costed step by step in recurrent_cost.h.
#include "core/sim/execution_unit.h"
#include "core/sim/workload.h"

namespace core::sim {

enum class Pass { Forward, Backward };

struct LayerTime {
  double compute = 0;   // seconds bound by arithmetic
  double memory = 0;    // seconds bound by bytes
  double overhead = 0;  // seconds bound by dispatch / launches
  double seconds() const { return compute + memory + overhead; }
};

// Framework ops (kernels) one layer launches per pass, outside recurrent steps.
int opsPerPass(nn::LayerKind kind, Pass pass);

// Average matrix-unit utilisation of the layer's GEMM(s) in that pass (1 for non-GEMMs), for
// `samples` samples on one replica.
double gemmUtilization(const LayerWork& l, Pass pass, double samples, const ExecutionUnit& u);

// Compute and memory seconds of `flops` and `bytes` on one replica, as a roofline: the larger
// binds, and is returned in its slot (the other is 0).
LayerTime roofline(double flops, double flopsPerSecond, double bytes, double bytesPerSecond);

// CPU: threads one op keeps busy. The thread pool hands each thread at least a grain of work
// (about 1 MFLOP, or 128 KB for elementwise passes: roughly 15 us), and a GEMM is shared out
// in output blocks of kParallelBlockOutputs (64 x 64), so small ops stay on a few threads and
// pay no wide barrier. 1 on other devices.
inline constexpr double kGemmGrainFlops = 1e6;
inline constexpr double kParallelBlockOutputs = 64.0 * 64.0;
inline constexpr double kElementwiseGrainBytes = 128.0 * 1024;
int opThreads(double flops, double bytes, double gemmOutputs, bool gemm, const ExecutionUnit& u);
// Dispatch seconds of one op that runs on `threads` threads.
double perOpSeconds(const ExecutionUnit& u, int threads);

// Adds `ops` dispatches of `opSeconds` to `t`: asynchronously launched ops hide behind the
// work they launch (only an excess shows, as overhead); synchronous ones add.
LayerTime withDispatch(LayerTime t, double ops, double opSeconds, bool async);

// One pass of a non-recurrent layer for `samplesPerDevice` samples (split over the device's
// replicas).
LayerTime layerTime(const LayerWork& l, Pass pass, double samplesPerDevice, const ExecutionUnit& u);

}  // namespace core::sim
