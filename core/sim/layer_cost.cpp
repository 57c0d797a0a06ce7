#include "core/sim/layer_cost.h"

#include <algorithm>
#include <cmath>

#include "core/sim/cpu_scaling.h"
#include "core/sim/utilization.h"

namespace core::sim {
namespace {

// Direct (non-GEMM) kernels such as depthwise convolutions reach about a quarter of what a
// register-blocked GEMM gets from the same vector units.
constexpr double kVectorPathEfficiency = 0.25;

double shapeUtilization(const GemmShape& g, const ExecutionUnit& u) {
  return u.systolic ? systolicUtilization(g, u.tile) : tiledUtilization(g, u.tile, u.parallelUnits, u.tileMin);
}

}  // namespace

int opsPerPass(nn::LayerKind kind, Pass pass) {
  // Ops of a Keras layer in a TensorFlow graph (the stacks of the published measurements).
  const bool fwd = pass == Pass::Forward;
  switch (kind) {
    case nn::LayerKind::Dense:
    case nn::LayerKind::Conv2D:
    case nn::LayerKind::DepthwiseConv2D: return fwd ? 3 : 4;  // GEMM, bias, activation; their grads
    case nn::LayerKind::BatchNorm: return fwd ? 4 : 5;        // moments, normalise, scale, running stats
    case nn::LayerKind::Dropout: return fwd ? 4 : 1;          // random, add, floor, multiply; mask grad
    case nn::LayerKind::Flatten: return 0;                    // a reshape: no kernel
    case nn::LayerKind::LSTM: return 2;                       // input projection, output gather
    default: return fwd ? 1 : 1;                              // elementwise / pooling / merge
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
  // Weight gradient: (M x K) over the pixels of the batch. Input gradient: a transposed
  // convolution, (in channels x pixels) over out channels x kernel window (dense: K x N over M).
  const double wgrad = shapeUtilization({m, k * groups, n}, u);
  if (!l.inputGradient) return wgrad;
  const bool conv = l.kind == nn::LayerKind::Conv2D || l.kind == nn::LayerKind::DepthwiseConv2D;
  const double inPerGroup = conv && l.inChannels > 0 ? std::max(1.0, l.inChannels / groups) : k;
  const double window = std::max(1.0, k / inPerGroup);
  double dgrad = shapeUtilization({inPerGroup, n * groups, m * window}, u);
  // Fewer input channels than the narrowest tile (a first layer on RGB or grey images): the
  // libraries compute that gradient with a direct kernel on the vector units instead.
  if (inPerGroup < u.tileMin) dgrad = std::max(dgrad, kVectorPathEfficiency);
  return 2.0 / (1.0 / std::max(dgrad, 1e-9) + 1.0 / std::max(wgrad, 1e-9));  // equal FLOPs: harmonic mean
}

int opThreads(double flops, double bytes, double gemmOutputs, bool gemm, const ExecutionUnit& u) {
  if (u.kind != hw::DeviceKind::Cpu) return 1;
  if (!gemm) return threadsForBlocks(bytes / kElementwiseGrainBytes, u.vcpus);
  return threadsForBlocks(std::min(flops / kGemmGrainFlops, std::ceil(gemmOutputs / kParallelBlockOutputs)), u.vcpus);
}

double perOpSeconds(const ExecutionUnit& u, int threads) {
  return u.opSeconds + u.syncSecondsPerThread * std::max(0, threads - 1);
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
  if (u.fusesElementwise && l.fusable()) return {};  // fused into the op before it
  const double replicas = std::max(1, u.replicas);
  const double samples = samplesPerDevice / replicas;
  const double peak = u.peakFlops / replicas, vec = u.vectorFlops / replicas, bw = u.memBytesPerSecond / replicas;
  const bool fwd = pass == Pass::Forward;
  // Without an input gradient a GEMM layer's backward pass is its weight gradient alone.
  const double backward =
      l.inputGradient || !l.isGemm() ? l.backwardFlops : std::max(0.0, l.backwardFlops - l.forwardFlops);
  const double flops = (fwd ? l.forwardFlops : backward) * samples;
  if (!fwd && flops == 0 && l.params == 0) return {};  // nothing to differentiate
  const double act = u.activationBytes / 4.0;
  double bytes = fwd ? l.forwardBytes * samples * act + l.weightBytes * act
                     : 2.0 * l.forwardBytes * samples * act + l.weightBytes * (act + 1.0);
  // NCHW on tensor cores: the input and output go to NHWC and back, each read and written once
  // more (forward); the backward converts the output gradient, the input for the weight gradient
  // and the input gradient: two kernels forward, three backward.
  const bool transposes = u.nchwTransposes && l.kind == nn::LayerKind::Conv2D && l.groups <= 1;
  if (transposes) bytes += (fwd ? 2.0 : 3.0) * l.forwardBytes * samples * act;
  double rate = vec * u.gemmEfficiency;
  if (l.isGemm()) {
    const double matrix = peak * u.gemmEfficiency * gemmUtilization(l, pass, samples, u);
    // Grouped (depthwise) convolutions have dedicated direct kernels on the vector units; with
    // separate matrix units (TPU MXU, tensor cores) any shape they handle badly can also run
    // there. Otherwise the GEMM is the only path.
    const bool direct = l.groups > 1 || peak > vec;
    const double directEfficiency =
        u.depthwiseEfficiency > 0 ? u.depthwiseEfficiency : u.gemmEfficiency * kVectorPathEfficiency;
    rate = direct ? std::max(matrix, vec * directEfficiency) : matrix;
  }
  const double outputs = static_cast<double>(l.gemmM) * static_cast<double>(l.gemmN) * samples;
  const double perOp = perOpSeconds(u, opThreads(flops, bytes, outputs, l.isGemm(), u));
  const int ops = opsPerPass(l.kind, pass) + (transposes ? (fwd ? 2 : 3) : 0);
  return withDispatch(roofline(flops, rate, bytes, bw), ops, perOp, u.asyncLaunch);
}

}  // namespace core::sim
