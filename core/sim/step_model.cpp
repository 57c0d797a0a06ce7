#include "core/sim/step_model.h"

#include <algorithm>

#include "core/sim/data_parallel.h"
#include "core/sim/input_pipeline.h"
#include "core/sim/recurrent_cost.h"

namespace core::sim {
namespace {

void accumulate(LayerTime& into, const LayerTime& t) {
  into.compute += t.compute;
  into.memory += t.memory;
  into.overhead += t.overhead;
}

}  // namespace

StepBreakdown StepEstimate::breakdown() const {
  StepBreakdown b;
  b.computeSeconds = forward.compute + backward.compute + optimizer.compute;
  b.memorySeconds = forward.memory + backward.memory + optimizer.memory;
  b.overheadSeconds = forward.overhead + backward.overhead + optimizer.overhead + stepOverheadSeconds;
  b.inputSeconds = inputSeconds;
  b.communicationSeconds = communicationSeconds;
  return b;
}

Bound StepEstimate::bound() const {
  const StepBreakdown b = breakdown();
  if (b.inputSeconds > deviceSeconds) return Bound::Input;
  Bound best = Bound::Compute;
  double most = b.computeSeconds;
  if (b.memorySeconds > most) best = Bound::Memory, most = b.memorySeconds;
  if (b.overheadSeconds > most) best = Bound::Overhead, most = b.overheadSeconds;
  if (b.communicationSeconds > most) best = Bound::Communication;
  return best;
}

LayerTime optimizerTime(const Workload& w, const ExecutionUnit& u) {
  const double params = static_cast<double>(w.params);
  const double replicas = std::max(1, u.replicas);
  // A compiling stack (XLA) fuses the whole update into one pass whatever the framework wrote.
  const double bytesPerParam = u.fusesElementwise ? kFusedAdamBytesPerParam : u.optimizerBytesPerParam;
  const LayerTime t =
      roofline(10.0 * params, u.vectorFlops / replicas, bytesPerParam * params, u.memBytesPerSecond / replicas);
  const double ops = static_cast<double>(w.paramTensors) * kOptimizerOpsPerTensor;
  return withDispatch(t, ops, u.opSeconds, u.asyncLaunch);
}

StepEstimate estimateStep(const Workload& w, const ExecutionUnit& u, double perDeviceBatch, int count,
                          bool perLayer) {
  StepEstimate s;
  if (perLayer) s.layers.reserve(w.layers.size());
  for (const auto& l : w.layers) {
    const LayerTime f = anyLayerTime(l, Pass::Forward, perDeviceBatch, u);
    const LayerTime b = anyLayerTime(l, Pass::Backward, perDeviceBatch, u);
    accumulate(s.forward, f);
    accumulate(s.backward, b);
    const int steps = l.isRecurrent() ? l.sequentialSteps * l.directions : 0;
    s.ops += opsPerPass(l.kind, Pass::Forward) + opsPerPass(l.kind, Pass::Backward) +
             steps * (opsPerRecurrentStep(Pass::Forward) + opsPerRecurrentStep(Pass::Backward));
    if (!perLayer) continue;
    LayerSeconds ls;
    ls.name = l.name;
    ls.kind = nn::layerKindName(l.kind);
    ls.forwardSeconds = f.seconds();
    ls.backwardSeconds = b.seconds();
    ls.utilization = gemmUtilization(l, Pass::Forward, perDeviceBatch / std::max(1, u.replicas), u);
    const double c = f.compute + b.compute, m = f.memory + b.memory, o = f.overhead + b.overhead;
    ls.bound = o > c && o > m ? Bound::Overhead : m > c ? Bound::Memory : Bound::Compute;
    s.layers.push_back(std::move(ls));
  }
  s.ops += static_cast<int>(w.paramTensors) * kOptimizerOpsPerTensor;
  s.optimizer = optimizerTime(w, u);
  s.stepOverheadSeconds = u.stepOverheadSeconds;
  const double gradientBytes = 4.0 * static_cast<double>(w.params);
  const double linkBw = u.interconnectBytesPerSecond > 0 ? u.interconnectBytesPerSecond : u.hostLinkBytesPerSecond;
  // Single-replica devices (GPUs) across nodes: NCCL's hierarchical all-reduce. TPU cores (and
  // one device's replicas) form one ring over every participant.
  const int replicas = std::max(1, u.replicas);
  s.allReduceSeconds = count > 1 && replicas == 1
                           ? hierarchicalAllReduceSeconds(gradientBytes, count, u.devicesPerNode, linkBw,
                                                          u.internodeBytesPerSecond, u.allreduceLatencySeconds)
                           : ringAllReduceSeconds(gradientBytes, std::max(1, count) * replicas, linkBw,
                                                  u.allreduceLatencySeconds);
  s.communicationSeconds = exposedCommunicationSeconds(s.allReduceSeconds, s.backward.seconds(), u.allReduceAfterBackward);
  s.inputSeconds = inputSecondsPerStep(w.feed, u, perDeviceBatch);
  s.deviceSeconds = s.forward.seconds() + s.backward.seconds() + s.optimizer.seconds() + s.stepOverheadSeconds +
                    s.communicationSeconds;
  s.stepSeconds = std::max(s.deviceSeconds, s.inputSeconds);
  s.evalStepSeconds = std::max(s.forward.seconds() + s.stepOverheadSeconds, s.inputSeconds);
  s.flopsPerDevice = (w.forwardFlops + w.backwardFlops) * perDeviceBatch;
  return s;
}

double firstEpochExtraSeconds(const Workload& w, const ExecutionUnit& u) {
  return u.compileSeconds + u.compileSecondsPerLayer * static_cast<double>(w.layers.size());
}

}  // namespace core::sim
