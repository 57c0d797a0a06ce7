#include "core/sim/simulator.h"

#include "core/data/dataset_info.h"
#include "core/data/dataset_loader.h"
#include "core/nn/transformer_spec.h"
#include "core/nn/zoo.h"
#include "core/sim/explanation.h"
#include "core/sim/transformer_run.h"

namespace core::sim {

Simulator::Simulator(const hw::DeviceCatalog& catalog, const hw::StackCatalog& stacks)
    : m_catalog(catalog), m_stacks(stacks) {}

const hw::StackSpec& Simulator::stackFor(const SimConfig& c) const {
  if (!c.stackId.empty()) return m_stacks.at(c.stackId);
  return m_stacks.defaultFor(m_catalog.at(c.deviceId).kind);
}

std::shared_ptr<const Workload> Simulator::workload(const std::string& modelId, const std::string& datasetId,
                                                    const std::string& dataDir) const {
  const auto key = std::make_tuple(modelId, datasetId, dataDir);
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    if (auto it = m_workloads.find(key); it != m_workloads.end()) return it->second;
  }
  const data::DatasetInfo info = data::datasetInfoIn(datasetId, dataDir);  // your folder's sizes, if given
  nn::ModelInput input;
  // Images: the dataset's shape (e.g. tf-flowers at 331x331), or the model's own resolution
  // for ImageNet-style data (Inception-v3 at 299x299). Token sequences: the model's own
  // length, as the Keras examples pad the same reviews to their own maxlen (fasttext 400,
  // imdb-bilstm 100).
  nn::modelInfo(modelId);  // throws naming the model id when unknown
  // Your own images: the model's own input (all ones resolves to it).
  input.shape = info.format == data::SampleFormat::TokenIds || info.takesModelInput
                    ? nn::Shape{1, 1, 1}
                    : nn::inputShapeFor(modelId, info.inputShape, info.resizedToModel);
  input.classes = info.classes;
  input.vocabulary = info.vocabulary;
  auto w = std::make_shared<const Workload>(makeWorkload(modelId, datasetId, nn::modelStats(modelId, input), dataFeedOf(info)));
  std::lock_guard<std::mutex> lock(m_mutex);
  return m_workloads.emplace(key, std::move(w)).first->second;
}

SimReport Simulator::simulate(const SimConfig& c) const {
  const hw::DeviceSpec& device = m_catalog.at(c.deviceId);
  // Transformers: the step of the LLM simulator (attention at the model's sequence length).
  if (const nn::TransformerSpec* t = nn::findTransformer(c.modelId)) return simulateTransformerRun(*t, device, stackFor(c), c);
  const auto w = workload(c.modelId, c.datasetId, c.dataDir);
  const hw::StackSpec& stack = stackFor(c);
  SimReport r = simulateWorkload(*w, device, stack, c);
  // The teaching point of stacks: the same silicon under the other era's software. Detailed
  // reports only (sweeps skip it).
  if (c.perLayer && !device.measured) {
    const hw::StackSpec* other = contrastStack(stack, device.kind);
    if (other) {
      SimConfig oc = c;
      oc.perLayer = false;
      oc.stackId = other->id;
      SimReport o;
      try {
        o = simulateWorkload(*w, device, *other, oc);
      } catch (const std::exception&) {
        return r;  // the other stack does not describe this device: no contrast
      }
      r.contrastStackId = other->id;
      r.contrastStepSeconds = o.stepSeconds;
      r.explanation += contrastSentence(other->id, o.stepSeconds / r.stepSeconds);
    }
  }
  return r;
}

const hw::StackSpec* Simulator::contrastStack(const hw::StackSpec& stack, hw::DeviceKind kind) const {
  // The kind's default (today's software) against the oldest stack (first in era order).
  const hw::StackSpec* modern = nullptr;
  try {
    modern = &m_stacks.defaultFor(kind);
  } catch (const std::exception&) {
    return nullptr;
  }
  if (modern->id != stack.id) return modern;
  for (const auto& s : m_stacks.stacks())
    if (s.id != stack.id) return &s;
  return nullptr;
}

}  // namespace core::sim
