#include "core/sim/simulator.h"

#include "core/data/dataset_info.h"
#include "core/nn/zoo.h"

namespace core::sim {

Simulator::Simulator(const hw::DeviceCatalog& catalog) : m_catalog(catalog) {}

std::shared_ptr<const Workload> Simulator::workload(const std::string& modelId, const std::string& datasetId) const {
  const auto key = std::make_pair(modelId, datasetId);
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    if (auto it = m_workloads.find(key); it != m_workloads.end()) return it->second;
  }
  const data::DatasetInfo& info = data::datasetInfo(datasetId);
  nn::ModelInput input;
  // Images: the dataset's shape (e.g. tf-flowers at 331x331), or the model's own resolution
  // for ImageNet-style data (Inception-v3 at 299x299). Token sequences: the model's own
  // length, as the Keras examples pad the same reviews to their own maxlen (fasttext 400,
  // imdb-bilstm 100).
  nn::modelInfo(modelId);  // throws naming the model id when unknown
  input.shape = info.format == data::SampleFormat::TokenIds ? nn::Shape{1, 1, 1}
                                                            : nn::inputShapeFor(modelId, info.inputShape, info.resizedToModel);
  input.classes = info.classes;
  input.vocabulary = info.vocabulary;
  auto w = std::make_shared<const Workload>(makeWorkload(modelId, datasetId, nn::modelStats(modelId, input), dataFeedOf(info)));
  std::lock_guard<std::mutex> lock(m_mutex);
  return m_workloads.emplace(key, std::move(w)).first->second;
}

SimReport Simulator::simulate(const SimConfig& c) const {
  const hw::DeviceSpec& device = m_catalog.at(c.deviceId);
  return simulateWorkload(*workload(c.modelId, c.datasetId), device, c);
}

}  // namespace core::sim
