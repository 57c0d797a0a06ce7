#include "core/sim/workload.h"

#include <algorithm>

namespace core::sim {

Workload makeWorkload(const std::string& modelId, const std::string& datasetId, const nn::NetworkStats& stats,
                      const DataFeed& feed) {
  Workload w;
  w.modelId = modelId;
  w.datasetId = datasetId;
  w.feed = feed;
  if (w.feed.inputBytesPerSample <= 0) w.feed.inputBytesPerSample = 4.0 * static_cast<double>(stats.input.size());
  w.layers.reserve(stats.layers.size());
  bool trainableBefore = false;
  for (const auto& l : stats.layers) {
    LayerWork lw;
    lw.name = l.name;
    lw.kind = l.kind;
    lw.forwardFlops = l.forwardFlops;
    lw.backwardFlops = l.backwardFlops;
    if (!trainableBefore && l.params == 0) lw.backwardFlops = 0;  // nothing to differentiate yet
    lw.forwardBytes = l.forwardBytes;
    lw.savedBytes = l.savedBytes;
    lw.weightBytes = l.weightBytes > 0 ? l.weightBytes : 4.0 * static_cast<double>(l.params);
    lw.params = l.params;
    lw.gemmM = l.gemmM;
    lw.gemmK = l.gemmK;
    lw.gemmN = std::max<std::int64_t>(1, l.gemmN);
    lw.groups = std::max(1, l.gemmGroups);
    lw.inChannels = l.inShape.c;
    // Frameworks only differentiate what leads to a parameter: the layers before the first
    // trainable one, and that layer's input gradient, are skipped in the backward pass.
    lw.inputGradient = trainableBefore;
    if (l.params > 0) trainableBefore = true;
    lw.sequentialSteps = std::max(1, l.sequentialSteps);
    lw.directions = std::max(1, l.directions);
    w.params += l.params;
    w.nonTrainableParams += l.nonTrainableParams;
    if (l.params > 0) w.paramTensors += l.kind == nn::LayerKind::LSTM ? 3 * lw.directions : 2;
    w.forwardFlops += l.forwardFlops;
    w.productFlops += l.productFlops;
    w.backwardFlops += l.backwardFlops;
    // An activation right after a convolution, dense or batch-norm layer is applied in place
    // (or fused) by the frameworks: its output replaces the tensor before it, so the pair keeps
    // one tensor for the backward pass, not two.
    const bool inPlace = l.kind == nn::LayerKind::Activation && !w.layers.empty() &&
                         (w.layers.back().kind == nn::LayerKind::BatchNorm || w.layers.back().kind == nn::LayerKind::Conv2D ||
                          w.layers.back().kind == nn::LayerKind::Dense ||
                          w.layers.back().kind == nn::LayerKind::DepthwiseConv2D);
    if (!inPlace) w.savedBytes += l.savedBytes;
    if (!lw.fusable()) w.savedBytesFused += l.savedBytes;
    w.maxLayerBytes = std::max(w.maxLayerBytes, l.forwardBytes);
    w.layers.push_back(std::move(lw));
  }
  return w;
}

DataFeed dataFeedOf(const data::DatasetInfo& info) {
  DataFeed f;
  f.format = info.format;
  f.storedBytesPerSample = info.storedBytesPerSample;
  f.inputBytesPerSample = 0;  // makeWorkload() takes it from the model's own input (fp32 / int32 ids)
  f.trainSize = info.trainSize;
  f.testSize = info.testSize;
  return f;
}

}  // namespace core::sim
