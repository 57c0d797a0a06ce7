// Every zoo model: output shape, parameter counts (exact where Keras/torchvision publish them),
// multiply-adds of the reference CNNs, and stats built without allocating parameters.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "core/nn/layer.h"
#include "core/nn/network.h"
#include "core/nn/zoo.h"
#include "core/util/error.h"

namespace core::nn {
namespace {

ModelInput image(int c, int h, int w, int classes) { return ModelInput{{c, h, w}, classes, 0}; }

double gemmMacs(const NetworkStats& s) {
  double macs = 0;
  for (const auto& l : s.layers) macs += static_cast<double>(l.gemmM) * l.gemmK * l.gemmN * l.gemmGroups * l.directions * l.sequentialSteps;
  return macs;
}

struct Expected {
  const char* id;
  ModelInput input;
  std::int64_t trainable;
  std::int64_t total;  // trainable + non-trainable (batch-norm running statistics)
  Shape output;
};

class ZooCounts : public ::testing::TestWithParam<Expected> {};

TEST_P(ZooCounts, ParameterCountsAndOutputShapeMatchThePublishedModel) {
  const Expected& e = GetParam();
  const auto net = buildModel(e.id, e.input);
  EXPECT_EQ(net->paramCount(), e.trainable);
  const NetworkStats s = net->stats();
  EXPECT_EQ(s.totalParams(), e.trainable);
  EXPECT_EQ(s.totalParams() + s.totalNonTrainableParams(), e.total);
  EXPECT_EQ(net->outputShape(), e.output);
  EXPECT_EQ(s.output, e.output);
  EXPECT_FALSE(net->initialized());
  EXPECT_EQ(net->params().size(), 0) << "building must not allocate parameters";
}

INSTANTIATE_TEST_SUITE_P(
    Models, ZooCounts,
    ::testing::Values(
        // Keras examples (model.summary() totals).
        Expected{"mlp", image(1, 28, 28, 10), 669706, 669706, {10, 1, 1}},
        Expected{"mnist-cnn", image(1, 28, 28, 10), 1199882, 1199882, {10, 1, 1}},
        Expected{"cifar-cnn", image(3, 32, 32, 10), 1250858, 1250858, {10, 1, 1}},
        // fasttext: (20,000 words + 1.2 M estimated bigrams) x 50 + Dense 1.
        Expected{"fasttext", ModelInput{{1, 400, 1}, 1, 20000}, 61000051, 61000051, {1, 1, 1}},
        Expected{"imdb-bilstm", ModelInput{{1, 100, 1}, 1, 20000}, 2658945, 2658945, {1, 1, 1}},
        Expected{"lstm-textgen", ModelInput{{1, 40, 1}, 57, 57}, 102585, 102585, {57, 1, 1}},
        // The PyTorch peer's LeNet-5 and the Colab CNN (Keras BN keeps 2 running values per channel).
        Expected{"lenet5", image(1, 28, 28, 10), 61706, 61706, {10, 1, 1}},
        Expected{"colab-cnn", image(1, 28, 28, 10), 1619084, 1619084 + 2 * (1 + 64 + 128), {10, 1, 1}},
        // He et al. 2016 CIFAR ResNet-20 with option-A shortcuts: 0.27 M.
        Expected{"resnet20", image(3, 32, 32, 10), 269722, 269722 + 2 * (16 + 6 * 16 + 6 * 32 + 6 * 64), {10, 1, 1}},
        // torchvision (trainable parameters; running statistics are buffers there).
        Expected{"resnet50", image(3, 224, 224, 1000), 25557032, 25557032 + 53120, {1000, 1, 1}},
        Expected{"resnet152", image(3, 224, 224, 1000), 60192808, 60192808 + 151424, {1000, 1, 1}},
        Expected{"vgg16", image(3, 224, 224, 1000), 138357544, 138357544, {1000, 1, 1}},
        Expected{"alexnet", image(3, 224, 224, 1000), 61100840, 61100840, {1000, 1, 1}},
        // Keras applications (model.summary(): total / trainable).
        Expected{"xception", image(3, 299, 299, 1000), 22855952, 22910480, {1000, 1, 1}},
        Expected{"inception-v3", image(3, 299, 299, 1000), 23817352, 23851784, {1000, 1, 1}},
        // The transformers, exactly as ../shared/bench/torch_baseline.py --check-params counts them.
        Expected{"char-gpt", ModelInput{{1, 128, 1}, 256, 256}, 875264, 875264, {256, 128, 1}},
        Expected{"vit-tiny", image(1, 28, 28, 10), 205066, 205066, {10, 1, 1}}),
    [](const auto& info) {
      std::string n = info.param.id;
      for (char& ch : n)
        if (ch == '-') ch = '_';
      return n;
    });

TEST(Zoo, ReferenceMultiplyAddsMatchPublishedFigures) {
  struct Macs {
    const char* id;
    ModelInput in;
    double gmacs;
  };
  // Published: ResNet-50 4.1 G, VGG16 15.5 G, ResNet-152 11.5 G, AlexNet 0.71 G (224x224);
  // Inception-v3 5.7 G and Xception 8.4 G (299x299).
  for (const Macs& m : {Macs{"resnet50", image(3, 224, 224, 1000), 4.1}, Macs{"vgg16", image(3, 224, 224, 1000), 15.5},
                        Macs{"resnet152", image(3, 224, 224, 1000), 11.5}, Macs{"alexnet", image(3, 224, 224, 1000), 0.71},
                        Macs{"inception-v3", image(3, 299, 299, 1000), 5.7}, Macs{"xception", image(3, 299, 299, 1000), 8.4}}) {
    const NetworkStats s = modelStats(m.id, m.in);
    EXPECT_NEAR(gemmMacs(s) / 1e9, m.gmacs, 0.03 * m.gmacs) << m.id;
    // All FLOPs (GEMMs plus batch norm, activations, pooling) stay within a few percent of the GEMMs.
    EXPECT_GT(s.forwardMacs(), gemmMacs(s)) << m.id;
    EXPECT_LT(s.forwardMacs(), 1.05 * gemmMacs(s)) << m.id;
    EXPECT_GT(s.backwardFlops(), 1.9 * s.forwardFlops()) << m.id;
  }
}

TEST(Zoo, KerasExampleMultiplyAdds) {
  // Hand-computed from the layer shapes.
  EXPECT_DOUBLE_EQ(gemmMacs(modelStats("mlp", image(1, 28, 28, 10))), 784.0 * 512 + 512 * 512 + 512 * 10);
  const double colab = 28 * 28 * 64 * 25.0 + 14 * 14 * 128 * 64 * 25.0 + 7 * 7 * 256 * 128 * 25.0 + 2304 * 256.0 + 2560;
  EXPECT_DOUBLE_EQ(gemmMacs(modelStats("colab-cnn", image(1, 28, 28, 10))), colab);
  const double lenet = 28 * 28 * 6 * 25.0 + 10 * 10 * 16 * 150.0 + 400 * 120 + 120 * 84 + 840;
  EXPECT_DOUBLE_EQ(gemmMacs(modelStats("lenet5", image(1, 28, 28, 10))), lenet);
}

TEST(Zoo, IntermediateShapesFollowTheArchitecture) {
  const NetworkStats colab = modelStats("colab-cnn", image(1, 28, 28, 10));
  bool sawFlatten = false;
  for (const auto& l : colab.layers)
    if (l.kind == LayerKind::Flatten) {
      EXPECT_EQ(l.inShape, (Shape{256, 3, 3}));
      sawFlatten = true;
    }
  EXPECT_TRUE(sawFlatten);

  const NetworkStats inc = modelStats("inception-v3", image(3, 299, 299, 1000));
  for (const auto& l : inc.layers) {
    if (l.name == "mixed2/concat") {
      EXPECT_EQ(l.outShape, (Shape{288, 35, 35}));
    }
    if (l.name == "mixed7/concat") {
      EXPECT_EQ(l.outShape, (Shape{768, 17, 17}));
    }
    if (l.name == "mixed10/concat") {
      EXPECT_EQ(l.outShape, (Shape{2048, 8, 8}));
    }
  }
  const NetworkStats xc = modelStats("xception", image(3, 299, 299, 1000));
  ASSERT_GE(xc.layers.size(), 3u);
  const LayerStats& gap = xc.layers[xc.layers.size() - 3];
  EXPECT_EQ(gap.kind, LayerKind::GlobalAvgPool);
  EXPECT_EQ(gap.inShape, (Shape{2048, 10, 10}));
  const NetworkStats r50 = modelStats("resnet50", image(3, 224, 224, 1000));
  int residuals = 0;
  for (const auto& l : r50.layers) residuals += l.kind == LayerKind::Residual;
  EXPECT_EQ(residuals, 16);
}

TEST(Zoo, LstmStatsCarryTheSequentialStructure) {
  const NetworkStats s = modelStats("imdb-bilstm", ModelInput{{1, 100, 1}, 1, 20000});
  bool found = false;
  for (const auto& l : s.layers)
    if (l.kind == LayerKind::LSTM) {
      found = true;
      EXPECT_EQ(l.sequentialSteps, 100);
      EXPECT_EQ(l.directions, 2);
      EXPECT_EQ(l.gemmM, 256);
      EXPECT_EQ(l.gemmK, 128 + 64);
      EXPECT_EQ(l.outShape, (Shape{128, 1, 1}));
    }
  EXPECT_TRUE(found);
}

TEST(Zoo, TextModelsUseKerasDefaultsWhenUnset) {
  const auto fast = buildModel("fasttext", ModelInput{{1, 1, 1}, 1, 0});
  EXPECT_EQ(fast->inputShape(), (Shape{1, 400, 1}));
  EXPECT_EQ(fast->paramCount(), 61000051);
  const auto gen = buildModel("lstm-textgen", ModelInput{});
  EXPECT_EQ(gen->inputShape(), (Shape{1, 40, 1}));
  EXPECT_EQ(gen->classes(), 57);
}

TEST(Zoo, ImageModelsTakeOtherInputSizes) {
  // The simulator sweeps datasets: the same architecture on CIFAR-sized input.
  const auto vgg = buildModel("vgg16", image(3, 32, 32, 10));
  EXPECT_EQ(vgg->paramCount(), 14714688 + 512 * 4096 + 4096 + 4096 * 4096 + 4096 + 4096 * 10 + 10);
  const auto mlp = buildModel("mlp", ModelInput{});
  EXPECT_EQ(mlp->inputShape(), (Shape{1, 28, 28}));
}

TEST(Zoo, ErrorsNameTheProblem) {
  try {
    buildModel("resnet51", image(3, 224, 224, 1000));
    FAIL() << "expected an error";
  } catch (const util::Error& e) {
    EXPECT_NE(std::string(e.what()).find("resnet51"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("resnet50"), std::string::npos);  // lists the known ids
  }
  try {
    buildModel("vgg16", image(3, 16, 16, 10));
    FAIL() << "expected an error";
  } catch (const util::Error& e) {
    EXPECT_NE(std::string(e.what()).find("vgg16"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("too small"), std::string::npos);
  }
  EXPECT_THROW(modelInfo("nope"), util::Error);
  EXPECT_THROW(buildModel("mlp", image(1, 28, 28, 0)), util::Error);
}

TEST(Zoo, CatalogListsEveryModelOnce) {
  const auto& cat = modelCatalog();
  EXPECT_EQ(cat.size(), 17u);
  for (const auto& m : cat) {
    EXPECT_FALSE(m.description.empty()) << m.id;
    EXPECT_EQ(modelInfo(m.id).description, m.description);
    const NetworkStats s = modelStats(m.id, ModelInput{{1, 1, 1}, m.id == "fasttext" || m.id == "imdb-bilstm" ? 1 : 10, 0});
    EXPECT_GT(s.totalParams(), 0) << m.id;
  }
  EXPECT_TRUE(modelInfo("vgg16").reference);
  EXPECT_FALSE(modelInfo("mlp").reference);
}

TEST(Zoo, LayerNamesAreUnique) {
  for (const auto& m : modelCatalog()) {
    const NetworkStats s = modelStats(m.id, ModelInput{{1, 1, 1}, 10, 0});
    std::set<std::string> names;
    for (const auto& l : s.layers) EXPECT_TRUE(names.insert(l.name).second) << m.id << ": " << l.name;
  }
}

}  // namespace
}  // namespace core::nn
