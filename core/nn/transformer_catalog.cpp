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

struct Loaded {
  std::vector<TransformerSpec> specs;
  std::vector<std::string> errors;
};

Loaded loadFolders() {
  Loaded out;
  const std::string shipped = (fs::path(util::resourceDir()) / "models").string();
  const std::string user = (fs::path(util::userDataDir()) / "models").string();
  std::error_code ec;
  if (!fs::is_directory(shipped, ec)) out.errors.push_back(shipped + ": the shipped model folder is missing");
  for (const std::string& dir : {shipped, user}) {
    const util::FileListing listing = util::listFiles(dir, {".json"});
    for (const auto& w : listing.warnings) out.errors.push_back(w);
    for (const auto& file : listing.files) {
      try {
        TransformerSpec s = readModelFile(file);
        auto same = std::find_if(out.specs.begin(), out.specs.end(), [&](const TransformerSpec& t) { return t.id == s.id; });
        if (same != out.specs.end() && dir == shipped)
          throw util::Error(file + ": id '" + s.id + "' is already used by another shipped model file");
        if (same != out.specs.end()) *same = std::move(s);  // the user's file replaces the shipped one
        else out.specs.push_back(std::move(s));
      } catch (const std::exception& e) {
        if (dir == shipped) throw;  // a broken shipped file is a broken installation
        out.errors.push_back(e.what());
      }
    }
  }
  return out;
}

const Loaded& loaded() {
  static const Loaded l = loadFolders();
  return l;
}

// Imported models: never removed, so references handed out stay valid.
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
