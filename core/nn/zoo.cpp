#include "core/nn/zoo.h"

#include <algorithm>
#include <limits>
#include <map>
#include <mutex>
#include <tuple>

#include "core/nn/graph_network.h"
#include "core/nn/zoo_builders.h"
#include "core/util/error.h"
#include "core/util/import_registry.h"

namespace core::nn {
namespace {

enum class Family { Image, Text };

struct Entry {
  ModelInfo info;
  Family family;
  Shape defaultShape;   // images: (c, h, w); text: (1, sequence length, 1)
  int defaultVocabulary;
  std::unique_ptr<Network> (*build)(const ModelInput&);
};

std::unique_ptr<Network> buildResnet50(const ModelInput& in) {
  static const int kBlocks[4] = {3, 4, 6, 3};
  return zoo_detail::buildResnet(in, "resnet50", kBlocks);
}
std::unique_ptr<Network> buildResnet152(const ModelInput& in) {
  static const int kBlocks[4] = {3, 8, 36, 3};
  return zoo_detail::buildResnet(in, "resnet152", kBlocks);
}

const std::vector<Entry>& entries() {
  using namespace zoo_detail;
  static const std::vector<Entry> kEntries = {
      {{"mlp", "Keras mnist_mlp: Dense 512-512 ReLU with dropout 0.2, Dense 10", false, "fashion-mnist"},
       Family::Image, {1, 28, 28}, 0, buildMlp},
      {{"lenet5", "LeNet-5: conv 6@5x5, pool, conv 16@5x5, pool, dense 120-84-10", false, "fashion-mnist"},
       Family::Image, {1, 28, 28}, 0, buildLenet5},
      {{"mnist-cnn", "Keras mnist_cnn: conv 32, conv 64, pool, dropout, dense 128, dense 10", false, "fashion-mnist"},
       Family::Image, {1, 28, 28}, 0, buildMnistCnn},
      {{"colab-cnn", "Colab 5-layer Fashion-MNIST CNN: 3x (BN, conv 5x5 ELU, pool, dropout), dense 256, dense 10",
        false, "fashion-mnist"},
       Family::Image, {1, 28, 28}, 0, buildColabCnn},
      {{"cifar-cnn", "Keras cifar10_cnn: conv 32-32, pool, conv 64-64, pool, dense 512, dense 10", false, "cifar10"},
       Family::Image, {3, 32, 32}, 0, buildCifarCnn},
      {{"resnet20", "ResNet-20 for CIFAR (He et al. 2016): 3x3 basic blocks, 16/32/64 filters, 0.27 M params", false,
        "cifar10"},
       Family::Image, {3, 32, 32}, 0, buildResnet20},
      {{"fasttext", "Keras imdb_fasttext, bigrams: embedding (20000 + ~1.2 M)x50, global average pooling, dense 1", false, "imdb"},
       Family::Text, {1, 400, 1}, 20000, buildFasttext},
      {{"imdb-bilstm", "Keras imdb_bidirectional_lstm: embedding 20000x128, bidirectional LSTM 64, dense 1", false,
        "imdb"},
       Family::Text, {1, 100, 1}, 20000, buildImdbBilstm},
      {{"lstm-textgen", "Keras lstm_text_generation: LSTM 128 over 40 one-hot characters, dense vocabulary", false,
        "nietzsche"},
       Family::Text, {1, 40, 1}, 57, buildLstmTextgen},
      {{"char-gpt", "byte-level GPT: 4 pre-LN decoder blocks, d 128, 4 heads, context 128, 875,264 params", false,
        "fortunes"},
       Family::Text, {1, 128, 1}, 256, buildCharGpt},
      {{"vit-tiny", "ViT on 28x28 images: 4x4 patches, class token, 4 pre-LN blocks, d 64, 4 heads, 205,066 params",
        false, "fashion-mnist"},
       Family::Image, {1, 28, 28}, 0, buildVitTiny},
      {{"resnet50", "ResNet-50 (torchvision v1.5): 25.6 M params, 4.1 G multiply-adds at 224x224", true, "imagenet"},
       Family::Image, {3, 224, 224}, 0, buildResnet50},
      {{"resnet152", "ResNet-152 (torchvision v1.5): 60.2 M params", true, "imagenet"},
       Family::Image, {3, 224, 224}, 0, buildResnet152},
      {{"vgg16", "VGG16 (torchvision): 138 M params, 15.5 G multiply-adds at 224x224", true, "imagenet"},
       Family::Image, {3, 224, 224}, 0, buildVgg16},
      {{"xception", "Xception (Keras applications): 22.9 M params at 299x299", true, "tf-flowers"},
       Family::Image, {3, 299, 299}, 0, buildXception},
      {{"inception-v3", "Inception-v3 (Keras applications): 23.8 M params at 299x299", true, "imagenet"},
       Family::Image, {3, 299, 299}, 0, buildInceptionV3},
      {{"alexnet", "AlexNet (torchvision): 61 M params", true, "imagenet"},
       Family::Image, {3, 224, 224}, 0, buildAlexnet},
  };
  return kEntries;
}

// Models imported from files (ONNX graphs).
using Imported = ImportedModel;
const std::string& idOf(const Imported& m) { return m.info.id; }
util::ImportRegistry<Imported>& imports() {
  static util::ImportRegistry<Imported> registry(idOf, std::numeric_limits<std::size_t>::max());
  return registry;
}
const Imported* findImported(const std::string& id) { return imports().find(id); }

std::string shapeText(Shape s) { return std::to_string(s.c) + "x" + std::to_string(s.h) + "x" + std::to_string(s.w); }

const Entry& entry(const std::string& id) {
  for (const auto& e : entries())
    if (e.info.id == id) return e;
  std::string known;
  for (const auto& e : entries()) known += (known.empty() ? "" : ", ") + e.info.id;
  throw util::Error("unknown model '" + id + "' (known: " + known + ")");
}

// Fills in defaults: an all-ones shape means "the model's usual input"; text models read the
// sequence length from shape.h (1 = default) and a vocabulary of 0 means Keras' value.
ModelInput resolve(const Entry& e, const ModelInput& in) {
  ModelInput r = in;
  const Shape unset{1, 1, 1};
  if (e.family == Family::Text) {
    const int steps = in.shape.h > 1 ? in.shape.h : e.defaultShape.h;
    r.shape = {1, steps, 1};
    if (r.vocabulary <= 0) r.vocabulary = e.defaultVocabulary;
  } else if (in.shape == unset) {
    r.shape = e.defaultShape;
  }
  if (r.classes <= 0)
    throw util::Error("model '" + e.info.id + "': classes must be positive, got " + std::to_string(in.classes));
  return r;
}

}  // namespace

const std::vector<ModelInfo>& modelCatalog() {
  static const std::vector<ModelInfo> kCatalog = [] {
    std::vector<ModelInfo> v;
    for (const auto& e : entries()) v.push_back(e.info);
    return v;
  }();
  return kCatalog;
}

const ModelInfo& modelInfo(const std::string& id) {
  if (const Imported* m = findImported(id)) return m->info;
  return entry(id).info;
}

const ModelInfo* findModel(const std::string& id) {
  for (const auto& e : entries())
    if (e.info.id == id) return &e.info;
  const Imported* m = findImported(id);
  return m ? &m->info : nullptr;
}

const ModelInfo& addImportedModel(ImportedModel model) {
  return imports()
      .add(std::move(model),
           [](const Imported& m, const auto& lookup) -> const Imported* {
             const bool builtIn = std::any_of(entries().begin(), entries().end(),
                                              [&](const Entry& e) { return e.info.id == m.info.id; });
             if (builtIn || lookup(m.info.id)) throw util::Error("model id '" + m.info.id + "' is taken");
             return nullptr;
           })
      .info;
}

std::vector<const ModelInfo*> importedModels() {
  std::vector<const ModelInfo*> out;
  for (const Imported* m : imports().items()) out.push_back(&m->info);
  return out;
}

bool trainable(const std::string& id) {
  const Imported* m = findImported(id);
  return m ? !m->layers.empty() : findModel(id) != nullptr;
}

bool hasFileWeights(const std::string& id) {
  const Imported* m = findImported(id);
  return m && !m->layers.empty() && !m->weights.empty();
}

const InitialValues& fileWeights(const std::string& id) {
  const Imported* m = findImported(id);
  if (!m) throw util::Error("model '" + id + "' is built in: it has no file weights to start from");
  if (m->layers.empty()) throw util::Error("model '" + id + "' can be simulated, not trained: " + m->notTrainable);
  if (m->weights.empty())
    throw util::Error("model '" + id + "': its file's weights cannot be used (" +
                      (m->weightsMissing.empty() ? std::string("it holds none") : m->weightsMissing) + ")");
  return m->weights;
}

std::unique_ptr<Network> buildModel(const std::string& id, const ModelInput& input) {
  if (const Imported* m = findImported(id)) {
    if (m->layers.empty()) throw util::Error("model '" + id + "' can be simulated, not trained: " + m->notTrainable);
    try {
      return networkFromGraph(id, m->layers, input);
    } catch (const util::Error& err) {
      throw util::Error("model '" + id + "' cannot take input " + shapeText(input.shape) + ": " + err.what());
    }
  }
  const Entry& e = entry(id);
  try {
    return e.build(resolve(e, input));
  } catch (const util::Error& err) {
    throw util::Error("model '" + id + "' cannot take input " + std::to_string(input.shape.c) + "x" +
                      std::to_string(input.shape.h) + "x" + std::to_string(input.shape.w) + ": " + err.what());
  }
}

Shape inputShapeFor(const std::string& modelId, Shape datasetShape, bool resizedToModel) {
  if (const Imported* m = findImported(modelId))  // a graph's input size is fixed in the file
    return resizedToModel && m->stats.input.c == datasetShape.c ? m->stats.input : datasetShape;
  const Entry& e = entry(modelId);
  if (resizedToModel && e.info.reference && e.family == Family::Image && e.defaultShape.c == datasetShape.c)
    return e.defaultShape;
  return datasetShape;
}

NetworkStats modelStats(const std::string& id, const ModelInput& input) {
  if (const Imported* m = findImported(id)) {
    if (!(input.shape == Shape{1, 1, 1}) && !(input.shape == m->stats.input))
      throw util::Error("model '" + id + "' takes " + shapeText(m->stats.input) + " inputs (fixed in the file), not " +
                        shapeText(input.shape));
    return m->stats;
  }
  using Key = std::tuple<std::string, int, int, int, int, int>;
  static std::mutex mutex;
  static std::map<Key, NetworkStats> cache;
  const Key key{id, input.shape.c, input.shape.h, input.shape.w, input.classes, input.vocabulary};
  {
    std::lock_guard lock(mutex);
    if (auto it = cache.find(key); it != cache.end()) return it->second;
  }
  NetworkStats s = buildModel(id, input)->stats();  // builds shapes only: no parameters allocated
  std::lock_guard lock(mutex);
  return cache.emplace(key, std::move(s)).first->second;
}

}  // namespace core::nn
