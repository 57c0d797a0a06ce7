// Transformers in the engine, built layer for layer from the same TransformerSpec the simulator
// reads (core/nn/transformer_spec.h): char-gpt and vit-tiny, as ../shared/bench/torch_baseline.py
// specifies them.
#include "core/nn/zoo_transformer.h"

#include <cmath>

#include "core/nn/composite.h"
#include "core/nn/dense.h"
#include "core/nn/embedding.h"
#include "core/nn/transformer_layers.h"
#include "core/nn/transformer_spec.h"
#include "core/util/error.h"

namespace core::nn::zoo_detail {
namespace {

std::unique_ptr<Layer> tokenLinear(int units, bool bias, float initScale, std::string name) {
  DenseOptions o;
  o.units = units;
  o.bias = bias;
  o.perToken = true;
  o.init = Init::GptNormal;
  o.initScale = initScale;
  return std::make_unique<Dense>(o, std::move(name));
}

// x = x + Attn(LN1(x)); x = x + W2 GELU(W1 LN2(x)). The residual-output projections start at
// 1/sqrt(2 layers) of the others (GPT-2; the peer's ViT keeps them all at 0.02).
void addBlock(Network& net, const TransformerSpec& s, int index, bool causal, bool scaledResiduals = true) {
  const std::string b = "block" + std::to_string(index);
  const float residualScale = scaledResiduals ? 1.0f / std::sqrt(2.0f * static_cast<float>(s.layers)) : 1.0f;
  auto attn = std::make_unique<Residual>(b + "/attn");
  attn->main().add(std::make_unique<LayerNorm>(b + "/ln1"));
  attn->main().add(tokenLinear(static_cast<int>(s.qkvWidth()), s.bias, 1.0f, b + "/qkv"));
  attn->main().add(std::make_unique<SelfAttention>(s.heads, causal, b + "/attention"));
  attn->main().add(tokenLinear(s.dModel, s.bias, residualScale, b + "/out"));
  net.add(std::move(attn));
  auto mlp = std::make_unique<Residual>(b + "/mlp");
  mlp->main().add(std::make_unique<LayerNorm>(b + "/ln2"));
  mlp->main().add(tokenLinear(s.ffn, s.bias, 1.0f, b + "/fc1"));
  mlp->main().add(std::make_unique<Gelu>(b + "/gelu"));
  mlp->main().add(tokenLinear(s.dModel, s.bias, residualScale, b + "/fc2"));
  net.add(std::move(mlp));
}

}  // namespace

std::unique_ptr<Network> buildCharGpt(const ModelInput& in) {
  const TransformerSpec& s = transformerSpec("char-gpt");
  const int context = in.shape.h;
  if (context < 2 || context > s.maxPositions)
    throw util::Error("char-gpt reads 2 to " + std::to_string(s.maxPositions) + " bytes of context, not " +
                      std::to_string(context));
  // A byte-level model always predicts the 256 byte values, whatever classes the caller names.
  auto net = std::make_unique<Network>("char-gpt", Shape{1, context, 1}, s.vocab);
  net->add(std::make_unique<Embedding>(s.vocab, s.dModel, "tok_emb", true));
  net->add(std::make_unique<PositionEmbedding>("pos_emb"));
  for (int i = 0; i < s.layers; ++i) addBlock(*net, s, i, true);
  net->add(std::make_unique<LayerNorm>("ln_f"));
  net->add(tokenLinear(s.vocab, s.headBias, 1.0f, "head"));
  return net;
}

// ViT: 4x4 patches -> Linear(16 -> 64) tokens, a class token, learned positions, 4 pre-LN
// encoder blocks (no mask), LayerNorm on the class token, Linear(64 -> classes).
std::unique_ptr<Network> buildVitTiny(const ModelInput& in) {
  const TransformerSpec& s = transformerSpec("vit-tiny");
  if (in.shape.c != s.channels || in.shape.h != s.imageSize || in.shape.w != s.imageSize)
    throw util::Error("vit-tiny reads " + std::to_string(s.channels) + "x" + std::to_string(s.imageSize) + "x" +
                      std::to_string(s.imageSize) + " images (Fashion-MNIST, MNIST)");
  auto net = std::make_unique<Network>("vit-tiny", in.shape, in.classes);
  net->add(std::make_unique<Patchify>(s.patchSize, "patches"));
  net->add(tokenLinear(s.dModel, true, 1.0f, "patch_embedding"));
  net->add(std::make_unique<ClassToken>("cls"));
  net->add(std::make_unique<PositionEmbedding>("pos_emb"));
  for (int i = 0; i < s.layers; ++i) addBlock(*net, s, i, false, false);
  net->add(std::make_unique<TakeToken>(0, "cls_token"));
  net->add(std::make_unique<LayerNorm>("ln_f"));
  DenseOptions head;
  head.units = in.classes;
  head.init = Init::GptNormal;
  net->add(std::make_unique<Dense>(head, "head"));
  return net;
}

}  // namespace core::nn::zoo_detail
