#pragma once
// Internal to the zoo: short constructors so each architecture reads like its paper/table.
#include <memory>
#include <string>

#include "core/nn/activation.h"
#include "core/nn/batch_norm.h"
#include "core/nn/composite.h"
#include "core/nn/conv2d.h"
#include "core/nn/dense.h"
#include "core/nn/depthwise_conv2d.h"
#include "core/nn/dropout.h"
#include "core/nn/embedding.h"
#include "core/nn/lstm.h"
#include "core/nn/network.h"
#include "core/nn/pooling.h"
#include "core/nn/shape_layers.h"
#include "core/nn/zoo.h"

namespace core::nn::zoo_detail {

inline std::unique_ptr<Layer> conv(int filters, int kh, int kw, int stride, Padding pad, bool bias, Activation act,
                                   Init init, std::string name = {}) {
  Conv2DOptions o;
  o.filters = filters;
  o.kernelH = kh;
  o.kernelW = kw;
  o.strideH = o.strideW = stride;
  o.padding = pad;
  o.bias = bias;
  o.activation = act;
  o.init = init;
  return std::make_unique<Conv2D>(o, std::move(name));
}

inline std::unique_ptr<Layer> dense(int units, Activation act, Init init = Init::GlorotUniform, std::string name = {}) {
  DenseOptions o;
  o.units = units;
  o.activation = act;
  o.init = init;
  return std::make_unique<Dense>(o, std::move(name));
}

inline std::unique_ptr<Layer> maxPool(int size, int stride, Padding pad = Padding::valid()) {
  PoolOptions o;
  o.poolH = o.poolW = size;
  o.strideH = o.strideW = stride;
  o.padding = pad;
  return std::make_unique<MaxPool2D>(o);
}

inline std::unique_ptr<Layer> avgPool(int size, int stride, Padding pad = Padding::valid()) {
  PoolOptions o;
  o.poolH = o.poolW = size;
  o.strideH = o.strideW = stride;
  o.padding = pad;
  return std::make_unique<AvgPool2D>(o);
}

// Keras BatchNormalization defaults (eps 1e-3, momentum 0.99).
inline std::unique_ptr<Layer> kerasBn(bool scale = true) {
  BatchNormOptions o;
  o.scale = scale;
  return std::make_unique<BatchNorm>(o);
}

// PyTorch BatchNorm2d defaults (eps 1e-5, momentum 0.1 == running keeps 0.9).
inline std::unique_ptr<Layer> torchBn() {
  BatchNormOptions o;
  o.epsilon = 1e-5f;
  o.momentum = 0.9f;
  return std::make_unique<BatchNorm>(o);
}

inline std::unique_ptr<Layer> relu() { return std::make_unique<ActivationLayer>(Activation::ReLU); }
inline std::unique_ptr<Layer> dropout(float rate) { return std::make_unique<Dropout>(rate); }

// Builders, one per family (zoo_small.cpp, zoo_reference.cpp, zoo_inception.cpp).
std::unique_ptr<Network> buildMlp(const ModelInput& in);
std::unique_ptr<Network> buildLenet5(const ModelInput& in);
std::unique_ptr<Network> buildMnistCnn(const ModelInput& in);
std::unique_ptr<Network> buildColabCnn(const ModelInput& in);
std::unique_ptr<Network> buildCifarCnn(const ModelInput& in);
std::unique_ptr<Network> buildResnet20(const ModelInput& in);
std::unique_ptr<Network> buildFasttext(const ModelInput& in);
std::unique_ptr<Network> buildImdbBilstm(const ModelInput& in);
std::unique_ptr<Network> buildLstmTextgen(const ModelInput& in);
std::unique_ptr<Network> buildResnet(const ModelInput& in, const std::string& id, const int (&blocks)[4]);
std::unique_ptr<Network> buildVgg16(const ModelInput& in);
std::unique_ptr<Network> buildAlexnet(const ModelInput& in);
std::unique_ptr<Network> buildXception(const ModelInput& in);
std::unique_ptr<Network> buildInceptionV3(const ModelInput& in);
// A decoder-only transformer built from its TransformerSpec (zoo_transformer.cpp): char-gpt.
std::unique_ptr<Network> buildCharGpt(const ModelInput& in);
std::unique_ptr<Network> buildVitTiny(const ModelInput& in);

}  // namespace core::nn::zoo_detail
