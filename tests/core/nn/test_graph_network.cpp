// The engine's layers built from the model graph (core/nn/graph_network.h): every zoo model's
// own graph rebuilds the same network, and bad graphs are refused naming the layer and key.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "core/nn/graph_model_file.h"
#include "core/nn/graph_network.h"
#include "core/nn/layer.h"
#include "core/nn/model_file.h"
#include "core/nn/network.h"
#include "core/nn/zoo.h"
#include "core/util/error.h"
#include "core/util/json.h"

namespace core::nn {
namespace {

// "" when equal, else where they differ.
std::string difference(const std::vector<GraphNode>& a, const std::vector<GraphNode>& b, const std::string& at = "") {
  if (a.size() != b.size()) return at + ": " + std::to_string(a.size()) + " vs " + std::to_string(b.size()) + " nodes";
  for (std::size_t i = 0; i < a.size(); ++i) {
    const GraphNode &x = a[i], &y = b[i];
    const std::string where = at + "/" + x.name;
    if (x.op != y.op || x.name != y.name) return where + ": " + x.op + " '" + x.name + "' vs " + y.op + " '" + y.name + "'";
    if (!(x.in == y.in) || !(x.out == y.out) || x.params != y.params) return where + ": shapes or parameters differ";
    if (x.numbers != y.numbers || x.words != y.words) return where + ": hyper-parameters differ";
    if (x.branches.size() != y.branches.size()) return where + ": branch counts differ";
    for (std::size_t k = 0; k < x.branches.size(); ++k)
      if (std::string d = difference(x.branches[k], y.branches[k], where + "#" + std::to_string(k)); !d.empty()) return d;
  }
  return "";
}

std::string refusal(const GraphNode& node) {
  try {
    layerFromGraph(node);
  } catch (const util::Error& e) {
    return e.what();
  }
  return "";
}

TEST(GraphNetwork, EveryZooModelRebuildsFromItsGraph) {
  for (const auto& m : modelCatalog()) {
    SCOPED_TRACE(m.id);
    const int classes = m.id == "fasttext" || m.id == "imdb-bilstm" ? 1 : 10;
    const auto original = buildModel(m.id, ModelInput{{1, 1, 1}, classes, 0});
    const std::vector<GraphNode> graph = original->graph();
    const auto rebuilt = networkFromGraph(m.id, graph, ModelInput{original->inputShape(), original->classes(), 0});
    EXPECT_EQ(difference(graph, rebuilt->graph()), "");
    EXPECT_EQ(rebuilt->paramCount(), original->paramCount());
    const NetworkStats a = original->stats(), b = rebuilt->stats();
    ASSERT_EQ(a.layers.size(), b.layers.size());
    for (std::size_t i = 0; i < a.layers.size(); ++i) {
      EXPECT_EQ(a.layers[i].name, b.layers[i].name);
      EXPECT_EQ(a.layers[i].forwardFlops, b.layers[i].forwardFlops) << a.layers[i].name;
      EXPECT_EQ(a.layers[i].savedBytes, b.layers[i].savedBytes) << a.layers[i].name;
    }
    if (m.reference) continue;  // ImageNet-sized: the graph is enough, not a pass
    // Initialised from one seed: the same values, and the same outputs bit for bit.
    original->initialize(3);
    rebuilt->initialize(3);
    ASSERT_EQ(original->params().size(), rebuilt->params().size());
    EXPECT_TRUE(original->params() == rebuilt->params());
    EXPECT_TRUE(original->state() == rebuilt->state());
    Eigen::MatrixXf x(original->inputShape().size(), 3);
    for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = static_cast<float>(i % 7);  // images or token ids
    EXPECT_TRUE(original->predict(x) == rebuilt->predict(x));
  }
}

TEST(GraphNetwork, RefusesWhatNoLayerCanBe) {
  GraphNode conv;
  conv.op = "conv2d";
  conv.name = "c1";
  conv.in = {3, 8, 8};
  conv.set("filters", 4).set("kernel_h", 3).set("kernel_w", 3);
  EXPECT_EQ(refusal(conv), "");
  GraphNode unknown = conv;
  unknown.op = "conv3d";
  EXPECT_NE(refusal(unknown).find("layer 'c1' (conv3d): is not a layer the engine has"), std::string::npos) << refusal(unknown);
  GraphNode missing;
  missing.op = "linear";
  missing.name = "fc";
  EXPECT_NE(refusal(missing).find("layer 'fc' (linear): no units"), std::string::npos) << refusal(missing);
  GraphNode fractional = conv;
  fractional.numbers[0].second = 2.5;  // filters
  EXPECT_NE(refusal(fractional).find("filters is 2.5"), std::string::npos) << refusal(fractional);
  GraphNode activation = conv;
  activation.set("activation", "swish");
  EXPECT_NE(refusal(activation).find("activation 'swish'"), std::string::npos) << refusal(activation);
  // Padding two more rows below than above fits neither PyTorch's nor Keras' rule.
  GraphNode lopsided = conv;
  lopsided.set("pad_top", 0).set("pad_bottom", 2);
  EXPECT_NE(refusal(lopsided).find("padding top 0, bottom 2"), std::string::npos) << refusal(lopsided);
  // Keras' "same" on an even input: the odd row after.
  GraphNode same = conv;
  same.numbers[1].second = same.numbers[2].second = 2;  // 2x2 kernel
  same.set("pad_top", 0).set("pad_bottom", 1).set("pad_left", 0).set("pad_right", 1);
  EXPECT_EQ(refusal(same), "");
  GraphNode residual;
  residual.op = "residual";
  residual.name = "r";
  EXPECT_NE(refusal(residual).find("has 0 branches"), std::string::npos) << refusal(residual);
}

TEST(GraphNetwork, InitialValuesMustFitTheNetwork) {
  auto net = buildModel("mlp", ModelInput{{1, 28, 28}, 10, 0});
  net->initialize(1);
  InitialValues v;
  v.params.assign(static_cast<std::size_t>(net->params().size()), 0.25f);
  loadInitialValues(*net, v);
  EXPECT_EQ(net->params()[0], 0.25f);
  v.params.pop_back();
  try {
    loadInitialValues(*net, v);
    ADD_FAILURE() << "a short vector was loaded";
  } catch (const util::Error& e) {
    EXPECT_NE(std::string(e.what()).find("initial parameters for a network of"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace core::nn


namespace core::nn {
namespace {

std::string readText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string fileRefusal(const std::string& text) {
  try {
    graphModelFromJson(util::Json::parse(text), "my.json");
  } catch (const util::Error& e) {
    return e.what();
  }
  return "";
}

// A small model file, with `layers` as given.
std::string smallModel(const std::string& layers, const std::string& extra = "") {
  return R"({"id": "my-cnn", "kind": "layer_graph", "description": "mine", "default_dataset": "fashion-mnist", "input": "images", "image": [1, 28, 28],)" + extra +
         R"( "source": "me", "source_date": "2026-12", "layers": )" + layers + "}";
}

TEST(GraphModelFile, EveryShippedCnnAndRnnIsItsFileAndTheFileIsCanonical) {
  int files = 0;
  for (const auto& m : modelCatalog()) {
    if (m.id == "char-gpt" || m.id == "vit-tiny") continue;  // transformer model files
    SCOPED_TRACE(m.id);
    const std::string path = std::string(ACCELLAB_SOURCE_RESOURCES) + "/models/" + m.id + ".json";
    const GraphModelFile f = readGraphModelFile(path);
    EXPECT_EQ(f.info.description, m.description);
    EXPECT_FALSE(f.source.empty());
    EXPECT_FALSE(f.sourceDate.empty());
    // What `models --format layer-graph` writes is the shipped file, byte for byte.
    EXPECT_EQ(graphModelText(graphModelFileOf(m.id)), readText(path));
    ++files;
  }
  EXPECT_EQ(files, 15);
}

TEST(GraphModelFile, NumbersThatFollowTheInputAreNamed) {
  const GraphModelFile f = graphModelFileOf("fasttext");
  const std::string text = graphModelText(f);
  EXPECT_NE(text.find(R"("vocabulary":"vocabulary * 61")"), std::string::npos) << text;
  EXPECT_NE(text.find(R"("units":"classes")"), std::string::npos) << text;
  const GraphModelFile lm = graphModelFileOf("lstm-textgen");
  EXPECT_TRUE(lm.classesAreVocabulary);
  // One file, any vocabulary: the embedding and the head follow it.
  const auto net = buildGraphModel(f, ModelInput{{1, 50, 1}, 2, 1000});
  EXPECT_EQ(net->graph().front().number("vocabulary"), 61000);
  EXPECT_EQ(net->classes(), 2);
}

TEST(GraphModelFile, AUserFileBuildsAndItsMistakesAreNamed) {
  const std::string good = smallModel(
      R"([{"op": "conv2d", "filters": 4, "kernel_h": 3, "kernel_w": 3, "padding": "same", "activation": "relu"},
          {"op": "max_pool2d", "kernel_h": 2, "kernel_w": 2, "stride_h": 2, "stride_w": 2},
          {"op": "residual", "activation": "relu", "branches": [[{"op": "conv2d", "filters": 4, "kernel_h": 3, "kernel_w": 3, "padding": "same"}], []]},
          {"op": "flatten"}, {"op": "linear", "units": "classes"}])");
  ASSERT_EQ(fileRefusal(good), "");
  const GraphModelFile f = graphModelFromJson(util::Json::parse(good), "my.json");
  const auto net = buildGraphModel(f, ModelInput{{1, 28, 28}, 10, 0});
  // A pool's stride is its size unless written (28 -> 14).
  EXPECT_EQ(net->paramCount(), (4 * 9 + 4) + (4 * 4 * 9 + 4) + (4 * 14 * 14 * 10 + 10));
  struct Case {
    std::string text, says;
  };
  for (const Case& c : {
           Case{smallModel(R"([{"op": "conv2d", "filters": 4, "kernel_h": 3, "kernel_w": 3, "strides": 2}, {"op": "flatten"}, {"op": "linear", "units": 10}])"),
                "layer 'conv2d' (conv2d): unknown key 'strides'"},
           Case{smallModel(R"([{"op": "conv2d", "filters": 4, "kernel_h": 40, "kernel_w": 3}])"), "my.json"},
           Case{smallModel(R"([{"op": "linear", "units": "labels"}])"), "units is 'labels', not a number"},
           Case{smallModel(R"([{"op": "conv2d", "filters": 4, "kernel_h": 6, "kernel_w": 6, "stride_h": 4, "stride_w": 4, "pad_top": 2, "pad_bottom": 3, "pad_left": 2, "pad_right": 3, "padding": "explicit"}])"),
                "pad both sides alike"},
           Case{smallModel(R"([{"op": "conv2d", "filters": 4, "kernel_h": 3, "kernel_w": 3, "padding": "same", "pad_top": 1}])"), "unknown key 'pad_top'"},
           Case{smallModel(R"([{"op": "flatten", "branches": [[{"op": "bogus"}]]}])"), "has branches"},
           Case{smallModel(R"([{"op": "conv2d", "filters": 1, "kernel_h": 65536, "kernel_w": 65536, "padding": "same"}])"), "kernel_h is"},
           Case{R"({"id": "big", "kind": "layer_graph", "description": "x", "default_dataset": "mnist", "image": [16384, 16384, 16384], "source": "me", "source_date": "2026", "layers": [{"op": "flatten"}]})",
                "values a sample"},
           Case{smallModel(R"([{"op": "transformer"}])"), "is not a layer the engine has"},
           Case{smallModel(R"([{"filters": 4}])"), "without \"op\""},
           Case{smallModel(R"([])"), "at least one layer"},
           Case{smallModel(R"([{"op": "flatten"}])", R"( "colour": "blue",)"), "colour"},
           Case{R"({"id": "My CNN", "kind": "layer_graph", "description": "x", "default_dataset": "mnist", "image": [1, 28, 28], "source": "me", "source_date": "2026", "layers": [{"op": "flatten"}]})",
                "lower-case"},
           Case{R"({"id": "x", "kind": "layer_graph", "description": "x", "default_dataset": "mnist", "image": [1, 28, 28], "layers": [{"op": "flatten"}]})",
                "source"}}) {
    const std::string why = fileRefusal(c.text);
    EXPECT_NE(why.find(c.says), std::string::npos) << c.says << " | " << why;
  }
}

TEST(GraphModelFile, AFileCannotTakeAnotherModelsId) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "accellab-graph-ids";
  std::filesystem::create_directories(dir);
  for (const char* id : {"gpt2-small", "lenet5"}) {  // a transformer's, a shipped CNN's
    GraphModelFile mine = graphModelFileOf("mlp");
    mine.info.id = id;
    const std::string path = (dir / (std::string(id) + ".json")).string();
    std::ofstream(path) << graphModelText(mine);
    try {
      importGraphModel(path);
      ADD_FAILURE() << id << " was taken over";
    } catch (const util::Error& e) {
      EXPECT_NE(std::string(e.what()).find("is taken"), std::string::npos) << e.what();
    }
  }
  std::filesystem::remove_all(dir);
}

TEST(GraphModelFile, TheUserFolderAddsModelsAndCannotReplaceTheShippedOnes) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "accellab-user-models";
  std::filesystem::create_directories(dir);
  GraphModelFile mine = graphModelFileOf("lenet5");
  std::ofstream((dir / "lenet5.json").string()) << graphModelText(mine);
  mine.info.id = "my-lenet";
  std::ofstream((dir / "my-lenet.json").string()) << graphModelText(mine);
  const ModelFolders f = loadModelFolders(std::string(ACCELLAB_SOURCE_RESOURCES) + "/models", dir.string());
  EXPECT_EQ(std::count_if(f.graphs.begin(), f.graphs.end(), [](const GraphModelFile& g) { return g.info.id == "my-lenet"; }), 1);
  const auto lenet = std::find_if(f.graphs.begin(), f.graphs.end(), [](const GraphModelFile& g) { return g.info.id == "lenet5"; });
  ASSERT_NE(lenet, f.graphs.end());
  EXPECT_EQ(lenet->path.find(dir.string()), std::string::npos);  // the shipped one stays
  ASSERT_FALSE(f.errors.empty());
  EXPECT_NE(f.errors.back().find("is a shipped model's"), std::string::npos) << f.errors.back();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace core::nn
