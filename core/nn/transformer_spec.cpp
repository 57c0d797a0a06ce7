#include "core/nn/transformer_spec.h"

#include <algorithm>

#include "core/util/error.h"

namespace core::nn {
namespace {

using I = std::int64_t;

}  // namespace

const char* transformerKindName(TransformerKind k) {
  switch (k) {
    case TransformerKind::Decoder: return "decoder";
    case TransformerKind::Encoder: return "encoder";
    case TransformerKind::Vision: return "vision";
  }
  return "decoder";
}

const char* ffnKindName(FfnKind k) {
  switch (k) {
    case FfnKind::Gelu: return "gelu";
    case FfnKind::SwiGlu: return "swiglu";
    case FfnKind::GeGlu: return "geglu";
  }
  return "gelu";
}

const char* normKindName(NormKind k) { return k == NormKind::RmsNorm ? "rmsnorm" : "layernorm"; }
const char* positionKindName(PositionKind k) { return k == PositionKind::Rotary ? "rotary" : "learned"; }

const char* qkNormName(QkNorm k) {
  switch (k) {
    case QkNorm::None: return "none";
    case QkNorm::PerHead: return "per_head";
    case QkNorm::Full: return "full";
  }
  return "none";
}

int TransformerSpec::tokensPerSample(int seqLen) const {
  if (kind == TransformerKind::Vision) return (imageSize / patchSize) * (imageSize / patchSize) + 1;
  return seqLen > 0 ? seqLen : defaultSeqLen;
}

I TransformerSpec::qkvWidth() const {
  if (mla()) return static_cast<I>(heads) * (2 * qkHeadDim() + valueHeadDim());
  return static_cast<I>(heads + 2 * kvHeads) * headDim;
}
I TransformerSpec::attentionWidth() const { return static_cast<I>(heads) * valueHeadDim(); }

double TransformerSpec::attentionPairShare(int seqLen) const {
  if (kind != TransformerKind::Decoder) return 1.0;
  const double t = tokensPerSample(seqLen);
  const double causal = 0.5;
  if (slidingWindow <= 0 || slidingLayerShare <= 0 || slidingWindow >= t) return causal;
  // Query i sees min(i, W) keys: W (1 - W / 2T) of every T on average.
  const double w = slidingWindow;
  const double windowed = w / t * (1.0 - (w - 1.0) / (2.0 * t));
  return slidingLayerShare * windowed + (1.0 - slidingLayerShare) * causal;
}

namespace {
// Token, position and segment tables: lookups, not products.
I lookupParams(const TransformerSpec& s) {
  I p = 0;
  if (s.kind != TransformerKind::Vision) p += static_cast<I>(s.vocab) * s.dModel;
  if (s.position == PositionKind::Learned) p += static_cast<I>(s.maxPositions) * s.dModel;
  p += static_cast<I>(s.tokenTypes) * s.dModel;
  return p;
}

// The weight matrices of one layer's attention.
I attentionMatrices(const TransformerSpec& s) {
  const I d = s.dModel, h = s.heads;
  if (!s.mla()) return d * s.qkvWidth() + s.attentionWidth() * d;
  const I qk = s.qkHeadDim(), q = s.qLoraRank > 0 ? d * s.qLoraRank + static_cast<I>(s.qLoraRank) * h * qk : d * h * qk;
  const I kv = d * (s.kvLoraRank + s.qkRopeHeadDim) + static_cast<I>(s.kvLoraRank) * h * (s.qkNopeHeadDim + s.vHeadDim);
  return q + kv + s.attentionWidth() * d;
}

I ffnMatrices(const TransformerSpec& s, int width) { return (s.gated() ? 3 : 2) * static_cast<I>(s.dModel) * width; }
}  // namespace

I TransformerSpec::embeddingParams() const {
  const I d = dModel;
  I p = lookupParams(*this);
  if (kind == TransformerKind::Vision) {
    const I patchInputs = static_cast<I>(patchSize) * patchSize * channels;
    p += patchInputs * d + d;  // patch projection with bias
    p += d;                    // class token
  }
  if (kind == TransformerKind::Encoder) p += normParams();  // BERT's embedding LayerNorm
  return p;
}

I TransformerSpec::attentionParams() const {
  I p = attentionMatrices(*this);
  if (mla()) {
    p += kvLoraRank + qLoraRank;  // the latents' RMSNorms (none without a query latent)
    // attention_bias: on the two down-projections and the output (DeepseekV3Attention).
    if (hasOutBias()) p += qLoraRank + kvLoraRank + qkRopeHeadDim + dModel;
  } else {
    if (hasQkvBias()) p += qkvWidth();
    if (hasOutBias()) p += dModel;
    if (qkNorm == QkNorm::PerHead) p += 2 * static_cast<I>(headDim);
    if (qkNorm == QkNorm::Full) p += static_cast<I>(heads + kvHeads) * headDim;
  }
  if (attentionSinks) p += heads;
  return p;
}

I TransformerSpec::ffnParams(int width) const {
  const I d = dModel, f = width;
  return ffnMatrices(*this, width) + (hasFfnBias() ? (gated() ? 2 * f : f) + d : 0);
}
I TransformerSpec::ffnParams() const { return ffnParams(ffn); }

I TransformerSpec::normParams() const { return norm == NormKind::RmsNorm ? dModel : 2 * static_cast<I>(dModel); }

I TransformerSpec::denseLayerParams() const { return normsPerLayer * normParams() + attentionParams() + ffnParams(); }

I TransformerSpec::moeLayerParams() const {
  if (!moe()) return denseLayerParams();
  const I d = dModel;
  I p = normsPerLayer * normParams() + attentionParams();
  p += static_cast<I>(experts) * ffnParams(routedFfn()) + static_cast<I>(sharedExperts) * ffnParams(sharedFfn());
  p += d * experts + (routerBias ? experts : 0) + (sharedExpertGate ? d : 0);
  return p;
}

I TransformerSpec::routedExpertParams() const {
  return moe() ? static_cast<I>(moeLayers()) * experts * ffnParams(routedFfn()) : 0;
}

I TransformerSpec::bodyParams() const {
  return static_cast<I>(layers - moeLayers()) * denseLayerParams() + static_cast<I>(moeLayers()) * moeLayerParams();
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

I TransformerSpec::params() const { return embeddingParams() + bodyParams() + headParams(); }

I TransformerSpec::activeParams() const {
  I p = params();
  if (moe()) p -= static_cast<I>(moeLayers()) * (experts - expertsPerToken) * ffnParams(routedFfn());
  return p;
}

I TransformerSpec::inputEmbeddingParams() const {
  I p = lookupParams(*this);
  if (tiedEmbeddings && kind != TransformerKind::Vision) p -= static_cast<I>(vocab) * dModel;  // the head's matrix
  return p;
}

I TransformerSpec::activeMatmulParams() const {
  const I d = dModel;
  const I attention = attentionMatrices(*this);
  const I dense = attention + ffnMatrices(*this, ffn);
  I sparse = attention + static_cast<I>(expertsPerToken) * ffnMatrices(*this, routedFfn()) +
             static_cast<I>(sharedExperts) * ffnMatrices(*this, sharedFfn()) + d * experts;
  if (!moe()) sparse = dense;
  return static_cast<I>(layers - moeLayers()) * dense + static_cast<I>(moeLayers()) * sparse + d * vocab;
}

double TransformerSpec::forwardFlopsPerSample(int seqLen) const {
  const double t = tokensPerSample(seqLen), d = dModel;
  const double body = static_cast<double>(activeMatmulParams()) - d * vocab;  // the blocks' matrices
  double macs = t * body;
  macs += static_cast<double>(layers) * heads * t * t * (qkHeadDim() + valueHeadDim());  // Q.K^T and P.V
  if (kind == TransformerKind::Vision) {
    macs += (t - 1) * static_cast<double>(patchSize) * patchSize * channels * d;  // the patch projection
    macs += d * vocab;                                                           // the class token's head
  } else {
    macs += t * d * vocab;
    if (mlmTransform) macs += t * d * d;
  }
  if (pooler) macs += d * d;
  return 2.0 * macs;
}

void validate(const TransformerSpec& s) {
  auto fail = [&](const std::string& field, const std::string& what) {
    throw util::Error("transformer '" + s.id + "': " + field + ": " + what);
  };
  if (s.id.empty()) fail("id", "must not be empty");
  auto range = [&](const char* field, long long v, long long lo, long long hi) {
    if (v < lo || v > hi)
      fail(field, std::to_string(v) + " must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  };
  range("layers", s.layers, 1, 10000);
  range("d_model", s.dModel, 1, 1 << 20);
  range("heads", s.heads, 1, 1 << 14);
  range("kv_heads", s.kvHeads, 1, 1 << 14);
  range("head_dim", s.headDim, 1, 1 << 14);
  range("ffn", s.ffn, 1, 1 << 22);
  range("vocab", s.vocab, 1, 1 << 24);
  range("default_seq_len", s.defaultSeqLen, 1, 1 << 22);
  range("norms_per_layer", s.normsPerLayer, 0, 8);
  range("experts", s.experts, 1, 4096);
  range("experts_per_token", s.expertsPerToken, 1, s.experts);
  range("expert_ffn", s.expertFfn, 0, 1 << 22);
  range("shared_experts", s.sharedExperts, 0, 64);
  range("shared_expert_ffn", s.sharedExpertFfn, 0, 1 << 22);
  range("dense_layers", s.denseLayers, 0, s.moe() ? s.layers - 1 : 0);
  range("sliding_window", s.slidingWindow, 0, 1 << 22);
  if (!(s.slidingLayerShare >= 0 && s.slidingLayerShare <= 1))
    fail("sliding_layer_share", std::to_string(s.slidingLayerShare) + " must be between 0 and 1");
  if ((s.slidingWindow > 0) != (s.slidingLayerShare > 0))
    fail("sliding_window", "a window needs a share of layers that use it, and a share needs a window");
  if (!s.moe() && (s.sharedExperts > 0 || s.expertFfn > 0 || s.routerBias || s.sharedExpertGate))
    fail("experts", "shared experts, expert widths and router biases need more than one expert");
  if (s.heads % s.kvHeads != 0)
    fail("kv_heads", std::to_string(s.kvHeads) + " does not divide the " + std::to_string(s.heads) + " heads");
  if (s.mla()) {
    range("q_lora_rank", s.qLoraRank, 0, 1 << 20);
    range("kv_lora_rank", s.kvLoraRank, 1, 1 << 20);
    range("qk_nope_head_dim", s.qkNopeHeadDim, 1, 1 << 14);
    range("qk_rope_head_dim", s.qkRopeHeadDim, 0, 1 << 14);
    range("v_head_dim", s.vHeadDim, 1, 1 << 14);
    if (s.qkNorm != QkNorm::None) fail("qk_norm", "latent attention normalises its latents, not q and k");
  } else if (s.qLoraRank || s.qkNopeHeadDim || s.qkRopeHeadDim || s.vHeadDim) {
    fail("kv_lora_rank", "the latent-attention dimensions need a kv_lora_rank");
  }
  if (s.position == PositionKind::Learned && s.maxPositions < 1) fail("max_positions", "learned positions need a table");
  if (s.kind == TransformerKind::Vision) {
    range("image_size", s.imageSize, 1, 1 << 16);
    range("patch_size", s.patchSize, 1, s.imageSize);
    range("channels", s.channels, 1, 64);
    if (s.imageSize % s.patchSize != 0) fail("patch_size", "must divide the image size");
    const std::int64_t side = s.imageSize / s.patchSize;
    if (side * side + 1 > (std::int64_t{1} << 22))
      fail("patch_size", std::to_string(side * side) + " patches an image is more than 4,194,304 tokens");
  }
  // The whole model must stay countable in 64 bits: an upper bound, in doubles, of every term
  // params() adds (10^15 parameters is a thousand times the largest model published).
  const double d = s.dModel, h = s.heads, width = std::max({s.ffn, s.expertFfn, s.sharedExpertFfn});
  const double attention = 2.0 * d * (h + 2.0 * s.kvHeads) * s.headDim + d * s.qLoraRank +
                           static_cast<double>(s.qLoraRank) * h * (s.qkNopeHeadDim + s.qkRopeHeadDim) +
                           d * (s.kvLoraRank + s.qkRopeHeadDim) +
                           static_cast<double>(s.kvLoraRank) * h * (s.qkNopeHeadDim + s.vHeadDim) + h * s.vHeadDim * d;
  const double ffns = (1.0 + s.experts + s.sharedExperts) * (3.0 * d * width + 3.0 * width + d);
  const double tables = (2.0 * s.vocab + s.maxPositions + s.tokenTypes + 4.0) * d +
                        static_cast<double>(s.patchSize) * s.patchSize * s.channels * d;
  if (s.layers * (attention + ffns + 8.0 * d) + tables > 1e15) fail("layers", "the dimensions make more than 10^15 parameters");
}

}  // namespace core::nn
