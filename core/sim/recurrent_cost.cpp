#include "core/sim/recurrent_cost.h"

#include <algorithm>

#include "core/sim/utilization.h"

namespace core::sim {

int opsPerRecurrentStep(Pass pass) { return pass == Pass::Forward ? 30 : 60; }

LayerTime recurrentLayerTime(const LayerWork& l, Pass pass, double samplesPerDevice, const ExecutionUnit& u) {
  const double replicas = std::max(1, u.replicas);
  const double samples = samplesPerDevice / replicas;
  const double peak = u.peakFlops / replicas, bw = u.memBytesPerSecond / replicas;
  const bool fwd = pass == Pass::Forward;
  const double chains = std::max(1, l.directions);
  const double steps = std::max(1, l.sequentialSteps);
  const double perStep = steps * chains;
  const double act = u.activationBytes / 4.0;

  // One time step of one direction: a (gates x (in + hidden)) GEMM over the batch.
  LayerWork step = l;
  step.forwardFlops = l.forwardFlops / perStep;
  step.backwardFlops = l.backwardFlops / perStep;
  step.gemmN = 1;
  const double flops = (fwd ? step.forwardFlops : step.backwardFlops) * samples;
  const double weightBytes = l.weightBytes / chains;
  const double actBytes = l.forwardBytes / perStep * samples * act;
  const double bytes = fwd ? actBytes + weightBytes * act : 2.0 * actBytes + weightBytes * (act + 1.0);
  const double util = l.isGemm() ? gemmUtilization(step, pass, samples, u) : 1.0;
  const double rate = std::max(peak * u.gemmEfficiency * util, 1.0);
  // The step's GEMM spreads over its tiles' threads; its elementwise ops are too small to split.
  const double gemmOp = perOpSeconds(u, opThreads(flops, bytes, static_cast<double>(l.gemmM) * samples, l.isGemm(), u));
  const double perOp = (gemmOp + (opsPerRecurrentStep(pass) - 1) * u.opSeconds) / opsPerRecurrentStep(pass);
  const LayerTime one = withDispatch(roofline(flops, rate, bytes, bw), opsPerRecurrentStep(pass), perOp, u.asyncLaunch);

  LayerTime total;
  total.compute = one.compute * perStep;
  total.memory = one.memory * perStep;
  total.overhead = one.overhead * perStep + opsPerPass(l.kind, pass) * u.opSeconds;
  return total;
}

LayerTime anyLayerTime(const LayerWork& l, Pass pass, double samplesPerDevice, const ExecutionUnit& u) {
  return l.isRecurrent() ? recurrentLayerTime(l, pass, samplesPerDevice, u) : layerTime(l, pass, samplesPerDevice, u);
}

}  // namespace core::sim
