// Keras applications' Xception and InceptionV3, layer for layer.
#include "core/nn/zoo_builders.h"

namespace core::nn::zoo_detail {
namespace {

// Keras conv2d_bn (InceptionV3): Conv2D without bias, BatchNormalization(scale=False), ReLU.
void convBn(Sequential& s, int filters, int kh, int kw, int stride = 1, Padding pad = Padding::same()) {
  s.add(conv(filters, kh, kw, stride, pad, false, Activation::Linear, Init::GlorotUniform));
  s.add(kerasBn(false));
  s.add(relu());
}

// Keras SeparableConv2D(filters, 3, padding='same', use_bias=False): depthwise 3x3 + pointwise 1x1.
void sepConv(Sequential& s, int filters) {
  s.add(std::make_unique<DepthwiseConv2D>(DepthwiseConv2DOptions{}));
  s.add(conv(filters, 1, 1, 1, Padding::valid(), false, Activation::Linear, Init::GlorotUniform));
  s.add(kerasBn());
}

// Entry/exit-flow block: [relu] sep, relu, sep, maxpool 3/2 same; shortcut 1x1/2 conv + BN.
std::unique_ptr<Layer> xceptionDownBlock(const std::string& name, int f1, int f2, bool leadingRelu) {
  auto block = std::make_unique<Residual>(name);
  Sequential& m = block->main();
  if (leadingRelu) m.add(relu());
  sepConv(m, f1);
  m.add(relu());
  sepConv(m, f2);
  m.add(maxPool(3, 2, Padding::same()));
  block->shortcut().add(conv(f2, 1, 1, 2, Padding::same(), false, Activation::Linear, Init::GlorotUniform));
  block->shortcut().add(kerasBn());
  return block;
}

}  // namespace

std::unique_ptr<Network> buildXception(const ModelInput& in) {
  auto net = std::make_unique<Network>("xception", in.shape, in.classes);
  auto stem = std::make_unique<Sequential>("block1");
  stem->add(conv(32, 3, 3, 2, Padding::valid(), false, Activation::Linear, Init::GlorotUniform));
  stem->add(kerasBn());
  stem->add(relu());
  stem->add(conv(64, 3, 3, 1, Padding::valid(), false, Activation::Linear, Init::GlorotUniform));
  stem->add(kerasBn());
  stem->add(relu());
  net->add(std::move(stem));
  net->add(xceptionDownBlock("block2", 128, 128, false));
  net->add(xceptionDownBlock("block3", 256, 256, true));
  net->add(xceptionDownBlock("block4", 728, 728, true));
  for (int i = 0; i < 8; ++i) {
    auto block = std::make_unique<Residual>("block" + std::to_string(5 + i));
    for (int k = 0; k < 3; ++k) {
      block->main().add(relu());
      sepConv(block->main(), 728);
    }
    net->add(std::move(block));
  }
  net->add(xceptionDownBlock("block13", 728, 1024, true));
  auto exit = std::make_unique<Sequential>("block14");
  sepConv(*exit, 1536);
  exit->add(relu());
  sepConv(*exit, 2048);
  exit->add(relu());
  net->add(std::move(exit));
  net->add(std::make_unique<GlobalAvgPool>());
  net->add(dense(in.classes, Activation::Linear, Init::GlorotUniform, "predictions"));
  return net;
}

namespace {

Sequential& branch(Concat& c, const std::string& name) { return c.addBranch(name); }

// mixed0..2: 35x35.
std::unique_ptr<Layer> inceptionA(const std::string& name, int poolFilters) {
  auto c = std::make_unique<Concat>(name);
  convBn(branch(*c, "1x1"), 64, 1, 1);
  Sequential& b5 = branch(*c, "5x5");
  convBn(b5, 48, 1, 1);
  convBn(b5, 64, 5, 5);
  Sequential& b3 = branch(*c, "3x3dbl");
  convBn(b3, 64, 1, 1);
  convBn(b3, 96, 3, 3);
  convBn(b3, 96, 3, 3);
  Sequential& bp = branch(*c, "pool");
  bp.add(avgPool(3, 1, Padding::same()));
  convBn(bp, poolFilters, 1, 1);
  return c;
}

// mixed3: 35x35 -> 17x17.
std::unique_ptr<Layer> reductionA() {
  auto c = std::make_unique<Concat>("mixed3");
  convBn(branch(*c, "3x3"), 384, 3, 3, 2, Padding::valid());
  Sequential& b3 = branch(*c, "3x3dbl");
  convBn(b3, 64, 1, 1);
  convBn(b3, 96, 3, 3);
  convBn(b3, 96, 3, 3, 2, Padding::valid());
  branch(*c, "pool").add(maxPool(3, 2));
  return c;
}

// mixed4..7: 17x17 with factorised 7x7 convolutions.
std::unique_ptr<Layer> inceptionC(const std::string& name, int f7) {
  auto c = std::make_unique<Concat>(name);
  convBn(branch(*c, "1x1"), 192, 1, 1);
  Sequential& b7 = branch(*c, "7x7");
  convBn(b7, f7, 1, 1);
  convBn(b7, f7, 1, 7);
  convBn(b7, 192, 7, 1);
  Sequential& bd = branch(*c, "7x7dbl");
  convBn(bd, f7, 1, 1);
  convBn(bd, f7, 7, 1);
  convBn(bd, f7, 1, 7);
  convBn(bd, f7, 7, 1);
  convBn(bd, 192, 1, 7);
  Sequential& bp = branch(*c, "pool");
  bp.add(avgPool(3, 1, Padding::same()));
  convBn(bp, 192, 1, 1);
  return c;
}

// mixed8: 17x17 -> 8x8.
std::unique_ptr<Layer> reductionB() {
  auto c = std::make_unique<Concat>("mixed8");
  Sequential& b3 = branch(*c, "3x3");
  convBn(b3, 192, 1, 1);
  convBn(b3, 320, 3, 3, 2, Padding::valid());
  Sequential& b7 = branch(*c, "7x7x3");
  convBn(b7, 192, 1, 1);
  convBn(b7, 192, 1, 7);
  convBn(b7, 192, 7, 1);
  convBn(b7, 192, 3, 3, 2, Padding::valid());
  branch(*c, "pool").add(maxPool(3, 2));
  return c;
}

// A 1x3 and a 3x1 convolution side by side (mixed9/10's expanded branches).
std::unique_ptr<Layer> splitPair(const std::string& name) {
  auto c = std::make_unique<Concat>(name);
  convBn(branch(*c, "1x3"), 384, 1, 3);
  convBn(branch(*c, "3x1"), 384, 3, 1);
  return c;
}

// mixed9, mixed10: 8x8.
std::unique_ptr<Layer> inceptionE(const std::string& name) {
  auto c = std::make_unique<Concat>(name);
  convBn(branch(*c, "1x1"), 320, 1, 1);
  Sequential& b3 = branch(*c, "3x3");
  convBn(b3, 384, 1, 1);
  b3.add(splitPair(name + "_3x3split"));
  Sequential& bd = branch(*c, "3x3dbl");
  convBn(bd, 448, 1, 1);
  convBn(bd, 384, 3, 3);
  bd.add(splitPair(name + "_3x3dblsplit"));
  Sequential& bp = branch(*c, "pool");
  bp.add(avgPool(3, 1, Padding::same()));
  convBn(bp, 192, 1, 1);
  return c;
}

}  // namespace

std::unique_ptr<Network> buildInceptionV3(const ModelInput& in) {
  auto net = std::make_unique<Network>("inception-v3", in.shape, in.classes);
  auto stem = std::make_unique<Sequential>("stem");
  convBn(*stem, 32, 3, 3, 2, Padding::valid());
  convBn(*stem, 32, 3, 3, 1, Padding::valid());
  convBn(*stem, 64, 3, 3);
  stem->add(maxPool(3, 2));
  convBn(*stem, 80, 1, 1, 1, Padding::valid());
  convBn(*stem, 192, 3, 3, 1, Padding::valid());
  stem->add(maxPool(3, 2));
  net->add(std::move(stem));
  net->add(inceptionA("mixed0", 32));
  net->add(inceptionA("mixed1", 64));
  net->add(inceptionA("mixed2", 64));
  net->add(reductionA());
  net->add(inceptionC("mixed4", 128));
  net->add(inceptionC("mixed5", 160));
  net->add(inceptionC("mixed6", 160));
  net->add(inceptionC("mixed7", 192));
  net->add(reductionB());
  net->add(inceptionE("mixed9"));
  net->add(inceptionE("mixed10"));
  net->add(std::make_unique<GlobalAvgPool>());
  net->add(dense(in.classes, Activation::Linear, Init::GlorotUniform, "predictions"));
  return net;
}

}  // namespace core::nn::zoo_detail
