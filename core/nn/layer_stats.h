#pragma once
// What a layer tells the rest of AccelLab about itself: the simulator reads these numbers
// (and nothing else) to model a training step on hardware it cannot run. All figures are
// PER SAMPLE unless the name says otherwise, in fp32 units (4 bytes per element); the
// simulator rescales bytes for other precisions.
#include <cstdint>
#include <string>
#include <vector>

namespace core::nn {

// Per-sample tensor shape: images are (channels, height, width); vectors (features, 1, 1);
// sequences (features, steps, 1).
struct Shape {
  int c = 1;
  int h = 1;
  int w = 1;
  std::int64_t size() const { return static_cast<std::int64_t>(c) * h * w; }
  friend bool operator==(const Shape&, const Shape&) = default;
};

enum class LayerKind {
  Dense, Conv2D, DepthwiseConv2D, MaxPool2D, AvgPool2D, GlobalAvgPool, BatchNorm, Dropout,
  Flatten, Activation, Embedding, LSTM, Residual, Concat, Softmax, Other
};

const char* layerKindName(LayerKind k);

struct LayerStats {
  std::string name;            // unique within the network, e.g. "conv2d_3" or "block2/conv1"
  LayerKind kind = LayerKind::Other;
  Shape inShape;
  Shape outShape;
  std::int64_t params = 0;              // trainable parameters
  std::int64_t nonTrainableParams = 0;  // e.g. BatchNorm running mean/variance
  double forwardFlops = 0;   // per sample; a multiply-add counts as 2 FLOPs
  // Of forwardFlops, 2 x the multiply-adds of the layer's matrix products (convolutions, dense,
  // recurrent gates, attention's Q K^T and P V), per sample: the figure model cards and FLOP
  // counters quote; norms, activations and pooling are not in it.
  double productFlops = 0;
  double backwardFlops = 0;  // per sample; input gradient + weight gradient
  double forwardBytes = 0;   // per sample activation traffic: input read + output written
  double weightBytes = 0;    // per step: parameters read once (fp32)
  double savedBytes = 0;     // per sample activations kept for the backward pass
  // The layer as matrix multiplications: M x K weights times K x (N per sample x batch).
  // For convolutions M = out channels, K = in channels / groups x kh x kw, N = out pixels;
  // for dense M = units, K = inputs, N = 1; for LSTM one step's gates (4H x (in+H)), N = 1,
  // repeated sequentialSteps times. gemmM == 0 for layers that are not GEMMs.
  std::int64_t gemmM = 0;
  std::int64_t gemmK = 0;
  std::int64_t gemmN = 0;
  int gemmGroups = 1;         // depthwise convolutions: one small GEMM per channel
  int sequentialSteps = 1;    // recurrent layers: dependent steps that cannot run in parallel
  int directions = 1;         // bidirectional recurrent layers run two independent chains
};

// A network's summary: one entry per leaf layer, in execution order (composites such as
// residual blocks contribute their inner layers, plus one entry for the merge).
struct NetworkStats {
  Shape input;
  Shape output;
  std::vector<LayerStats> layers;
  std::int64_t totalParams() const;
  std::int64_t totalNonTrainableParams() const;
  double forwardFlops() const;   // per sample
  double backwardFlops() const;  // per sample
  double forwardMacs() const { return forwardFlops() / 2; }
  double productFlops() const;   // per sample: 2 x the multiply-adds of the matrix products
};

}  // namespace core::nn
