#include "core/nn/zoo.h"

#include <algorithm>
#include <filesystem>
#include <limits>
#include <map>
#include <mutex>
#include <tuple>

#include "core/nn/graph_model_file.h"
#include "core/nn/graph_network.h"
#include "core/nn/model_file.h"
#include "core/nn/transformer_spec.h"
#include "core/nn/zoo_transformer.h"
#include "core/util/error.h"
#include "core/util/import_registry.h"

namespace core::nn {
namespace {

// A model of the zoo: a CNN or RNN is its model file (resources/models/<id>.json, kind
// "layer_graph", or one the user opened); the two transformers the engine trains are built from
// their transformer model files (zoo_transformer.cpp), described here.
struct Entry {
  GraphModelFile model;
  std::unique_ptr<Network> (*build)(const ModelInput&) = nullptr;  // the transformers only
};

Entry transformerEntry(ModelInfo info, bool tokens, Shape shape, int vocabulary, std::unique_ptr<Network> (*build)(const ModelInput&)) {
  Entry e;
  e.model.info = std::move(info);
  e.model.name = e.model.info.id;
  e.model.tokens = tokens;
  e.model.defaultShape = shape;
  e.model.defaultVocabulary = vocabulary;
  e.model.classesAreVocabulary = tokens;
  e.build = build;
  return e;
}

// The shipped (and the user's installed) CNNs and RNNs, then the two transformers, then the large
// reference architectures; files in name order.
const std::vector<Entry>& entries() {
  static const std::vector<Entry> kEntries = [] {
    std::vector<Entry> small, reference;
    for (const GraphModelFile& g : installedModels().graphs)
      (g.info.reference ? reference : small).push_back(Entry{g, nullptr});
    small.push_back(transformerEntry({"char-gpt", "byte-level GPT: 4 pre-LN decoder blocks, d 128, 4 heads, context 128, 875,264 params",
                                      false, "fortunes"},
                                     true, {1, 128, 1}, 256, zoo_detail::buildCharGpt));
    small.push_back(transformerEntry({"vit-tiny", "ViT on 28x28 images: 4x4 patches, class token, 4 pre-LN blocks, d 64, 4 heads, 205,066 params",
                                      false, "fashion-mnist"},
                                     false, {1, 28, 28}, 0, zoo_detail::buildVitTiny));
    for (Entry& e : reference) small.push_back(std::move(e));
    return small;
  }();
  return kEntries;
}

// Layer-graph model files the user opened while the program runs (importGraphModel).
const std::string& entryId(const Entry& e) { return e.model.info.id; }
util::ImportRegistry<Entry>& graphImports() {
  static util::ImportRegistry<Entry> registry(entryId, 1024);
  return registry;
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

const Entry* findEntry(const std::string& id) {
  for (const auto& e : entries())
    if (e.model.info.id == id) return &e;
  return graphImports().find(id);
}

const Entry& entry(const std::string& id) {
  if (const Entry* e = findEntry(id)) return *e;
  std::string known;
  for (const auto& e : entries()) known += (known.empty() ? "" : ", ") + e.model.info.id;
  throw util::Error("unknown model '" + id + "' (known: " + known + ")");
}

}  // namespace

const std::vector<ModelInfo>& modelCatalog() {
  static const std::vector<ModelInfo> kCatalog = [] {
    std::vector<ModelInfo> v;
    for (const auto& e : entries()) v.push_back(e.model.info);
    return v;
  }();
  return kCatalog;
}

const ModelInfo& modelInfo(const std::string& id) {
  if (const Imported* m = findImported(id)) return m->info;
  return entry(id).model.info;
}

const ModelInfo* findModel(const std::string& id) {
  if (const Entry* e = findEntry(id)) return &e->model.info;
  const Imported* m = findImported(id);
  return m ? &m->info : nullptr;
}

const ModelInfo& addImportedModel(ImportedModel model) {
  return imports()
      .add(std::move(model),
           [](const Imported& m, const auto& lookup) -> const Imported* {
             if (findEntry(m.info.id) || lookup(m.info.id)) throw util::Error("model id '" + m.info.id + "' is taken");
             return nullptr;
           })
      .info;
}

std::vector<const ModelInfo*> importedModels() {
  std::vector<const ModelInfo*> out;
  for (const Entry* e : graphImports().items()) out.push_back(&e->model.info);
  for (const Imported* m : imports().items()) out.push_back(&m->info);
  return out;
}

const ModelInfo& importModelFileOnce(const std::string& path, const std::function<const ModelInfo&()>& import) {
  static std::mutex mutex;
  static std::map<std::string, std::string> idOfPath;
  std::error_code ec;
  const std::string canonical = std::filesystem::weakly_canonical(path, ec).string();
  const std::string& key = ec ? path : canonical;
  std::lock_guard lock(mutex);
  if (const auto it = idOfPath.find(key); it != idOfPath.end()) return modelInfo(it->second);
  const ModelInfo& info = import();
  idOfPath[key] = info.id;
  return info;
}

const ModelInfo& importGraphModel(const std::string& path) {
  return importModelFileOnce(path, [&]() -> const ModelInfo& {
    GraphModelFile file = readGraphModelFile(path);
    // One id, one model: the simulator looks a transformer up first.
    if (findModel(file.info.id) || findTransformer(file.info.id))
      throw util::Error(path + ": model id '" + file.info.id +
                        "' is taken (a built-in model or one opened before): give yours another id");
    return graphImports()
        .add(Entry{std::move(file), nullptr},
             [&](const Entry& e, const auto& lookup) -> const Entry* {
               if (lookup(e.model.info.id)) throw util::Error(path + ": model id '" + e.model.info.id + "' is taken");
               return nullptr;
             })
        .model.info;
  });
}

bool trainable(const std::string& id) {
  const Imported* m = findImported(id);
  return m ? !m->layers.empty() : findModel(id) != nullptr;
}

bool hasFileWeights(const std::string& id) {
  const Imported* m = findImported(id);
  return m && !m->layers.empty() && !m->weights.empty() && m->weightsMissing.empty();
}

const InitialValues& fileWeights(const std::string& id) {
  const Imported* m = findImported(id);
  if (!m) throw util::Error("model '" + id + "' is built in: it has no file weights to start from");
  if (m->layers.empty()) throw util::Error("model '" + id + "' can be simulated, not trained: " + m->notTrainable);
  if (m->weights.empty() || !m->weightsMissing.empty())
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
    return e.build ? e.build(resolveGraphModelInput(e.model, input)) : buildGraphModel(e.model, input);
  } catch (const util::Error& err) {
    throw util::Error("model '" + id + "' cannot take input " + shapeText(input.shape) + ": " + err.what());
  }
}

Shape inputShapeFor(const std::string& modelId, Shape datasetShape, bool resizedToModel) {
  if (const Imported* m = findImported(modelId))  // a graph's input size is fixed in the file
    return resizedToModel && m->stats.input.c == datasetShape.c ? m->stats.input : datasetShape;
  const GraphModelFile& m = entry(modelId).model;
  if (resizedToModel && m.info.reference && !m.tokens && m.defaultShape.c == datasetShape.c) return m.defaultShape;
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

GraphModelFile graphModelFileOf(const std::string& id) {
  const Entry& e = entry(id);
  if (e.build) throw util::Error("model '" + id + "' is a transformer: its model file is resources/models/" + id + ".json");
  return e.model;
}

}  // namespace core::nn
