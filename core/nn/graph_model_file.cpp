#include "core/nn/graph_model_file.h"

#include <cmath>
#include <set>

#include "core/nn/graph_network.h"
#include "core/nn/network.h"
#include "core/util/error.h"
#include "core/util/files.h"
#include "core/util/json_reader.h"

namespace core::nn {
namespace {

using util::Error;
using util::Json;

// ResNet-152 has about 600 layers; Inception's blocks nest three deep.
constexpr int kMaxLayers = 20000;
constexpr int kMaxNesting = 32;
// A sample of 2^28 values (a 16384 x 16384 image): past it the layers' counts would not fit.
constexpr std::int64_t kMaxInputElements = std::int64_t{1} << 28;

struct Variables {
  int classes = 0;
  int vocabulary = 0;
};

// "classes", "vocabulary" or "<one of them> * N": the value it names, or false.
bool variableValue(const std::string& text, const Variables& v, double& value) {
  std::string name = text;
  double factor = 1;
  if (const auto star = text.find('*'); star != std::string::npos) {
    name = text.substr(0, star);
    const std::string n = text.substr(star + 1);
    std::size_t used = 0;
    try {
      factor = std::stod(n, &used);
    } catch (const std::exception&) {
      return false;
    }
    if (n.find_first_not_of(' ', used) != std::string::npos || factor < 1 || factor != std::floor(factor)) return false;
  }
  while (!name.empty() && name.back() == ' ') name.pop_back();
  if (name == "classes") value = v.classes * factor;
  else if (name == "vocabulary") value = v.vocabulary * factor;
  else return false;
  return true;
}

std::string layerText(const GraphNode& n) { return "layer '" + n.name + "' (" + n.op + ")"; }

std::vector<GraphNode> nodesFromJson(const Json& layers, const std::string& where, const Variables& v, int depth, int& count);

GraphNode nodeFromJson(const Json& j, const std::string& where, const Variables& v, int depth, int& count) {
  if (!j.isObject()) throw Error(where + ": a layer must be an object {\"op\": ...}");
  if (++count > kMaxLayers) throw Error(where + ": more than " + std::to_string(kMaxLayers) + " layers");
  GraphNode n;
  n.in = {0, 0, 0};  // unknown until the network is built: padding by rule or symmetric
  const Json* op = j.find("op");
  if (!op || !op->isString()) throw Error(where + ": a layer without \"op\" (a string: conv2d, linear, ...)");
  n.op = op->asString();
  for (const auto& [key, value] : j.asObject()) {
    const std::string at = where + ": layer" + (n.name.empty() ? "" : " '" + n.name + "'") + " (" + n.op + ") key '" + key + "'";
    if (key == "op") continue;
    if (key == "name") {
      if (!value.isString() || value.asString().empty()) throw Error(at + ": a name is a non-empty string");
      n.name = value.asString();
    } else if (key == "branches") {
      if (!value.isArray()) throw Error(at + ": an array of branches, each an array of layers");
      if (depth >= kMaxNesting) throw Error(at + ": blocks nest more than " + std::to_string(kMaxNesting) + " deep");
      for (const Json& b : value.asArray()) n.branches.push_back(nodesFromJson(b, where, v, depth + 1, count));
    } else if (value.isNumber()) {
      if (!std::isfinite(value.asNumber())) throw Error(at + ": not a finite number");
      n.set(key, value.asNumber());
    } else if (value.isBool()) {
      n.set(key, value.asBool() ? 1.0 : 0.0);
    } else if (value.isString()) {
      double named = 0;
      if (variableValue(value.asString(), v, named)) n.set(key, named);
      else n.set(key, value.asString());
    } else {
      throw Error(at + ": a number, true/false or a word");
    }
  }
  return n;
}

std::vector<GraphNode> nodesFromJson(const Json& layers, const std::string& where, const Variables& v, int depth, int& count) {
  if (!layers.isArray()) throw Error(where + ": \"layers\" (and each branch) is an array of layers");
  std::vector<GraphNode> out;
  for (const Json& j : layers.asArray()) out.push_back(nodeFromJson(j, where, v, depth, count));
  return out;
}

// Every key a file's layer gives is one its layer has (as the built layer describes itself).
void checkKeys(const std::vector<GraphNode>& file, const std::vector<GraphNode>& built, const std::string& where) {
  for (std::size_t i = 0; i < file.size() && i < built.size(); ++i) {
    const GraphNode &f = file[i], &b = built[i];
    // Pads are a window's, and only where its rule is explicit.
    const bool explicitPads = b.has("padding") && b.word("padding") == "explicit";
    auto known = [&](const std::string& key) { return key.rfind("pad_", 0) == 0 ? explicitPads && b.has(key) : b.has(key); };
    std::string takes;
    for (const auto& [k, v] : b.numbers) takes += (takes.empty() ? "" : ", ") + k;
    for (const auto& [k, v] : b.words) takes += (takes.empty() ? "" : ", ") + k;
    for (const auto& [k, v] : f.numbers)
      if (!known(k)) throw Error(where + ": " + layerText(b) + ": unknown key '" + k + "' (it takes: " + takes + ")");
    for (const auto& [k, v] : f.words)
      if (!known(k)) throw Error(where + ": " + layerText(b) + ": unknown key '" + k + "' (it takes: " + takes + ")");
    for (std::size_t k = 0; k < f.branches.size() && k < b.branches.size(); ++k) checkKeys(f.branches[k], b.branches[k], where);
  }
}

// One leaf layer per line; composites open their branches below.
void writeNode(const Json& node, int indent, std::string& out) {
  const std::string pad(static_cast<std::size_t>(indent), ' ');
  Json flat = Json::object();
  const Json* branches = nullptr;
  for (const auto& [k, v] : node.asObject()) {
    if (k == "branches") branches = &v;
    else flat.set(k, v);
  }
  std::string line = flat.dump();
  if (!branches) {
    out += pad + line;
    return;
  }
  line.pop_back();  // the closing brace
  out += pad + line + (flat.size() > 0 ? ", " : "") + "\"branches\": [\n";
  for (std::size_t b = 0; b < branches->size(); ++b) {
    const Json& branch = branches->asArray()[b];
    out += pad + "  [";
    if (branch.size() == 0) {
      out += "]";
    } else {
      out += "\n";
      for (std::size_t i = 0; i < branch.size(); ++i) {
        writeNode(branch.asArray()[i], indent + 4, out);
        out += i + 1 < branch.size() ? ",\n" : "\n";
      }
      out += pad + "  ]";
    }
    out += b + 1 < branches->size() ? ",\n" : "\n";
  }
  out += pad + "]}";
}

std::vector<GraphNode> graphOf(const GraphModelFile& m, const ModelInput& in, const std::string& where) {
  const Variables v{m.classesAreVocabulary ? in.vocabulary : in.classes, in.vocabulary};
  int count = 0;
  return nodesFromJson(m.layers, where, v, 0, count);
}

}  // namespace

bool isGraphModelPath(const std::string& text) {
  if (!looksLikeModelPath(text)) return false;
  try {
    return isGraphModelJson(Json::parseFile(text, kMaxModelFileBytes, util::kDataFileJsonLimits));
  } catch (const std::exception&) {
    return false;
  }
}

bool isGraphModelJson(const Json& root) {
  const Json* kind = root.isObject() ? root.find("kind") : nullptr;
  return kind && kind->isString() && kind->asString() == "layer_graph";
}

ModelInput resolveGraphModelInput(const GraphModelFile& m, const ModelInput& in) {
  ModelInput r = in;
  const Shape unset{1, 1, 1};
  if (m.tokens) {
    r.shape = {1, in.shape.h > 1 ? in.shape.h : m.defaultShape.h, 1};
    if (r.vocabulary <= 0) r.vocabulary = m.defaultVocabulary;
  } else if (in.shape == unset) {
    r.shape = m.defaultShape;
  }
  if (m.classesAreVocabulary) r.classes = r.vocabulary;
  if (r.classes <= 0)
    throw Error("model '" + m.info.id + "': classes must be positive, got " + std::to_string(in.classes));
  return r;
}

std::unique_ptr<Network> buildGraphModel(const GraphModelFile& m, const ModelInput& input) {
  const ModelInput in = resolveGraphModelInput(m, input);
  return networkFromGraph(m.info.id, graphOf(m, in, m.path.empty() ? "model '" + m.info.id + "'" : m.path), in);
}

GraphModelFile graphModelFromJson(const Json& root, const std::string& path) {
  if (!isGraphModelJson(root)) throw Error(path + ": not a model file of kind \"layer_graph\"");
  const util::JsonReader r(root, path);
  GraphModelFile m;
  m.path = path;
  m.info.id = r.string("id");
  if (!validModelId(m.info.id)) r.fail("id", "'" + m.info.id + "' " + kModelIdRule);
  m.name = r.string("name", m.info.id);
  r.string("kind");
  m.info.description = r.string("description");
  m.info.reference = r.boolean("reference", false);
  m.info.defaultDataset = r.string("default_dataset");
  m.tokens = r.choice("input", {"images", "tokens"}, "images") == "tokens";
  if (m.tokens) {
    m.defaultShape = {1, static_cast<int>(r.integer("sequence_length", 1, 1 << 20)), 1};
    m.defaultVocabulary = static_cast<int>(r.integer("vocabulary", 1, 1 << 24));
  } else {
    const std::vector<double> shape = r.numbers("image");
    if (shape.size() != 3) throw Error(r.where("image") + ": [channels, height, width]");
    for (const double d : shape)
      if (d < 1 || d > 1 << 14 || d != std::floor(d)) throw Error(r.where("image") + ": whole numbers from 1 to 16384");
    m.defaultShape = {static_cast<int>(shape[0]), static_cast<int>(shape[1]), static_cast<int>(shape[2])};
    if (m.defaultShape.size() > kMaxInputElements)
      throw Error(r.where("image") + ": more than " + std::to_string(kMaxInputElements) + " values a sample");
  }
  m.classesAreVocabulary = r.choice("classes", {"classes", "vocabulary"}, "classes") == "vocabulary";
  if (m.classesAreVocabulary && !m.tokens) throw Error(r.where("classes") + ": a class per token needs \"input\": \"tokens\"");
  m.source = r.string("source");
  m.sourceDate = r.string("source_date");
  if (r.objects("layers").empty()) throw Error(r.where("layers") + ": a model needs at least one layer");
  m.layers = root.at("layers");
  r.finish();
  // Built at its default input (ten classes where the classes follow the dataset): the shapes
  // fit, and every key a layer gives is one it has.
  const ModelInput in = resolveGraphModelInput(m, ModelInput{{1, 1, 1}, 10, 0});
  const std::vector<GraphNode> graph = graphOf(m, in, path);
  std::unique_ptr<Network> net;
  try {
    net = networkFromGraph(m.info.id, graph, in);
  } catch (const Error& e) {
    throw Error(path + ": " + e.what());
  }
  checkKeys(graph, net->graph(), path);
  return m;
}

GraphModelFile readGraphModelFile(const std::string& path) {
  return graphModelFromJson(Json::parseFile(path, kMaxModelFileBytes, util::kDataFileJsonLimits), path);
}

Json graphModelToJson(const GraphModelFile& m) {
  Json j = Json::object();
  j.set("id", m.info.id);
  j.set("name", m.name);
  j.set("kind", "layer_graph");
  j.set("description", m.info.description);
  if (m.info.reference) j.set("reference", true);
  if (!m.info.defaultDataset.empty()) j.set("default_dataset", m.info.defaultDataset);
  j.set("input", m.tokens ? "tokens" : "images");
  if (m.tokens) {
    j.set("sequence_length", m.defaultShape.h);
    j.set("vocabulary", m.defaultVocabulary);
  } else {
    Json image = Json::array();
    for (const int d : {m.defaultShape.c, m.defaultShape.h, m.defaultShape.w}) image.push(d);
    j.set("image", std::move(image));
  }
  if (m.classesAreVocabulary) j.set("classes", "vocabulary");
  j.set("source", m.source);
  j.set("source_date", m.sourceDate);
  j.set("layers", m.layers);
  return j;
}

std::string graphModelText(const GraphModelFile& m) {
  // The keys one per line, the image's size on one, then the layers one per line.
  std::string text = "{\n";
  const Json keys = graphModelToJson(m);
  for (const auto& [key, value] : keys.asObject())
    if (key != "layers") text += "  " + Json(key).dump() + ": " + value.dump() + ",\n";
  text += "  \"layers\": [\n";
  for (std::size_t i = 0; i < m.layers.size(); ++i) {
    writeNode(m.layers.asArray()[i], 4, text);
    text += i + 1 < m.layers.size() ? ",\n" : "\n";
  }
  return text + "  ]\n}\n";
}

}  // namespace core::nn
