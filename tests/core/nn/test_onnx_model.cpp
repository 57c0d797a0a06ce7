// The ONNX import: graphs from tests/data/onnx (written by make_onnx.py there) costed node by
// node, checked against hand counts and the zoo's own LeNet-5, and every refusal.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

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
  EXPECT_TRUE(m.simulateOnly.empty()) << m.simulateOnly;
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
  EXPECT_TRUE(m.simulateOnly.empty()) << m.simulateOnly;
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
  EXPECT_NE(m.simulateOnly.find("node 'grouped' (op Conv)"), std::string::npos) << m.simulateOnly;
  EXPECT_NE(m.simulateOnly.find("group=2"), std::string::npos) << m.simulateOnly;
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
  EXPECT_TRUE(m.simulateOnly.empty()) << m.simulateOnly;
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
  EXPECT_NE(m.simulateOnly.find("Transpose"), std::string::npos) << m.simulateOnly;
}

TEST(OnnxModel, ClipBoundsAreSettingsNotParameters) {
  const OnnxModel m = readOnnxModel(onnxFile("clip6.onnx"));  // ReLU6: Clip(h, 0.0, 6.0)
  EXPECT_EQ(m.stats.totalParams(), 3 * 4 + 3);
  EXPECT_EQ(m.stats.layers.back().kind, LayerKind::Activation);
}

TEST(OnnxModel, AnOpWithoutAnEngineLayerIsSimulateOnly) {
  const OnnxModel m = readOnnxModel(onnxFile("simulate_only.onnx"));
  EXPECT_NE(m.simulateOnly.find("node 'act' (op Erf)"), std::string::npos) << m.simulateOnly;
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
  // A chain of engine layers: built (fresh weights) with the graph's parameter count.
  EXPECT_EQ(buildModel("stem.onnx", ModelInput{{3, 224, 224}, 10, 0})->paramCount(), 8 * 3 * 16 + 8 + 8 * 10 + 10);
  // Not a chain of engine layers: simulated only, and building it says why.
  importOnnxModel(onnxFile("grouped.onnx"));
  try {
    buildModel("grouped.onnx", ModelInput{{8, 8, 8}, 4, 0});
    ADD_FAILURE() << "a grouped convolution was built";
  } catch (const util::Error& e) {
    EXPECT_NE(std::string(e.what()).find("group=2"), std::string::npos) << e.what();
  }
}

TEST(OnnxModel, PlainChainsMapToTheEnginesLayers) {
  const OnnxModel lenet = readOnnxModel(onnxFile("torch_lenet.onnx"));
  ASSERT_EQ(lenet.chain.size(), 12u);  // conv relu pool conv relu pool flatten dense relu dense relu dense
  EXPECT_EQ(lenet.chain[0].kind, LayerKind::Conv2D);
  EXPECT_EQ(lenet.chain[0].padH, 2);
  EXPECT_EQ(lenet.chain[2].kind, LayerKind::MaxPool2D);
  EXPECT_EQ(lenet.chain[2].strideH, 2);
  EXPECT_EQ(lenet.chain[6].kind, LayerKind::Flatten);  // Reshape to (1, 400)
  EXPECT_EQ(lenet.chain[11].units, 10);
  EXPECT_TRUE(lenet.notTrainable.empty()) << lenet.notTrainable;
  const OnnxModel block = readOnnxModel(onnxFile("basic_block.onnx"));
  EXPECT_TRUE(block.chain.empty());
  EXPECT_NE(block.notTrainable.find("node 'block/add' (op Add)"), std::string::npos) << block.notTrainable;
  const OnnxModel softmax = readOnnxModel(onnxFile("grouped.onnx"));
  EXPECT_TRUE(softmax.chain.empty());
}

}  // namespace
}  // namespace core::nn
