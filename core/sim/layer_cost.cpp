#include "core/sim/layer_cost.h"

#include <algorithm>

#include "core/sim/utilization.h"

namespace core::sim {
namespace {

// Direct (non-GEMM) kernels such as depthwise convolutions reach about a quarter of what a
// register-blocked GEMM gets from the same vector units.
constexpr double kVectorPathEfficiency = 0.25;

double shapeUtilization(const GemmShape& g, const ExecutionUnit& u) {
  return u.systolic ? systolicUtilization(g, u.tile) : tiledUtilization(g, u.tile, u.parallelUnits);
}

}  // namespace

int opsPerPass(nn::LayerKind kind, Pass pass) {
  const bool fwd = pass == Pass::Forward;
  switch (kind) {
    case nn::LayerKind::Dense:
    case nn::LayerKind::Conv2D:
    case nn::LayerKind::DepthwiseConv2D: return fwd ? 2 : 3;  // GEMM + bias; dgrad, wgrad, bias grad
    case nn::LayerKind::BatchNorm: return fwd ? 2 : 3;        // moments + normalise; grads
    case nn::LayerKind::Flatten: return 0;                    // a reshape: no kernel
    case nn::LayerKind::LSTM: return 2;                       // input projection, output gather
    default: return 1;                                        // elementwise / pooling / merge
  }
}

double gemmUtilization(const LayerWork& l, Pass pass, double samples, const ExecutionUnit& u) {
  if (!l.isGemm()) return 1.0;
  const double groups = std::max(1, l.groups);
  const double m = std::max(1.0, static_cast<double>(l.gemmM) / groups);
  const double k = static_cast<double>(l.gemmK);
  const double n = static_cast<double>(l.gemmN) * std::max(1.0, samples);
  if (u.systolic) return shapeUtilization({m, n, k}, u);
  if (pass == Pass::Forward) return shapeUtilization({m, n * groups, k}, u);
  const double dgrad = shapeUtilization({k, n * groups, m}, u);
  const double wgrad = shapeUtilization({m, k * groups, n}, u);
  return 2.0 / (1.0 / std::max(dgrad, 1e-9) + 1.0 / std::max(wgrad, 1e-9));  // equal FLOPs: harmonic mean
}

LayerTime roofline(double flops, double flopsPerSecond, double bytes, double bytesPerSecond) {
  LayerTime t;
  const double c = flops > 0 ? flops / flopsPerSecond : 0.0;
  const double m = bytes > 0 ? bytes / bytesPerSecond : 0.0;
  if (c >= m) t.compute = c;
  else t.memory = m;
  return t;
}

LayerTime withDispatch(LayerTime t, double ops, double opSeconds, bool async) {
  const double dispatch = ops * opSeconds;
  if (!async) {
    t.overhead += dispatch;
    return t;
  }
  const double work = t.compute + t.memory;
  if (dispatch > work) {  // launch-bound: the device waits for the next op
    t.compute = t.memory = 0;
    t.overhead += dispatch;
  }
  return t;
}

LayerTime layerTime(const LayerWork& l, Pass pass, double samplesPerDevice, const ExecutionUnit& u) {
  const double replicas = std::max(1, u.replicas);
  const double samples = samplesPerDevice / replicas;
  const double peak = u.peakFlops / replicas, vec = u.vectorFlops / replicas, bw = u.memBytesPerSecond / replicas;
  const bool fwd = pass == Pass::Forward;
  const double flops = (fwd ? l.forwardFlops : l.backwardFlops) * samples;
  const double act = u.activationBytes / 4.0;
  const double bytes = fwd ? l.forwardBytes * samples * act + l.weightBytes * act
                           : 2.0 * l.forwardBytes * samples * act + l.weightBytes * (act + 1.0);
  double rate = vec * u.gemmEfficiency;
  if (l.isGemm()) {
    const double matrix = peak * u.gemmEfficiency * gemmUtilization(l, pass, samples, u);
    rate = std::max(matrix, vec * u.gemmEfficiency * kVectorPathEfficiency);
  }
  return withDispatch(roofline(flops, rate, bytes, bw), opsPerPass(l.kind, pass), u.opSeconds, u.asyncLaunch);
}

}  // namespace core::sim
