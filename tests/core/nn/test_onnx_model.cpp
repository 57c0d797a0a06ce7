// The ONNX import: graphs from tests/data/onnx (written by make_onnx.py there) costed node by
// node, checked against hand counts and the zoo's own LeNet-5, and every refusal.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <iterator>
#include <string>

#include "core/nn/graph_network.h"
#include "core/nn/layer.h"
#include "core/nn/network.h"
#include "core/nn/onnx_model.h"
#include "core/nn/zoo.h"
#include "core/util/error.h"

namespace core::nn {
namespace {

std::string onnxFile(const std::string& name) { return std::string(ACCELLAB_TEST_DATA) + "/onnx/" + name; }

std::string bytesOf(const std::string& name) {
  std::ifstream in(onnxFile(name), std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// 2 x the multiply-adds of the convolutions and matrix products, from the GEMM shapes.
double gemmFlops(const NetworkStats& s) {
  double f = 0;
  for (const auto& l : s.layers) f += 2.0 * static_cast<double>(l.gemmM) * static_cast<double>(l.gemmK) * static_cast<double>(l.gemmN) * l.gemmGroups;
  return f;
}

// The refusal's message, or "" when `bytes` were accepted.
std::string refusal(const std::string& bytes, const std::string& name = "test.onnx") {
  try {
    parseOnnxModel(bytes, name);
  } catch (const util::Error& e) {
    return e.what();
  }
  return "";
}

TEST(OnnxModel, TheLibraryKnowsOpset17) {
  EXPECT_GE(onnxMaxOpset(), 17);
  EXPECT_FALSE(onnxLibraryVersion().empty());
}

TEST(OnnxModel, LenetCountsLikeTheZoosLenet5) {
  const OnnxModel m = readOnnxModel(onnxFile("lenet.onnx"));
  EXPECT_EQ(m.opset, 13);
  EXPECT_EQ(m.stats.input, (Shape{1, 28, 28}));
  EXPECT_EQ(m.stats.output, (Shape{10, 1, 1}));
  // conv 6x(1x5x5)+6, conv 16x(6x5x5)+16, dense 400x120+120, 120x84+84, 84x10+10
  EXPECT_EQ(m.stats.totalParams(), 156 + 2416 + 48120 + 10164 + 850);
  EXPECT_EQ(m.stats.totalNonTrainableParams(), 0);
  // multiply-adds: 6x25x28x28 + 16x150x10x10 + 400x120 + 120x84 + 84x10
  EXPECT_DOUBLE_EQ(gemmFlops(m.stats), 2.0 * (117600 + 240000 + 48000 + 10080 + 840));
  EXPECT_TRUE(m.notTrainable.empty()) << m.notTrainable;
  // The zoo's lenet5 is the same network: the same parameters and the same GEMMs, and its
  // forward FLOPs differ only by its softmax-cross-entropy head (5 per class).
  const NetworkStats zoo = modelStats("lenet5", ModelInput{{1, 28, 28}, 10, 0});
  EXPECT_EQ(m.stats.totalParams(), zoo.totalParams());
  EXPECT_DOUBLE_EQ(gemmFlops(m.stats), gemmFlops(zoo));
  EXPECT_NEAR(m.stats.forwardFlops() + 5 * 10, zoo.forwardFlops(), 1e-9 * zoo.forwardFlops());
}

TEST(OnnxModel, ResnetBasicBlockSeparatesRunningStatistics) {
  const OnnxModel m = readOnnxModel(onnxFile("basic_block.onnx"));
  EXPECT_EQ(m.stats.totalParams(), 2 * 16 * 16 * 9 + 2 * (16 + 16));  // convolutions, BN scale and shift
  EXPECT_EQ(m.stats.totalNonTrainableParams(), 2 * (16 + 16));        // BN running mean and variance
  EXPECT_DOUBLE_EQ(gemmFlops(m.stats), 2.0 * 2 * (16.0 * 16 * 9 * 32 * 32));
  ASSERT_EQ(m.stats.layers.size(), 7u);
  EXPECT_EQ(m.stats.layers[1].kind, LayerKind::BatchNorm);
  EXPECT_EQ(m.stats.layers[5].kind, LayerKind::Residual);
  EXPECT_EQ(m.stats.layers[5].name, "block/add");
  EXPECT_EQ(m.stats.output, (Shape{16, 32, 32}));
  EXPECT_TRUE(m.notTrainable.empty()) << m.notTrainable;
}

TEST(OnnxModel, GroupedAndDepthwiseConvolutionsAndMatMul) {
  const OnnxModel m = readOnnxModel(onnxFile("grouped.onnx"));
  // grouped 16x(4x3x3)+16, depthwise 16x(1x3x3)+16, Gemm 16x8+8, MatMul 8x4 and its Add 4
  EXPECT_EQ(m.stats.totalParams(), 592 + 160 + 136 + 36);
  // 16x36x64 (2 groups of 8 filters) + 16x9x64 + 16x8 + 8x4
  EXPECT_DOUBLE_EQ(gemmFlops(m.stats), 2.0 * (36864 + 9216 + 128 + 32));
  EXPECT_EQ(m.stats.layers[0].gemmGroups, 2);
  EXPECT_EQ(m.stats.layers[0].gemmM, 8);
  EXPECT_EQ(m.stats.layers[1].kind, LayerKind::DepthwiseConv2D);
  EXPECT_EQ(m.stats.layers[5].kind, LayerKind::Dense);  // MatMul by a weight
  // The engine has no grouped convolution (only depthwise): simulate only, and it says why.
  EXPECT_NE(m.notTrainable.find("node 'grouped' (op Conv)"), std::string::npos) << m.notTrainable;
  EXPECT_NE(m.notTrainable.find("group=2"), std::string::npos) << m.notTrainable;
  EXPECT_TRUE(m.layers.empty());
}

// Exported by torch.onnx.export (python3-torch 1.13; tests/data/onnx/export_torch.py prints the
// counts from model.parameters() and forward hooks on every Conv2d and Linear).
TEST(OnnxModel, TorchExportOfViewFoldsItsShapeArithmetic) {
  const OnnxModel m = readOnnxModel(onnxFile("torch_lenet.onnx"));  // x.view(x.size(0), -1)
  EXPECT_EQ(m.stats.totalParams(), 61706);
  EXPECT_DOUBLE_EQ(gemmFlops(m.stats), 2.0 * 416520);
  const OnnxModel hand = readOnnxModel(onnxFile("lenet.onnx"));
  EXPECT_DOUBLE_EQ(m.stats.forwardFlops(), hand.stats.forwardFlops());
  EXPECT_EQ(m.stats.layers.size(), hand.stats.layers.size());  // the shape arithmetic is not costed
  EXPECT_TRUE(m.notTrainable.empty()) << m.notTrainable;
}

TEST(OnnxModel, TorchExportInTrainingModeCountsLikeModelParameters) {
  const OnnxModel m = readOnnxModel(onnxFile("torch_resnet.onnx"));
  EXPECT_EQ(m.stats.totalParams(), 78042);
  EXPECT_EQ(m.stats.totalNonTrainableParams(), 2 * (16 + 16 + 16 + 3 * 32 + 3 * 64));
  EXPECT_DOUBLE_EQ(gemmFlops(m.stats), 2.0 * 12501632);
  EXPECT_LT(m.stats.forwardFlops(), 1.03 * 2.0 * 12501632);  // the bar: within 3% of 2 x multiply-adds
}

TEST(OnnxModel, TorchEvalExportGetsItsFoldedBatchNormsBack) {
  // The default export folds the 9 batch norms into their convolutions (weights and biases
  // renamed onnx::Conv_N, equal zero biases shared through Identity): counted as trained.
  const OnnxModel m = readOnnxModel(onnxFile("torch_resnet_eval.onnx"));
  EXPECT_EQ(m.unfoldedBatchNorms, 9);
  EXPECT_EQ(m.stats.totalParams(), 78042);
  EXPECT_EQ(m.stats.totalNonTrainableParams(), 2 * (16 + 16 + 16 + 3 * 32 + 3 * 64));
  EXPECT_DOUBLE_EQ(gemmFlops(m.stats), 2.0 * 12501632);
  const OnnxModel training = readOnnxModel(onnxFile("torch_resnet.onnx"));
  EXPECT_EQ(training.unfoldedBatchNorms, 0);  // batch norm kept as nodes: nothing to unfold
  EXPECT_NEAR(m.stats.forwardFlops(), training.stats.forwardFlops(), 0.01 * training.stats.forwardFlops());
}

TEST(OnnxModel, TorchExportOfAVitFoldsExpandAndCountsSharedTensorsPerReader) {
  const OnnxModel m = readOnnxModel(onnxFile("torch_vit.onnx"));  // opset 17, LayerNormalization
  EXPECT_EQ(m.stats.totalParams(), 47754);
  // patches 64x192x16; per token of 17: qkv 64x192, out 64x64, FFN 2x64x128; attention 2 x
  // 4 heads x 17x17x16; head 64x10
  EXPECT_DOUBLE_EQ(gemmFlops(m.stats), 2.0 * (196608 + 17 * (64 * 192 + 64 * 64 + 2 * 64 * 128) + 2 * 4 * 17 * 17 * 16 + 640));
  // A sequence of tokens has no engine layer from ONNX yet: the first node that leaves (batch,
  // channels, pixels) behind is named.
  EXPECT_NE(m.notTrainable.find("(op Reshape)"), std::string::npos) << m.notTrainable;
}

TEST(OnnxModel, ClipBoundsAreSettingsNotParameters) {
  const OnnxModel m = readOnnxModel(onnxFile("clip6.onnx"));  // ReLU6: Clip(h, 0.0, 6.0)
  EXPECT_EQ(m.stats.totalParams(), 3 * 4 + 3);
  EXPECT_EQ(m.stats.layers.back().kind, LayerKind::Activation);
}

TEST(OnnxModel, AnOpWithoutAnEngineLayerIsSimulateOnly) {
  const OnnxModel m = readOnnxModel(onnxFile("simulate_only.onnx"));
  EXPECT_NE(m.notTrainable.find("node 'act' (op Erf)"), std::string::npos) << m.notTrainable;
  EXPECT_EQ(m.stats.totalParams(), 3 * 4 + 3);
}

TEST(OnnxModel, RefusesWhatIsNotAModel) {
  EXPECT_NE(refusal("").find("not an ONNX model"), std::string::npos);
  EXPECT_NE(refusal("hello, this is a text file\n").find("not an ONNX model"), std::string::npos);
  EXPECT_NE(refusal("\x89PNG\r\n\x1a\n\0\0\0\rIHDR").find("not an ONNX model"), std::string::npos);
  const std::string lenet = bytesOf("lenet.onnx");
  ASSERT_GT(lenet.size(), 1000u);
  for (const std::size_t cut : {lenet.size() / 2, lenet.size() - 1, std::size_t{40}}) {
    const std::string why = refusal(lenet.substr(0, cut), "cut.onnx");
    EXPECT_NE(why.find("'cut.onnx'"), std::string::npos) << cut << ": " << why;
    EXPECT_FALSE(why.empty()) << "cut at " << cut;
  }
}

TEST(OnnxModel, RefusesAFileLargerThanTheCap) {
  try {
    readOnnxModel(onnxFile("lenet.onnx"), 1000);
    FAIL() << "a 240 KB file was read under a 1000-byte cap";
  } catch (const util::Error& e) {
    EXPECT_NE(std::string(e.what()).find("lenet.onnx"), std::string::npos) << e.what();
  }
}

TEST(OnnxModel, RefusesAProtobufBomb) {
  // A graph of four million empty nodes: 8 MB of file, gigabytes of parsed messages.
  std::string graph;
  for (std::uint64_t i = 0; i <= kMaxOnnxMessages; ++i) graph += std::string("\x0a\x00", 2);
  std::string bytes = "\x3a";  // ModelProto.graph, length-delimited
  for (std::uint64_t n = graph.size(); ; n >>= 7) {
    bytes += static_cast<char>((n & 0x7f) | (n >= 0x80 ? 0x80 : 0));
    if (n < 0x80) break;
  }
  bytes += graph;
  EXPECT_NE(refusal(bytes).find("protobuf messages"), std::string::npos) << refusal(bytes);
}

TEST(OnnxModel, RefusalsNameTheReason) {
  struct Case {
    const char* file;
    const char* says;
  };
  for (const Case& c : {Case{"opset_too_new.onnx", "opset 18"}, Case{"opset_too_new.onnx", "opset_version=17"},
                        Case{"cycle.onnx", "cycle through node 'first' (op Add)"},
                        Case{"missing_input.onnx", "node 'add' (op Add) reads 'nowhere'"},
                        Case{"huge_initializer.onnx", "initializer 'w' declares 1099511627776 elements"},
                        Case{"external_data.onnx", "external file ('weights.bin')"}}) {
    try {
      readOnnxModel(onnxFile(c.file));
      ADD_FAILURE() << c.file << " was accepted";
    } catch (const util::Error& e) {
      EXPECT_NE(std::string(e.what()).find(c.says), std::string::npos) << c.file << ": " << e.what();
      EXPECT_NE(std::string(e.what()).find(c.file), std::string::npos) << e.what();
    }
  }
}

TEST(OnnxModel, RefusesAStrideOfZeroBeforeShapeInferenceDividesByIt) {
  // ONNX 1.12's pooling and convolution shape inference divide by the strides unchecked.
  for (const char* file : {"crash-maxpool-stride-zero.onnx", "crash-conv-stride-zero.onnx"}) {
    std::ifstream in(std::string(ACCELLAB_TEST_DATA) + "/fuzz/onnx/" + file, std::ios::binary);
    const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    ASSERT_FALSE(bytes.empty()) << file;
    EXPECT_NE(refusal(bytes).find("attribute strides holds 0"), std::string::npos) << refusal(bytes);
  }
}

TEST(OnnxModel, AnImportJoinsTheZooForTheSimulator) {
  const ModelInfo& info = importOnnxModel(onnxFile("stem.onnx"));
  EXPECT_EQ(info.id, "stem.onnx");
  EXPECT_EQ(info.defaultDataset, "imagenet");
  EXPECT_EQ(&importOnnxModel(onnxFile("stem.onnx")), &info);  // read once
  EXPECT_EQ(&modelInfo("stem.onnx"), &info);
  const NetworkStats s = modelStats("stem.onnx", ModelInput{{3, 224, 224}, 1000, 0});
  EXPECT_EQ(s.totalParams(), 8 * 3 * 16 + 8 + 8 * 10 + 10);
  EXPECT_EQ(inputShapeFor("stem.onnx", {3, 331, 331}, true), (Shape{3, 224, 224}));
  EXPECT_THROW(modelStats("stem.onnx", ModelInput{{1, 28, 28}, 10, 0}), util::Error);
  // Engine layers: built with the graph's parameter count.
  EXPECT_EQ(buildModel("stem.onnx", ModelInput{{3, 224, 224}, 10, 0})->paramCount(), 8 * 3 * 16 + 8 + 8 * 10 + 10);
  // Not the engine's layers: simulated only, and building it says why.
  importOnnxModel(onnxFile("grouped.onnx"));
  try {
    buildModel("grouped.onnx", ModelInput{{8, 8, 8}, 4, 0});
    ADD_FAILURE() << "a grouped convolution was built";
  } catch (const util::Error& e) {
    EXPECT_NE(std::string(e.what()).find("group=2"), std::string::npos) << e.what();
  }
}

TEST(OnnxModel, ChainsMapToTheEnginesLayers) {
  const OnnxModel lenet = readOnnxModel(onnxFile("torch_lenet.onnx"));
  ASSERT_EQ(lenet.layers.size(), 12u);  // conv relu pool conv relu pool flatten dense relu dense relu dense
  EXPECT_EQ(lenet.layers[0].op, "conv2d");
  EXPECT_EQ(lenet.layers[0].number("pad_top"), 2);
  EXPECT_EQ(lenet.layers[2].op, "max_pool2d");
  EXPECT_EQ(lenet.layers[2].number("stride_h"), 2);
  EXPECT_EQ(lenet.layers[6].op, "flatten");  // Reshape to (1, 400)
  EXPECT_EQ(lenet.layers[11].number("units"), 10);
  EXPECT_TRUE(lenet.notTrainable.empty()) << lenet.notTrainable;
  // All zeros in this file, but weights all the same: the engine could start from them.
  EXPECT_TRUE(lenet.weightsMissing.empty()) << lenet.weightsMissing;
  EXPECT_EQ(static_cast<std::int64_t>(lenet.weights.params.size()), lenet.stats.totalParams());
}

// Leaf layers of a graph by op, depth first.
std::map<std::string, int> opsOf(const std::vector<GraphNode>& graph) {
  std::map<std::string, int> ops;
  forEachNode(graph, [&](const GraphNode& n) { ++ops[n.op]; });
  return ops;
}

TEST(OnnxModel, ResidualAndConcatBlocksMapToTheEnginesComposites) {
  const OnnxModel block = readOnnxModel(onnxFile("basic_block.onnx"));  // conv bn relu conv bn + x, relu
  ASSERT_EQ(block.layers.size(), 2u) << block.notTrainable;
  EXPECT_EQ(block.layers[0].op, "residual");
  ASSERT_EQ(block.layers[0].branches.size(), 2u);
  EXPECT_EQ(block.layers[0].branches[0].size(), 5u);  // the main branch
  EXPECT_TRUE(block.layers[0].branches[1].empty());  // the identity shortcut
  EXPECT_EQ(block.layers[1].op, "activation");

  const OnnxModel m = readOnnxModel(onnxFile("torch_branches.onnx"));
  ASSERT_TRUE(m.notTrainable.empty()) << m.notTrainable;
  const auto ops = opsOf(m.layers);
  EXPECT_EQ(ops.at("residual"), 2);  // identity and projection shortcuts
  EXPECT_EQ(ops.at("concat"), 1);
  EXPECT_EQ(ops.at("depthwise_conv2d"), 1);
  EXPECT_EQ(ops.at("dropout"), 1);
  const auto net = buildModel(importOnnxModel(onnxFile("torch_branches.onnx")).id, ModelInput{{1, 28, 28}, 10, 0});
  EXPECT_EQ(net->paramCount(), 6642);  // model.parameters(), export_torch.py
  EXPECT_EQ(net->paramCount(), m.stats.totalParams());
  EXPECT_EQ(static_cast<std::int64_t>(m.weights.params.size()), net->paramCount());
}

// The class probabilities torch computed for export_torch.py's fixed inputs, per sample.
std::vector<std::vector<double>> expectedProbabilities(const std::string& file) {
  std::ifstream in(onnxFile(file));
  std::vector<std::vector<double>> rows;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    rows.emplace_back(std::istream_iterator<double>(fields), std::istream_iterator<double>());
  }
  return rows;
}

TEST(OnnxModel, TheFilesWeightsComputeWhatTorchComputed) {
  Eigen::MatrixXf x(28 * 28, 2);
  for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = static_cast<float>(std::sin(0.1 * static_cast<double>(i + 1)));
  // Batch norms as nodes (training-mode export) and folded into the convolutions (eval mode);
  // a layer norm (opset 17).
  for (const auto& [file, probabilities] : {std::pair{"torch_branches.onnx", "torch_branches.expected.txt"},
                                            std::pair{"torch_branches_eval.onnx", "torch_branches.expected.txt"},
                                            std::pair{"torch_ln_mlp.onnx", "torch_ln_mlp.expected.txt"}}) {
    SCOPED_TRACE(file);
    const auto expected = expectedProbabilities(probabilities);
    ASSERT_EQ(expected.size(), 2u);
    const std::string id = importOnnxModel(onnxFile(file)).id;
    const OnnxModel m = readOnnxModel(onnxFile(file));
    // Folded batch norms compute the same, but are no place to start training from.
    const bool folded = m.unfoldedBatchNorms > 0;
    EXPECT_EQ(hasFileWeights(id), !folded);
    if (folded) {
      EXPECT_NE(m.weightsMissing.find("TrainingMode.TRAINING"), std::string::npos) << m.weightsMissing;
    }
    auto net = buildModel(id, ModelInput{{1, 28, 28}, 10, 0});
    net->initialize(1);
    const Eigen::MatrixXf fresh = net->predict(x);
    loadInitialValues(*net, m.weights);
    const Eigen::MatrixXf p = net->predict(x);
    double largest = 0, freshLargest = 0;
    for (int s = 0; s < 2; ++s)
      for (int c = 0; c < 10; ++c) {
        largest = std::max(largest, std::abs(p(c, s) - expected[static_cast<std::size_t>(s)][static_cast<std::size_t>(c)]));
        freshLargest = std::max(freshLargest, std::abs(fresh(c, s) - expected[static_cast<std::size_t>(s)][static_cast<std::size_t>(c)]));
      }
    EXPECT_LT(largest, 2e-6) << p.col(0).transpose();
    EXPECT_GT(freshLargest, 1e-3);  // fresh weights are not the file's
  }
  EXPECT_FALSE(hasFileWeights("lenet5"));
  EXPECT_THROW(fileWeights("lenet5"), util::Error);
}

}  // namespace
}  // namespace core::nn
