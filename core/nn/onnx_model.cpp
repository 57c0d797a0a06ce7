#include "core/nn/onnx_model.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/stubs/logging.h>
#include <onnx/checker.h>
#include <onnx/common/version.h>
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <climits>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <queue>
#include <set>

#include "core/nn/network.h"
#include "core/nn/onnx_layer_graph.h"
#include "core/nn/onnx_node_cost.h"
#include "core/nn/onnx_shape_fold.h"
#include "core/util/error.h"
#include "core/util/files.h"

namespace core::nn {
namespace {

using util::Error;

// Messages nest 3 levels per subgraph (node, attribute, graph): 32 allows If and Loop bodies
// ten deep, far past any exporter's; the message count below scans at most this deep, so its
// cost is at most 32 passes over the bytes (protobuf's own default allows 100).
constexpr int kMaxNesting = 32;

// Shape arithmetic folded, then shapes inferred again: a round per link of a chain of shape
// computations that each read the shape the one before produced (ShuffleNet's channel shuffles
// need two a block, 32 in all). Each round is linear in the graph; a graph still folding after
// this many is left with the shapes it has (and refused where one is missing).
constexpr int kMaxFoldRounds = 64;

// The length-delimited fields of a protobuf wire image, at every depth where they parse as a
// message: an upper bound on the messages and strings parsing allocates. Linear in the bytes
// times the depth; false as soon as `count` passes `max` or the depth passes kMaxNesting.
bool countMessages(const std::uint8_t* p, std::size_t n, int depth, std::uint64_t& count, std::uint64_t max,
                   bool& wellFormed) {
  namespace io = google::protobuf::io;
  io::CodedInputStream in(p, static_cast<int>(n));
  while (true) {
    const std::uint32_t tag = in.ReadTag();
    if (tag == 0) {
      wellFormed = in.ConsumedEntireMessage() && in.CurrentPosition() == static_cast<int>(n);
      return true;
    }
    if ((tag >> 3) == 0) break;
    switch (tag & 7) {
      case 0: {
        std::uint64_t v;
        if (!in.ReadVarint64(&v)) return wellFormed = false, true;
        break;
      }
      case 1: if (!in.Skip(8)) return wellFormed = false, true; break;
      case 5: if (!in.Skip(4)) return wellFormed = false, true; break;
      case 2: {
        std::uint32_t len;
        if (!in.ReadVarint32(&len)) return wellFormed = false, true;
        const int at = in.CurrentPosition();
        if (len > n - static_cast<std::size_t>(at)) return wellFormed = false, true;
        if (++count > max) return false;
        if (depth < kMaxNesting && len > 0) {
          bool nestedWellFormed = false;
          if (!countMessages(p + at, len, depth + 1, count, max, nestedWellFormed)) return false;
        }
        if (!in.Skip(static_cast<int>(len))) return wellFormed = false, true;
        break;
      }
      default: return wellFormed = false, true;  // groups (3, 4) and 6, 7: not in onnx.proto
    }
  }
  wellFormed = false;
  return true;
}

std::string nodeLabel(const onnx::NodeProto& node, std::size_t index) {
  const std::string name = node.name().empty() ? "#" + std::to_string(index) : node.name();
  return "node '" + name + "' (op " + (node.domain().empty() ? "" : node.domain() + ".") + node.op_type() + ")";
}

// Element size of an ONNX tensor type (0 for strings and unknown types).
std::uint64_t elementBytes(int type) {
  switch (type) {
    case onnx::TensorProto::UINT8: case onnx::TensorProto::INT8: case onnx::TensorProto::BOOL: return 1;
    case onnx::TensorProto::UINT16: case onnx::TensorProto::INT16: case onnx::TensorProto::FLOAT16:
    case onnx::TensorProto::BFLOAT16: return 2;
    case onnx::TensorProto::FLOAT: case onnx::TensorProto::INT32: case onnx::TensorProto::UINT32: return 4;
    case onnx::TensorProto::INT64: case onnx::TensorProto::UINT64: case onnx::TensorProto::DOUBLE:
    case onnx::TensorProto::COMPLEX64: return 8;
    case onnx::TensorProto::COMPLEX128: return 16;
    default: return 0;
  }
}

std::string dimsText(const std::vector<std::int64_t>& dims) {
  std::string s;
  for (const std::int64_t d : dims) s += (s.empty() ? "" : "x") + std::to_string(d);
  return s.empty() ? "a scalar" : s;
}

// The initializers, checked: no external data, dims that fit, as much data as declared.
std::map<std::string, OnnxTensor> readInitializers(const onnx::GraphProto& g, const std::string& where) {
  std::map<std::string, OnnxTensor> out;
  if (g.sparse_initializer_size() > 0)
    throw Error(where + ": sparse initializers ('" + g.sparse_initializer(0).values().name() + "') are not supported");
  for (const auto& t : g.initializer()) {
    const std::string what = where + ": initializer '" + t.name() + "'";
    if (t.data_location() == onnx::TensorProto::EXTERNAL || t.external_data_size() > 0) {
      std::string file;
      for (const auto& kv : t.external_data())
        if (kv.key() == "location") file = kv.value();
      throw Error(what + " keeps its data in an external file ('" + file +
                  "'): save the model as one file (onnx.save(model, path, save_as_external_data=False); "
                  "a model over 2 GiB cannot be one file)");
    }
    OnnxTensor tensor;
    tensor.name = t.name();
    tensor.elementType = t.data_type();
    std::uint64_t elements = 1;
    for (const std::int64_t d : t.dims()) {
      if (d < 0) throw Error(what + " has a negative dimension (" + std::to_string(d) + ")");
      tensor.dims.push_back(d);
      elements = d == 0 || elements > (std::uint64_t{1} << 62) / static_cast<std::uint64_t>(d)
                     ? (d == 0 ? 0 : std::uint64_t{1} << 62)
                     : elements * static_cast<std::uint64_t>(d);
    }
    const std::uint64_t size = elementBytes(t.data_type());
    std::uint64_t held = static_cast<std::uint64_t>(t.float_data_size()) + static_cast<std::uint64_t>(t.int32_data_size()) +
                         static_cast<std::uint64_t>(t.int64_data_size()) + static_cast<std::uint64_t>(t.double_data_size()) +
                         static_cast<std::uint64_t>(t.uint64_data_size()) + static_cast<std::uint64_t>(t.string_data_size());
    if (!t.raw_data().empty()) held = size > 0 ? t.raw_data().size() / size : 0;
    if (t.data_type() == onnx::TensorProto::COMPLEX64 || t.data_type() == onnx::TensorProto::COMPLEX128) held /= 2;
    if (held != elements)
      throw Error(what + " declares " + (elements >= (std::uint64_t{1} << 62) ? "more than 2^62" : std::to_string(elements)) +
                  " elements (" + dimsText(tensor.dims) + ") but the file holds " + std::to_string(held));
    tensor.elements = static_cast<std::int64_t>(elements);
    if (!out.emplace(t.name(), std::move(tensor)).second) throw Error(what + " is given twice");
  }
  return out;
}

// The default domain's opset; refuses one newer than the library's, and domains it lacks.
int checkOpsets(const onnx::ModelProto& m, const std::string& where) {
  const auto& known = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  int opset = 0;
  for (const auto& o : m.opset_import()) {
    const std::string domain = o.domain() == "ai.onnx" ? "" : o.domain();
    const auto it = known.find(domain);
    if (it == known.end())
      throw Error(where + ": operator domain '" + domain + "' is not one the ONNX library " + onnxLibraryVersion() +
                  " knows (runtime-specific operators, e.g. com.microsoft, cannot be costed)");
    if (o.version() > it->second.second) {
      const std::string max = std::to_string(it->second.second);
      throw Error(where + ": exported with opset " + std::to_string(o.version()) +
                  (domain.empty() ? "" : " of domain '" + domain + "'") + ", newer than this build's ONNX library (" +
                  onnxLibraryVersion() + ", up to opset " + max + "): export it again with opset " + max +
                  (domain.empty() ? " (torch.onnx.export(..., opset_version=" + max + "))" : ""));
    }
    if (domain.empty()) opset = static_cast<int>(o.version());
  }
  if (opset <= 0) throw Error(where + ": no opset of the default ONNX domain (opset_import is missing or broken)");
  return opset;
}

// Puts the nodes in execution order (stable: an ordered graph stays as it is) and refuses an
// input nothing produces, a tensor written twice and cycles, naming the node and its op.
void orderNodes(onnx::GraphProto& g, const std::map<std::string, OnnxTensor>& inits, const std::string& where) {
  std::set<std::string> available{""};  // "" is an optional input left out
  for (const auto& [name, t] : inits) available.insert(name);
  for (const auto& in : g.input()) available.insert(in.name());
  const int n = g.node_size();
  std::map<std::string, int> producer;
  for (int i = 0; i < n; ++i)
    for (const auto& out : g.node(i).output()) {
      if (out.empty()) continue;
      if (available.count(out))
        throw Error(where + ": " + nodeLabel(g.node(i), static_cast<std::size_t>(i)) + " writes '" + out +
                    "', which is a graph input or initializer");
      if (auto [it, fresh] = producer.emplace(out, i); !fresh)
        throw Error(where + ": tensor '" + out + "' is written by " + nodeLabel(g.node(it->second), static_cast<std::size_t>(it->second)) +
                    " and by " + nodeLabel(g.node(i), static_cast<std::size_t>(i)));
    }
  std::vector<int> waiting(static_cast<std::size_t>(n), 0);
  std::vector<std::vector<int>> consumers(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i)
    for (const auto& in : g.node(i).input()) {
      if (available.count(in)) continue;
      const auto it = producer.find(in);
      if (it == producer.end())
        throw Error(where + ": " + nodeLabel(g.node(i), static_cast<std::size_t>(i)) + " reads '" + in +
                    "', which no node, graph input or initializer produces");
      ++waiting[static_cast<std::size_t>(i)];
      consumers[static_cast<std::size_t>(it->second)].push_back(i);
    }
  std::priority_queue<int, std::vector<int>, std::greater<>> ready;
  for (int i = 0; i < n; ++i)
    if (waiting[static_cast<std::size_t>(i)] == 0) ready.push(i);
  std::vector<int> order;
  while (!ready.empty()) {
    const int i = ready.top();
    ready.pop();
    order.push_back(i);
    for (const int c : consumers[static_cast<std::size_t>(i)])
      if (--waiting[static_cast<std::size_t>(c)] == 0) ready.push(c);
  }
  if (static_cast<int>(order.size()) < n) {
    std::string nodes;
    int named = 0;
    for (int i = 0; i < n && named < 3; ++i)
      if (waiting[static_cast<std::size_t>(i)] > 0) nodes += (named++ ? ", " : "") + nodeLabel(g.node(i), static_cast<std::size_t>(i));
    throw Error(where + ": the graph has a cycle through " + nodes);
  }
  google::protobuf::RepeatedPtrField<onnx::NodeProto> sorted;
  for (const int i : order) *sorted.Add() = g.node(i);
  g.mutable_node()->Swap(&sorted);
}

// Window attributes ONNX 1.12's shape inference divides by unchecked (a stride of 0 is a
// SIGFPE there): refused first, in subgraphs too.
void checkWindowAttributes(const onnx::GraphProto& g, const std::string& where) {
  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto& node = g.node(i);
    for (const auto& a : node.attribute()) {
      const std::string& n = a.name();
      const std::int64_t least = n == "pads" ? 0 : 1;
      if (n == "strides" || n == "dilations" || n == "kernel_shape" || n == "pads" || n == "group" || n == "blocksize") {
        for (const std::int64_t v : a.ints())
          if (v < least)
            throw Error(where + ": " + nodeLabel(node, static_cast<std::size_t>(i)) + ": attribute " + n + " holds " +
                        std::to_string(v) + " (at least " + std::to_string(least) + ")");
        if (a.type() == onnx::AttributeProto::INT && a.i() < least)
          throw Error(where + ": " + nodeLabel(node, static_cast<std::size_t>(i)) + ": attribute " + n + " is " +
                      std::to_string(a.i()) + " (at least " + std::to_string(least) + ")");
      }
      if (a.has_g()) checkWindowAttributes(a.g(), where);
      for (const auto& sub : a.graphs()) checkWindowAttributes(sub, where);
    }
  }
}

// Batch dimension to 1, every other input dimension fixed; old shape annotations dropped
// (shape inference writes them again at batch 1).
void fixInputShapes(onnx::GraphProto& g, const std::map<std::string, OnnxTensor>& inits, const std::string& where) {
  int inputs = 0;
  for (auto& in : *g.mutable_input()) {
    if (inits.count(in.name())) continue;
    ++inputs;
    if (!in.type().has_tensor_type() || !in.type().tensor_type().has_shape())
      throw Error(where + ": input '" + in.name() +
                  "' has no tensor shape: export with an example input of the size it takes "
                  "(torch.onnx.export(model, torch.randn(1, 3, 224, 224), ...))");
    auto* shape = in.mutable_type()->mutable_tensor_type()->mutable_shape();
    for (int d = 0; d < shape->dim_size(); ++d) {
      auto* dim = shape->mutable_dim(d);
      if (d == 0) {
        dim->set_dim_value(1);  // clears dim_param: per sample
      } else if (!dim->has_dim_value() || dim->dim_value() <= 0) {
        throw Error(where + ": input '" + in.name() + "' dimension " + std::to_string(d) + " is '" +
                    (dim->has_dim_param() ? dim->dim_param() : std::to_string(dim->dim_value())) +
                    "': only the batch dimension may vary; export with a fixed input size");
      }
    }
  }
  if (inputs == 0) throw Error(where + ": the graph has no input besides its initializers");
  for (auto& out : *g.mutable_output())  // rank kept (the checker wants a shape), sizes unknown
    if (out.type().has_tensor_type() && out.type().tensor_type().has_shape())
      for (auto& dim : *out.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim()) {
        dim.clear_dim_value();
        dim.clear_dim_param();
      }
  g.clear_value_info();
}

// Shapes of every tensor after inference (unknown ones left out).
OnnxShapes knownShapes(const onnx::GraphProto& g,
                                                             const std::map<std::string, OnnxTensor>& inits) {
  OnnxShapes shapes;
  auto add = [&](const onnx::ValueInfoProto& v) {
    if (!v.type().has_tensor_type() || !v.type().tensor_type().has_shape()) return;
    std::vector<std::int64_t> dims;
    for (const auto& d : v.type().tensor_type().shape().dim()) {
      if (!d.has_dim_value()) return;
      dims.push_back(d.dim_value());
    }
    shapes[v.name()] = std::move(dims);
  };
  for (const auto& v : g.input()) add(v);
  for (const auto& v : g.value_info()) add(v);
  for (const auto& v : g.output()) add(v);
  for (const auto& [name, t] : inits) shapes[name] = t.dims;
  return shapes;
}

OnnxModel costModel(onnx::ModelProto& m, const std::string& where) {
  OnnxModel out;
  out.opset = checkOpsets(m, where);
  if (!m.has_graph()) throw Error(where + ": the model has no graph");
  onnx::GraphProto& g = *m.mutable_graph();
  out.graphName = g.name();
  out.producer = m.producer_name() + (m.producer_version().empty() ? "" : " " + m.producer_version());
  if (g.node_size() == 0) throw Error(where + ": the graph has no nodes");
  auto inits = readInitializers(g, where);
  orderNodes(g, inits, where);
  fixInputShapes(g, inits, where);
  checkWindowAttributes(g, where);
  try {
    onnx::checker::check_model(m);
  } catch (const std::exception& e) {
    throw Error(where + ": not a valid ONNX model: " + e.what());
  }
  // Shapes inferred; shape arithmetic the inference cannot follow folded into constants, and
  // inferred again, until nothing is left to fold (kMaxFoldRounds).
  OnnxShapes shapes;
  for (int round = 0;; ++round) {
    try {
      onnx::shape_inference::InferShapes(m, onnx::OpSchemaRegistry::Instance(),
                                         onnx::ShapeInferenceOptions(/*check_type=*/true, /*error_mode=*/1, /*data_prop=*/true));
    } catch (const std::exception& e) {
      throw Error(where + ": shape inference failed: " + e.what());
    }
    shapes = knownShapes(g, inits);
    if (round == kMaxFoldRounds || foldShapeArithmetic(g, shapes) == 0) break;
    inits = readInitializers(g, where);  // with the folded constants
  }
  std::set<std::string> used;
  for (const auto& node : g.node()) used.insert(node.input().begin(), node.input().end());
  for (const auto& o : g.output()) used.insert(o.name());
  std::string input, output;
  for (const auto& in : g.input())
    if (!inits.count(in.name())) {
      input = in.name();
      break;
    }
  if (g.output_size() == 1) output = g.output(0).name();
  OnnxCoster coster(inits, shapes, std::move(used), where);
  coster.unfoldTorchBatchNorm(m.producer_name() == "pytorch");
  for (int i = 0; i < g.node_size(); ++i) coster.add(g.node(i), static_cast<std::size_t>(i));
  out.stats = coster.take();
  out.unfoldedBatchNorms = coster.unfoldedBatchNorms();
  OnnxLayerGraphInput layersIn;
  layersIn.graph = &g;
  layersIn.initializers = &inits;
  layersIn.shapes = &shapes;
  layersIn.input = input;
  layersIn.output = output;
  layersIn.unfoldTorchBatchNorm = m.producer_name() == "pytorch";
  OnnxLayerGraph layers = output.empty() ? OnnxLayerGraph{{}, "the graph has " + std::to_string(g.output_size()) + " outputs (the engine trains one)", {}, {}}
                                         : onnxLayerGraph(layersIn);
  out.layers = std::move(layers.graph);
  out.notTrainable = std::move(layers.notTrainable);
  out.weights = std::move(layers.weights);
  out.weightsMissing = std::move(layers.weightsMissing);
  // Trainable means the engine builds it: the layers take the graph's input, and the weights
  // fill them exactly.
  if (!out.layers.empty()) {
    const Shape in = input.empty() ? Shape{} : coster.perSampleShape(input);
    try {
      const auto net = networkFromGraph(out.graphName.empty() ? "onnx" : out.graphName, out.layers,
                                        ModelInput{in, static_cast<int>(std::max<std::int64_t>(1, out.stats.output.size())), 0});
      const std::int64_t params = net->paramCount();
      if (static_cast<std::int64_t>(out.weights.params.size()) != params && out.weightsMissing.empty())
        out.weightsMissing = "the file's weights (" + std::to_string(out.weights.params.size()) + ") do not fill the engine's " +
                             std::to_string(params) + " parameters";
    } catch (const Error& e) {
      out.notTrainable = std::string("the engine's layers do not build: ") + e.what();
      out.layers.clear();
      out.weights = {};
    }
  }
  for (const auto& in : g.input())
    if (!inits.count(in.name())) {
      out.stats.input = coster.perSampleShape(in.name());
      break;
    }
  if (g.output_size() > 0) out.stats.output = coster.perSampleShape(g.output(0).name());
  return out;
}

}  // namespace

int onnxMaxOpset() {
  const auto& map = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  const auto it = map.find("");
  return it == map.end() ? 0 : it->second.second;
}

std::string onnxLibraryVersion() { return onnx::LAST_RELEASE_VERSION; }

OnnxModel parseOnnxModel(std::string_view bytes, const std::string& name) {
  const std::string where = "ONNX file '" + name + "'";
  if (bytes.size() > kMaxOnnxFileBytes) throw Error(where + " is larger than protobuf's 2 GiB");
  std::uint64_t messages = 0;
  bool wellFormed = false;
  const auto* data = reinterpret_cast<const std::uint8_t*>(bytes.data());
  if (!countMessages(data, bytes.size(), 0, messages, kMaxOnnxMessages, wellFormed))
    throw Error(where + " holds more than " + std::to_string(kMaxOnnxMessages) +
                " protobuf messages (no model has so many; a protobuf bomb?): refused");
  if (!wellFormed || bytes.empty()) throw Error(where + " is not an ONNX model (not a protobuf message, or cut short)");
  onnx::ModelProto m;
  {
    const google::protobuf::LogSilencer quiet;  // a refusal is our message, not protobuf's log line
    google::protobuf::io::CodedInputStream in(data, static_cast<int>(bytes.size()));
    in.SetRecursionLimit(kMaxNesting);
    if (!m.ParseFromCodedStream(&in) || !in.ConsumedEntireMessage())
      throw Error(where + " is not an ONNX model (not a protobuf ModelProto, or cut short)");
  }
  if (!m.has_graph() && m.opset_import_size() == 0)
    throw Error(where + " is not an ONNX model (no graph and no opset: another protobuf message?)");
  OnnxModel out = costModel(m, where);
  out.path = name;
  return out;
}

OnnxModel readOnnxModel(const std::string& path, std::uint64_t maxBytes) {
  const std::string bytes = util::readFile(path, std::min(maxBytes, kMaxOnnxFileBytes));
  return parseOnnxModel(bytes, path);
}

bool isOnnxPath(const std::string& text) { return hasExtension(text, ".onnx"); }

namespace {

// Reads `path` and adds it to the zoo under its file's name.
const ModelInfo& addOnnxModel(const std::string& path) {
  OnnxModel model = readOnnxModel(path);
  const std::string file = std::filesystem::path(path).filename().string();
  const std::string stem = file.substr(0, file.size() - 5);
  std::string id = file;
  for (int n = 2; findModel(id); ++n) id = stem + "-" + std::to_string(n) + ".onnx";
  ModelInfo info;
  info.id = id;
  const bool trainable = !model.layers.empty();
  int layers = 0;
  forEachNode(model.layers, [&](const GraphNode& n) { layers += n.branches.empty() ? 1 : 0; });
  info.description = "ONNX graph " + path + " (opset " + std::to_string(model.opset) +
                     (model.producer.empty() ? "" : ", from " + model.producer) + ")" +
                     (model.unfoldedBatchNorms > 0 ? "; " + std::to_string(model.unfoldedBatchNorms) +
                                                         " batch norms the eval-mode export folded into convolutions counted again"
                                                   : "") +
                     (!trainable                    ? "; simulate only: " + model.notTrainable
                      : model.weightsMissing.empty() ? "; trains as " + std::to_string(layers) + " engine layers, from fresh weights or the file's"
                                                     : "; trains as " + std::to_string(layers) + " engine layers from fresh weights (the file's: " + model.weightsMissing + ")");
  // The dataset a graph of this input most likely comes from (simulate --dataset overrides it).
  const Shape in = model.stats.input;
  info.defaultDataset = in == Shape{1, 28, 28} ? "fashion-mnist" : in == Shape{3, 32, 32} ? "cifar10" : in.c == 3 ? "imagenet" : "";
  ImportedModel imported{std::move(info), std::move(model.stats), std::move(model.layers), std::move(model.notTrainable),
                         std::move(model.weights), std::move(model.weightsMissing)};
  return addImportedModel(std::move(imported));
}

}  // namespace

const ModelInfo& importOnnxModel(const std::string& path) {
  return importModelFileOnce(path, [&]() -> const ModelInfo& { return addOnnxModel(path); });
}

}  // namespace core::nn
