#pragma once
// What one training step asks of the hardware, read from the network's own layer stats
// (core::nn::NetworkStats) and the dataset's description. Everything per sample, fp32 units,
// like LayerStats; the cost models rescale for the batch, precision and device.
#include <cstdint>
#include <string>
#include <vector>

#include "core/data/dataset_info.h"
#include "core/nn/layer_stats.h"

namespace core::sim {

// The work of one layer, as the cost models see it.
struct LayerWork {
  std::string name;
  nn::LayerKind kind = nn::LayerKind::Other;
  double forwardFlops = 0;   // per sample
  double backwardFlops = 0;  // per sample
  double forwardBytes = 0;   // per sample, fp32
  double savedBytes = 0;     // per sample, fp32
  double weightBytes = 0;    // per step, fp32
  std::int64_t params = 0;
  std::int64_t gemmM = 0, gemmK = 0, gemmN = 0;  // per sample; gemmM == 0: not a GEMM
  int groups = 1;
  int inChannels = 0;        // per sample input channels (images) or features
  bool inputGradient = true; // false for leading layers: nothing before them needs a gradient
  int sequentialSteps = 1;
  int directions = 1;
  bool isGemm() const { return gemmM > 0 && gemmK > 0; }
  bool isRecurrent() const { return sequentialSteps > 1; }
  // Elementwise layers a compiling stack (XLA) fuses into the op that produces their input:
  // no tensor of their own is written, read or kept.
  bool fusable() const {
    return kind == nn::LayerKind::Activation || kind == nn::LayerKind::Dropout || kind == nn::LayerKind::Residual;
  }
};

// How samples reach the device.
struct DataFeed {
  data::SampleFormat format = data::SampleFormat::RawPixels;
  double storedBytesPerSample = 0;   // encoded size (JPEG) or raw size
  double inputBytesPerSample = 0;    // the tensor the device receives (fp32)
  std::int64_t trainSize = 0;
  std::int64_t testSize = 0;
};

struct Workload {
  std::string modelId;
  std::string datasetId;
  std::vector<LayerWork> layers;
  DataFeed feed;
  std::int64_t params = 0;               // trainable
  std::int64_t nonTrainableParams = 0;
  std::int64_t paramTensors = 0;         // weight + bias tensors the optimizer updates
  double forwardFlops = 0;               // per sample
  double productFlops = 0;               // per sample: 2 x the matrix products' multiply-adds
  double backwardFlops = 0;              // per sample
  double savedBytes = 0;                 // per sample, fp32
  double savedBytesFused = 0;            // same when elementwise layers are fused (XLA)
  double maxLayerBytes = 0;              // per sample: the largest single-layer working set
};

Workload makeWorkload(const std::string& modelId, const std::string& datasetId, const nn::NetworkStats& stats,
                      const DataFeed& feed);
DataFeed dataFeedOf(const data::DatasetInfo& info);

}  // namespace core::sim
