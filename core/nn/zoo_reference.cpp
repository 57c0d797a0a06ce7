// Reference CNNs as torchvision defines them (ResNet v1.5, VGG16 without batch norm, AlexNet).
#include "core/nn/zoo_builders.h"

namespace core::nn::zoo_detail {
namespace {

std::unique_ptr<Layer> tvConv(int filters, int k, int stride, int pad) {
  return conv(filters, k, k, stride, Padding::explicitPad(pad, pad), false, Activation::Linear, Init::HeNormal);
}

// torchvision Bottleneck: 1x1, 3x3 (stride here, v1.5), 1x1 x4; projection when the shape changes.
std::unique_ptr<Layer> bottleneck(const std::string& name, int inChannels, int planes, int stride) {
  auto block = std::make_unique<Residual>(name, Activation::ReLU);
  Sequential& m = block->main();
  m.add(tvConv(planes, 1, 1, 0));
  m.add(torchBn());
  m.add(relu());
  m.add(tvConv(planes, 3, stride, 1));
  m.add(torchBn());
  m.add(relu());
  m.add(tvConv(planes * 4, 1, 1, 0));
  m.add(torchBn());
  if (stride != 1 || inChannels != planes * 4) {
    block->shortcut().add(tvConv(planes * 4, 1, stride, 0));
    block->shortcut().add(torchBn());
  }
  return block;
}

}  // namespace

std::unique_ptr<Network> buildResnet(const ModelInput& in, const std::string& id, const int (&blocks)[4]) {
  auto net = std::make_unique<Network>(id, in.shape, in.classes);
  net->add(tvConv(64, 7, 2, 3));
  net->add(torchBn());
  net->add(relu());
  net->add(maxPool(3, 2, Padding::explicitPad(1, 1)));
  int channels = 64;
  for (int stage = 0; stage < 4; ++stage) {
    const int planes = 64 << stage;
    for (int b = 0; b < blocks[stage]; ++b) {
      const int stride = (stage > 0 && b == 0) ? 2 : 1;
      net->add(bottleneck("layer" + std::to_string(stage + 1) + "." + std::to_string(b), channels, planes, stride));
      channels = planes * 4;
    }
  }
  net->add(std::make_unique<GlobalAvgPool>());
  net->add(dense(in.classes, Activation::Linear, Init::TorchDefault, "fc"));
  return net;
}

std::unique_ptr<Network> buildVgg16(const ModelInput& in) {
  auto net = std::make_unique<Network>("vgg16", in.shape, in.classes);
  const int config[] = {64, 64, 0, 128, 128, 0, 256, 256, 256, 0, 512, 512, 512, 0, 512, 512, 512, 0};
  for (int c : config) {
    if (c == 0) net->add(maxPool(2, 2));
    else net->add(conv(c, 3, 3, 1, Padding::explicitPad(1, 1), true, Activation::ReLU, Init::HeNormal));
  }
  net->add(std::make_unique<Flatten>());
  net->add(dense(4096, Activation::ReLU, Init::TorchDefault));
  net->add(dropout(0.5f));
  net->add(dense(4096, Activation::ReLU, Init::TorchDefault));
  net->add(dropout(0.5f));
  net->add(dense(in.classes, Activation::Linear, Init::TorchDefault));
  return net;
}

std::unique_ptr<Network> buildAlexnet(const ModelInput& in) {
  auto net = std::make_unique<Network>("alexnet", in.shape, in.classes);
  net->add(conv(64, 11, 11, 4, Padding::explicitPad(2, 2), true, Activation::ReLU, Init::TorchDefault));
  net->add(maxPool(3, 2));
  net->add(conv(192, 5, 5, 1, Padding::explicitPad(2, 2), true, Activation::ReLU, Init::TorchDefault));
  net->add(maxPool(3, 2));
  net->add(conv(384, 3, 3, 1, Padding::explicitPad(1, 1), true, Activation::ReLU, Init::TorchDefault));
  net->add(conv(256, 3, 3, 1, Padding::explicitPad(1, 1), true, Activation::ReLU, Init::TorchDefault));
  net->add(conv(256, 3, 3, 1, Padding::explicitPad(1, 1), true, Activation::ReLU, Init::TorchDefault));
  net->add(maxPool(3, 2));
  net->add(std::make_unique<Flatten>());
  net->add(dropout(0.5f));
  net->add(dense(4096, Activation::ReLU, Init::TorchDefault));
  net->add(dropout(0.5f));
  net->add(dense(4096, Activation::ReLU, Init::TorchDefault));
  net->add(dense(in.classes, Activation::Linear, Init::TorchDefault));
  return net;
}

}  // namespace core::nn::zoo_detail
