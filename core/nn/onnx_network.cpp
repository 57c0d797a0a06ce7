#include "core/nn/onnx_network.h"

#include "core/nn/batch_norm.h"
#include "core/nn/conv2d.h"
#include "core/nn/dense.h"
#include "core/nn/dropout.h"
#include "core/nn/network.h"
#include "core/nn/pooling.h"
#include "core/nn/shape_layers.h"
#include "core/util/error.h"

namespace core::nn {

using util::Error;

std::unique_ptr<Network> networkFromChain(const std::string& id, const std::vector<OnnxLayerRecipe>& chain,
                                          const ModelInput& in) {
  auto net = std::make_unique<Network>(id, in.shape, in.classes);
  auto padding = [](const OnnxLayerRecipe& r) {
    return r.padH == 0 && r.padW == 0 ? Padding::valid() : Padding::explicitPad(r.padH, r.padW);
  };
  for (const OnnxLayerRecipe& r : chain) {
    switch (r.kind) {
      case LayerKind::Conv2D: {
        Conv2DOptions o;
        o.filters = r.units;
        o.kernelH = r.kernelH;
        o.kernelW = r.kernelW;
        o.strideH = r.strideH;
        o.strideW = r.strideW;
        o.padding = padding(r);
        o.bias = r.bias;
        o.init = Init::TorchDefault;
        net->add(std::make_unique<Conv2D>(o));
        break;
      }
      case LayerKind::Dense: {
        DenseOptions o;
        o.units = r.units;
        o.bias = r.bias;
        o.init = Init::TorchDefault;
        net->add(std::make_unique<Dense>(o));
        break;
      }
      case LayerKind::Activation: net->add(std::make_unique<ActivationLayer>(r.activation)); break;
      case LayerKind::MaxPool2D:
      case LayerKind::AvgPool2D: {
        PoolOptions o;
        o.poolH = r.kernelH;
        o.poolW = r.kernelW;
        o.strideH = r.strideH;
        o.strideW = r.strideW;
        o.padding = padding(r);
        if (r.kind == LayerKind::MaxPool2D) net->add(std::make_unique<MaxPool2D>(o));
        else net->add(std::make_unique<AvgPool2D>(o));
        break;
      }
      case LayerKind::GlobalAvgPool: net->add(std::make_unique<GlobalAvgPool>()); break;
      case LayerKind::BatchNorm: {
        BatchNormOptions o;
        o.epsilon = r.epsilon;
        o.momentum = r.momentum;
        net->add(std::make_unique<BatchNorm>(o));
        break;
      }
      case LayerKind::Flatten: net->add(std::make_unique<Flatten>()); break;
      case LayerKind::Dropout: net->add(std::make_unique<Dropout>(r.rate)); break;
      default: throw Error("layer kind " + std::string(layerKindName(r.kind)) + " cannot be built");
    }
  }
  return net;
}

}  // namespace core::nn
