#include "core/nn/layer_stats.h"

namespace core::nn {

const char* layerKindName(LayerKind k) {
  switch (k) {
    case LayerKind::Dense: return "dense";
    case LayerKind::Conv2D: return "conv2d";
    case LayerKind::DepthwiseConv2D: return "depthwise_conv2d";
    case LayerKind::MaxPool2D: return "maxpool2d";
    case LayerKind::AvgPool2D: return "avgpool2d";
    case LayerKind::GlobalAvgPool: return "global_avg_pool";
    case LayerKind::BatchNorm: return "batchnorm";
    case LayerKind::Dropout: return "dropout";
    case LayerKind::Flatten: return "flatten";
    case LayerKind::Activation: return "activation";
    case LayerKind::Embedding: return "embedding";
    case LayerKind::LSTM: return "lstm";
    case LayerKind::Residual: return "residual";
    case LayerKind::Concat: return "concat";
    case LayerKind::Softmax: return "softmax";
    case LayerKind::Other: return "other";
  }
  return "other";
}

std::int64_t NetworkStats::totalParams() const {
  std::int64_t n = 0;
  for (const auto& l : layers) n += l.params;
  return n;
}
std::int64_t NetworkStats::totalNonTrainableParams() const {
  std::int64_t n = 0;
  for (const auto& l : layers) n += l.nonTrainableParams;
  return n;
}
double NetworkStats::productFlops() const {
  double f = 0;
  for (const auto& l : layers) f += l.productFlops;
  return f;
}
double NetworkStats::forwardFlops() const {
  double f = 0;
  for (const auto& l : layers) f += l.forwardFlops;
  return f;
}
double NetworkStats::backwardFlops() const {
  double f = 0;
  for (const auto& l : layers) f += l.backwardFlops;
  return f;
}

}  // namespace core::nn
