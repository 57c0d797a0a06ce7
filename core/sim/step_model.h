#pragma once
// One training step on one configuration, composed from the cost models: every layer's
// forward and backward pass (layer_cost, recurrent_cost), the optimizer update, the fixed
// per-step overhead, the exposed all-reduce (data_parallel) and the input pipeline
// (input_pipeline), which runs ahead and caps the step from below.
#include "core/sim/execution_unit.h"
#include "core/sim/layer_cost.h"
#include "core/sim/sim_report.h"
#include "core/sim/workload.h"

namespace core::sim {

struct StepEstimate {
  LayerTime forward, backward, optimizer;
  double stepOverheadSeconds = 0;
  double allReduceSeconds = 0;       // full ring time
  double communicationSeconds = 0;   // exposed part
  double inputSeconds = 0;           // pipeline time per step (overlapped)
  double deviceSeconds = 0;          // forward + backward + optimizer + overhead + communication
  double stepSeconds = 0;            // max(device, input)
  double evalStepSeconds = 0;        // forward only, for a validation pass
  double flopsPerDevice = 0;         // forward + backward FLOPs of one device's share
  int ops = 0;                       // ops dispatched per step
  std::vector<LayerSeconds> layers;  // per layer
  StepBreakdown breakdown() const;
  Bound bound() const;
};

// The optimizer update: an elementwise pass over every trainable parameter (Adam reads w, g,
// m, v and writes w, m, v: 28 bytes each), kOptimizerOpsPerTensor elementwise ops per
// parameter tensor (Keras 2 optimizers are unfused: moments, square, sqrt, divide, assigns).
inline constexpr int kOptimizerOpsPerTensor = 8;
LayerTime optimizerTime(const Workload& w, const ExecutionUnit& u);

// `perDeviceBatch` samples on each of `count` devices.
StepEstimate estimateStep(const Workload& w, const ExecutionUnit& u, double perDeviceBatch, int count,
                          bool perLayer = true);

// Extra seconds of the first epoch: graph construction / XLA compilation (fixed + per layer).
double firstEpochExtraSeconds(const Workload& w, const ExecutionUnit& u);

}  // namespace core::sim
