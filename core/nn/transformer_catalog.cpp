// The transformer catalog: the shipped and user model files, and the models imported while
// the program runs (core/nn/transformer_spec.h).
#include <filesystem>

#include "core/nn/model_file.h"
#include "core/nn/transformer_spec.h"
#include "core/util/error.h"
#include "core/util/files.h"
#include "core/util/import_registry.h"

namespace core::nn {
namespace {

namespace fs = std::filesystem;

const ModelFolders& loaded() { return installedModels(); }

// Imported models: a session imports a handful.
const std::string& idOf(const TransformerSpec& s) { return s.id; }
util::ImportRegistry<TransformerSpec>& imports() {
  static util::ImportRegistry<TransformerSpec> registry(idOf, 1024);
  return registry;
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

}  // namespace

const std::vector<TransformerSpec>& referenceTransformers() { return loaded().specs; }
const std::vector<std::string>& transformerLoadErrors() { return loaded().errors; }

const TransformerSpec& addImportedTransformer(TransformerSpec spec) {
  validate(spec);
  // A known id with the same dimensions: that model; other dimensions: the next free "-N".
  return imports().add(std::move(spec), [](TransformerSpec& s, const auto& lookup) -> const TransformerSpec* {
    const std::string base = s.id;
    for (int n = 2;; ++n) {
      const TransformerSpec* known = nullptr;
      for (const auto& r : referenceTransformers())
        if (r.id == s.id) known = &r;
      if (!known) known = lookup(s.id);
      if (!known) return nullptr;
      if (sameDimensions(*known, s)) return known;
      s.id = base + "-" + std::to_string(n);
    }
  });
}

std::vector<const TransformerSpec*> importedTransformers() { return imports().items(); }

const TransformerSpec* findTransformer(const std::string& id) {
  for (const auto& s : referenceTransformers())
    if (s.id == id) return &s;
  return imports().find(id);
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
