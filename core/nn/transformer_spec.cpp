#include "core/nn/transformer_spec.h"

#include <algorithm>

#include "core/util/error.h"

namespace core::nn {
namespace {

using I = std::int64_t;

// The families, then each model as its family plus its published dimensions.
TransformerSpec gpt2(std::string id, std::string name, int layers, int d, int heads, double published) {
  TransformerSpec s;
  s.id = std::move(id);
  s.name = std::move(name);
  s.kind = TransformerKind::Decoder;
  s.layers = layers;
  s.dModel = d;
  s.heads = s.kvHeads = heads;
  s.headDim = d / heads;
  s.ffn = 4 * d;
  s.ffnKind = FfnKind::Gelu;
  s.norm = NormKind::LayerNorm;
  s.position = PositionKind::Learned;
  s.vocab = 50257;
  s.maxPositions = s.defaultSeqLen = 1024;
  s.tiedEmbeddings = true;
  s.bias = true;
  s.publishedParams = published;
  s.source = "Radford et al. 2019, GPT-2 (Table 2) and openai/gpt-2 hparams; HF transformers GPT2Config";
  return s;
}

TransformerSpec gpt3(std::string id, std::string name, int layers, int d, int heads, double published) {
  TransformerSpec s = gpt2(std::move(id), std::move(name), layers, d, heads, published);
  s.maxPositions = s.defaultSeqLen = 2048;
  s.source = "Brown et al. 2020, GPT-3 (Table 2.1: n_layers, d_model, n_heads, d_head; context 2048)";
  return s;
}

TransformerSpec bert(std::string id, std::string name, int layers, int d, int heads, double published) {
  TransformerSpec s = gpt2(std::move(id), std::move(name), layers, d, heads, published);
  s.kind = TransformerKind::Encoder;
  s.vocab = 30522;
  s.maxPositions = s.defaultSeqLen = 512;
  s.tokenTypes = 2;
  s.pooler = true;
  s.mlmTransform = true;
  s.source = "Devlin et al. 2019, BERT (section 3: L, H, A; vocabulary 30,522 WordPiece, 512 positions, "
             "2 segments); google-research/bert bert_config.json";
  return s;
}

TransformerSpec llama(std::string id, std::string name, int layers, int d, int heads, int kvHeads, int ffn, int vocab,
                      int seq, double published, std::string source) {
  TransformerSpec s;
  s.id = std::move(id);
  s.name = std::move(name);
  s.kind = TransformerKind::Decoder;
  s.layers = layers;
  s.dModel = d;
  s.heads = heads;
  s.kvHeads = kvHeads;
  s.headDim = d / heads;
  s.ffn = ffn;
  s.ffnKind = FfnKind::SwiGlu;
  s.norm = NormKind::RmsNorm;
  s.position = PositionKind::Rotary;
  s.vocab = vocab;
  s.defaultSeqLen = seq;
  s.tiedEmbeddings = false;
  s.bias = false;
  s.publishedParams = published;
  s.source = std::move(source);
  return s;
}

// MaxText's dense configurations (base.yml: head_dim 128, SwiGLU, vocabulary 32,000, untied,
// as many KV heads as heads; configs/<chip>/<size>.sh set layers, width, heads, FFN).
TransformerSpec maxtext(std::string id, int layers, int d, int heads, int ffn, double published) {
  TransformerSpec s = llama(id, "MaxText " + id.substr(8) + " dense", layers, d, heads, heads, ffn, 32000, 2048,
                            published,
                            "AI-Hypercomputer/maxtext base.yml (head_dim 128, SwiGLU, vocab 32000, untied) + "
                            "configs/v5p/" + id.substr(8) + ".sh");
  s.headDim = 128;
  return s;
}

TransformerSpec vit(std::string id, std::string name, int layers, int d, int heads, int mlp, double published) {
  TransformerSpec s;
  s.id = std::move(id);
  s.name = std::move(name);
  s.kind = TransformerKind::Vision;
  s.layers = layers;
  s.dModel = d;
  s.heads = s.kvHeads = heads;
  s.headDim = d / heads;
  s.ffn = mlp;
  s.ffnKind = FfnKind::Gelu;
  s.norm = NormKind::LayerNorm;
  s.position = PositionKind::Learned;
  s.vocab = 1000;  // ImageNet classes
  s.imageSize = 224;
  s.patchSize = 16;
  s.channels = 3;
  s.maxPositions = s.defaultSeqLen = (224 / 16) * (224 / 16) + 1;
  s.bias = true;
  s.headBias = true;
  s.publishedParams = published;
  s.source = "Dosovitskiy et al. 2021, ViT (Table 1: layers, hidden, MLP, heads; 16x16 patches at 224x224); "
             "ViT-S from Touvron et al. 2021 (DeiT-S)";
  return s;
}

std::vector<TransformerSpec> buildTable() {
  std::vector<TransformerSpec> t;
  // The engine's own small transformers (../shared/bench/torch_baseline.py specifies them).
  {
    TransformerSpec s = gpt2("char-gpt", "char-gpt (byte-level GPT, 4 layers)", 4, 128, 4, 875264);
    s.vocab = 256;
    s.maxPositions = s.defaultSeqLen = 128;
    s.tiedEmbeddings = false;
    s.headBias = false;
    s.source = "../shared/bench/torch_baseline.py CharGPT (the engine's specification)";
    t.push_back(s);
  }
  {
    TransformerSpec s = vit("vit-tiny", "vit-tiny (ViT on 28x28, 4x4 patches)", 4, 64, 4, 256, 205066);
    s.vocab = 10;
    s.imageSize = 28;
    s.patchSize = 4;
    s.channels = 1;
    s.maxPositions = s.defaultSeqLen = 7 * 7 + 1;
    s.source = "../shared/bench/torch_baseline.py ViTTiny (the engine's specification)";
    t.push_back(s);
  }
  t.push_back(bert("bert-base", "BERT-base", 12, 768, 12, 110e6));
  t.push_back(bert("bert-large", "BERT-large", 24, 1024, 16, 340e6));
  t.push_back(gpt2("gpt2-small", "GPT-2 small", 12, 768, 12, 124e6));
  t.push_back(gpt2("gpt2-medium", "GPT-2 medium", 24, 1024, 16, 355e6));
  t.push_back(gpt2("gpt2-large", "GPT-2 large", 36, 1280, 20, 774e6));
  t.push_back(gpt2("gpt2-xl", "GPT-2 XL", 48, 1600, 25, 1.5e9));
  t.push_back(gpt3("gpt3-xl", "GPT-3 XL", 24, 2048, 16, 1.3e9));
  t.push_back(gpt3("gpt3-175b", "GPT-3 175B", 96, 12288, 96, 175e9));
  const std::string l2 = "Touvron et al. 2023, Llama 2 (Table 1) + meta-llama/Llama-2-*-hf config.json";
  const std::string l3 = "Meta Llama 3 model card + meta-llama/Meta-Llama-3-*/config.json (vocab 128,256, GQA 8)";
  t.push_back(llama("llama2-7b", "Llama 2 7B", 32, 4096, 32, 32, 11008, 32000, 4096, 6.74e9, l2));
  t.push_back(llama("llama2-13b", "Llama 2 13B", 40, 5120, 40, 40, 13824, 32000, 4096, 13.0e9, l2));
  t.push_back(llama("llama2-70b", "Llama 2 70B", 80, 8192, 64, 8, 28672, 32000, 4096, 69.0e9, l2));
  t.push_back(llama("llama3-8b", "Llama 3 8B", 32, 4096, 32, 8, 14336, 128256, 8192, 8.03e9, l3));
  t.push_back(llama("llama3-70b", "Llama 3 70B", 80, 8192, 64, 8, 28672, 128256, 8192, 70.6e9, l3));
  t.push_back(llama("llama31-405b", "Llama 3.1 405B", 126, 16384, 128, 8, 53248, 128256, 8192, 405e9,
                    "Llama 3 herd of models (Dubey et al. 2024, Table 3) + meta-llama/Llama-3.1-405B config.json"));
  t.push_back(llama("mistral-7b", "Mistral 7B", 32, 4096, 32, 8, 14336, 32000, 8192, 7.24e9,
                    "Jiang et al. 2023, Mistral 7B (Table 1) + mistralai/Mistral-7B-v0.1 config.json"));
  {
    TransformerSpec s = llama("mixtral-8x7b", "Mixtral 8x7B (top-2 of 8 experts)", 32, 4096, 32, 8, 14336, 32000,
                              8192, 46.7e9,
                              "Jiang et al. 2024, Mixtral of Experts (section 2: 8 experts, top-2; 47B total, 13B "
                              "active) + mistralai/Mixtral-8x7B-v0.1 config.json");
    s.experts = 8;
    s.expertsPerToken = 2;
    t.push_back(s);
  }
  t.push_back(maxtext("maxtext-16b", 32, 4096, 64, 28672, 0));
  t.push_back(maxtext("maxtext-22b", 48, 6144, 24, 24576, 0));
  t.push_back(maxtext("maxtext-32b", 32, 8192, 64, 28672, 0));
  t.push_back(maxtext("maxtext-128b", 64, 8192, 128, 57344, 0));
  t.push_back(vit("vit-s16", "ViT-S/16", 12, 384, 6, 1536, 22e6));
  t.push_back(vit("vit-b16", "ViT-B/16", 12, 768, 12, 3072, 86e6));
  t.push_back(vit("vit-l16", "ViT-L/16", 24, 1024, 16, 4096, 307e6));
  for (const auto& s : t) validate(s);
  return t;
}

}  // namespace

const char* transformerKindName(TransformerKind k) {
  switch (k) {
    case TransformerKind::Decoder: return "decoder";
    case TransformerKind::Encoder: return "encoder";
    case TransformerKind::Vision: return "vision";
  }
  return "decoder";
}

const char* ffnKindName(FfnKind k) { return k == FfnKind::SwiGlu ? "swiglu" : "gelu"; }

int TransformerSpec::tokensPerSample(int seqLen) const {
  if (kind == TransformerKind::Vision) return (imageSize / patchSize) * (imageSize / patchSize) + 1;
  return seqLen > 0 ? seqLen : defaultSeqLen;
}

I TransformerSpec::qkvWidth() const { return static_cast<I>(heads + 2 * kvHeads) * headDim; }
I TransformerSpec::attentionWidth() const { return static_cast<I>(heads) * headDim; }

I TransformerSpec::embeddingParams() const {
  const I d = dModel;
  I p = 0;
  if (kind == TransformerKind::Vision) {
    const I patchInputs = static_cast<I>(patchSize) * patchSize * channels;
    p += patchInputs * d + d;  // patch projection with bias
    p += d;                    // class token
  } else {
    p += static_cast<I>(vocab) * d;
  }
  if (position == PositionKind::Learned) p += static_cast<I>(maxPositions) * d;
  p += static_cast<I>(tokenTypes) * d;
  if (kind == TransformerKind::Encoder) p += normParams();  // BERT's embedding LayerNorm
  return p;
}

I TransformerSpec::attentionParams() const {
  const I d = dModel;
  I p = d * qkvWidth() + attentionWidth() * d;
  if (bias) p += qkvWidth() + d;
  return p;
}

I TransformerSpec::ffnParams() const {
  const I d = dModel, f = ffn;
  if (ffnKind == FfnKind::SwiGlu) return 3 * d * f + (bias ? 2 * f + d : 0);
  return 2 * d * f + (bias ? f + d : 0);
}

I TransformerSpec::normParams() const { return norm == NormKind::RmsNorm ? dModel : 2 * static_cast<I>(dModel); }

I TransformerSpec::layerParams() const {
  I p = 2 * normParams() + attentionParams() + static_cast<I>(experts) * ffnParams();
  if (experts > 1) p += static_cast<I>(dModel) * experts;  // the router
  return p;
}

I TransformerSpec::headParams() const {
  const I d = dModel;
  I p = 0;
  if (kind != TransformerKind::Encoder) p += normParams();  // final norm (BERT is post-LN: none)
  if (!tiedEmbeddings) p += d * vocab + (headBias ? vocab : 0);
  if (pooler) p += d * d + d;
  if (mlmTransform) p += d * d + d + normParams() + vocab;  // dense + LayerNorm + the decoder's bias
  return p;
}

I TransformerSpec::params() const { return embeddingParams() + static_cast<I>(layers) * layerParams() + headParams(); }

I TransformerSpec::activeMatmulParams() const {
  const I d = dModel;
  I perLayer = d * qkvWidth() + attentionWidth() * d;
  perLayer += static_cast<I>(expertsPerToken) * (ffnKind == FfnKind::SwiGlu ? 3 : 2) * d * ffn;
  if (experts > 1) perLayer += d * experts;
  return static_cast<I>(layers) * perLayer + d * vocab;  // the head's matmul runs tied or not
}

const std::vector<TransformerSpec>& referenceTransformers() {
  static const std::vector<TransformerSpec> table = buildTable();
  return table;
}

const TransformerSpec* findTransformer(const std::string& id) {
  for (const auto& s : referenceTransformers())
    if (s.id == id) return &s;
  return nullptr;
}

std::string transformerIdList() {
  std::string out;
  for (const auto& s : referenceTransformers()) out += (out.empty() ? "" : ", ") + s.id;
  return out;
}

const TransformerSpec& transformerSpec(const std::string& id) {
  if (const TransformerSpec* s = findTransformer(id)) return *s;
  throw util::Error("unknown transformer '" + id + "' (known: " + transformerIdList() + ")");
}

void validate(const TransformerSpec& s) {
  auto fail = [&](const std::string& field, const std::string& what) {
    throw util::Error("transformer '" + s.id + "': " + field + ": " + what);
  };
  if (s.id.empty()) fail("id", "must not be empty");
  auto positive = [&](const char* field, long long v, long long hi) {
    if (v < 1 || v > hi) fail(field, std::to_string(v) + " must be in [1, " + std::to_string(hi) + "]");
  };
  positive("layers", s.layers, 10000);
  positive("d_model", s.dModel, 1 << 20);
  positive("heads", s.heads, 1 << 14);
  positive("kv_heads", s.kvHeads, 1 << 14);
  positive("head_dim", s.headDim, 1 << 14);
  positive("ffn", s.ffn, 1 << 22);
  positive("vocab", s.vocab, 1 << 24);
  positive("experts", s.experts, 4096);
  positive("experts_per_token", s.expertsPerToken, s.experts);
  if (s.heads % s.kvHeads != 0)
    fail("kv_heads", std::to_string(s.kvHeads) + " does not divide the " + std::to_string(s.heads) + " heads");
  if (s.position == PositionKind::Learned && s.maxPositions < 1) fail("max_positions", "learned positions need a table");
  if (s.kind == TransformerKind::Vision) {
    positive("image_size", s.imageSize, 1 << 16);
    positive("patch_size", s.patchSize, s.imageSize);
    positive("channels", s.channels, 64);
    if (s.imageSize % s.patchSize != 0) fail("patch_size", "must divide the image size");
  }
}

}  // namespace core::nn
