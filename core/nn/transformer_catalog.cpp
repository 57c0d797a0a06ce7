// The transformer catalog: the shipped and user model files, and the models imported while
// the program runs (core/nn/transformer_spec.h).
#include <algorithm>
#include <deque>
#include <filesystem>
#include <memory>
#include <mutex>

#include "core/nn/model_file.h"
#include "core/nn/transformer_spec.h"
#include "core/util/error.h"
#include "core/util/files.h"

namespace core::nn {
namespace {

namespace fs = std::filesystem;

const ModelFolders& loaded() {
  static const ModelFolders l = loadModelFolders((fs::path(util::resourceDir()) / "models").string(),
                                                 (fs::path(util::userDataDir()) / "models").string());
  return l;
}

// Imported models: never removed, so references handed out stay valid.
constexpr std::size_t kMaxImportedTransformers = 1024;

struct Imports {
  std::mutex mutex;
  std::deque<std::unique_ptr<TransformerSpec>> specs;
};
Imports& imports() {
  static Imports i;
  return i;
}

bool sameDimensions(const TransformerSpec& a, const TransformerSpec& b) {
  TransformerSpec x = a, y = b;
  for (TransformerSpec* s : {&x, &y}) {
    s->id.clear();
    s->name.clear();
    s->source.clear();
    s->sourceDate.clear();
    s->publishedParams = s->publishedActiveParams = 0;
    s->modelType.clear();
  }
  return transformerToModelJson(x) == transformerToModelJson(y);
}

const TransformerSpec* findImported(const std::string& id) {
  for (const auto& s : imports().specs)
    if (s->id == id) return s.get();
  return nullptr;
}

}  // namespace

const std::vector<TransformerSpec>& referenceTransformers() { return loaded().specs; }
const std::vector<std::string>& transformerLoadErrors() { return loaded().errors; }

const TransformerSpec& addImportedTransformer(TransformerSpec spec) {
  validate(spec);
  std::lock_guard lock(imports().mutex);
  const std::string base = spec.id;
  for (int n = 2;; ++n) {
    const TransformerSpec* known = nullptr;
    for (const auto& s : referenceTransformers())
      if (s.id == spec.id) known = &s;
    if (!known) known = findImported(spec.id);
    if (!known) break;
    if (sameDimensions(*known, spec)) return *known;
    spec.id = base + "-" + std::to_string(n);
  }
  // A session imports a handful; a runaway caller (a fuzzer, a script) is stopped, not let grow.
  if (imports().specs.size() >= kMaxImportedTransformers)
    throw util::Error("model '" + base + "': " + std::to_string(kMaxImportedTransformers) +
                      " models imported already; restart AccelLab to import more");
  imports().specs.push_back(std::make_unique<TransformerSpec>(std::move(spec)));
  return *imports().specs.back();
}

std::vector<const TransformerSpec*> importedTransformers() {
  std::lock_guard lock(imports().mutex);
  std::vector<const TransformerSpec*> out;
  for (const auto& s : imports().specs) out.push_back(s.get());
  return out;
}

const TransformerSpec* findTransformer(const std::string& id) {
  for (const auto& s : referenceTransformers())
    if (s.id == id) return &s;
  std::lock_guard lock(imports().mutex);
  return findImported(id);
}

std::string transformerIdList() {
  std::string out;
  for (const auto& s : referenceTransformers()) out += (out.empty() ? "" : ", ") + s.id;
  for (const TransformerSpec* s : importedTransformers()) out += ", " + s->id;
  return out;
}

const TransformerSpec& transformerSpec(const std::string& id) {
  if (const TransformerSpec* s = findTransformer(id)) return *s;
  throw util::Error("unknown transformer '" + id + "' (known: " + transformerIdList() + ")");
}

const TransformerSpec& resolveTransformer(const std::string& idOrPath) {
  if (const TransformerSpec* s = findTransformer(idOrPath)) return *s;
  if (looksLikeModelPath(idOrPath)) return addImportedTransformer(readModelFile(idOrPath));
  return transformerSpec(idOrPath);
}

}  // namespace core::nn
