// The engine's layers built from the model graph (core/nn/graph_network.h): every zoo model's
// own graph rebuilds the same network, and bad graphs are refused naming the layer and key.
#include <gtest/gtest.h>

#include <string>

#include "core/nn/graph_network.h"
#include "core/nn/layer.h"
#include "core/nn/network.h"
#include "core/nn/zoo.h"
#include "core/util/error.h"

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
  EXPECT_NE(refusal(missing).find("layer 'fc' (linear): no number 'units'"), std::string::npos) << refusal(missing);
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
