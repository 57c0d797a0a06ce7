#include "core/sim/llm_workload.h"

#include "core/util/error.h"

namespace core::sim {
namespace {

using nn::FfnKind;
using nn::TransformerKind;

TransformerOp matmul(std::string name, double rows, double contraction, bool splitByTp = true, bool bias = false) {
  TransformerOp op;
  op.bias = bias;
  op.name = std::move(name);
  op.kind = OpKind::Matmul;
  op.rows = rows;
  op.contraction = contraction;
  op.splitByTp = splitByTp;
  op.savedElements = contraction;  // the input, for the weight gradient
  return op;
}

// An element-wise op: per token, the elements its eager kernels read and write (of them, `wide`
// in fp32 under autocast) and how many kernels that is; and the same when the stack fuses it.
struct Eager {
  double elements, wide;
  int kernels;
};
struct Fused {
  double elements, wide;
};

TransformerOp elementwise(std::string name, Eager eager, Fused fused, double saved) {
  TransformerOp op;
  op.name = std::move(name);
  op.kind = OpKind::Elementwise;
  op.elements = eager.elements;
  op.wideElements = eager.wide;
  op.kernels = eager.kernels;
  op.fusedElements = fused.elements;
  op.fusedWideElements = fused.wide;
  op.savedElements = saved;
  return op;
}

}  // namespace

std::int64_t loraParams(const nn::TransformerSpec& s, int rank) {
  const std::int64_t d = s.dModel, q = s.attentionWidth(), kv = static_cast<std::int64_t>(s.kvHeads) * s.headDim;
  return static_cast<std::int64_t>(rank) * s.layers * ((d + q) + 2 * (d + kv) + (q + d));
}

ModelSize modelSizeOf(const nn::TransformerSpec& spec, int seqLen) {
  ModelSize s;
  s.params = s.trainableParams = spec.params();
  s.activeParams = spec.moe() ? spec.activeParams() : 0;
  s.inputEmbeddingParams = spec.moe() ? spec.inputEmbeddingParams() : 0;
  s.forwardFlopsPerSample = spec.forwardFlopsPerSample(seqLen);
  return s;
}

ModelSize modelSizeOf(const TransformerWork& w) {
  ModelSize s = modelSizeOf(*w.spec, w.seqLen);
  s.params = w.params;  // the base model (the adapters are the trainable ones)
  s.trainableParams = w.trainableParams;
  return s;
}

TransformerWork makeTransformerWork(const nn::TransformerSpec& spec, int seqLen, Finetune finetune, int loraRank) {
  TransformerWork w;
  w.spec = &spec;
  w.seqLen = spec.tokensPerSample(seqLen);
  if (spec.kind != TransformerKind::Vision && spec.position == nn::PositionKind::Learned && w.seqLen > spec.maxPositions)
    throw util::FieldError("seq_len", std::to_string(w.seqLen) + " is longer than " + spec.id + "'s " +
                      std::to_string(spec.maxPositions) + " learned positions");
  if (w.seqLen < 1 || w.seqLen > (1 << 22))
    throw util::FieldError("seq_len", std::to_string(w.seqLen) + " must be between 1 and 4194304");
  w.causal = spec.kind == TransformerKind::Decoder;
  w.finetune = finetune;
  if (finetune == Finetune::Lora) {
    if (loraRank < 1 || loraRank > spec.dModel)
      throw util::FieldError("lora_rank", std::to_string(loraRank) + " must be between 1 and d_model (" +
                        std::to_string(spec.dModel) + ")");
    w.loraRank = loraRank;
    w.loraParams = loraParams(spec, loraRank);
  }
  const double d = spec.dModel, f = spec.ffn, q = static_cast<double>(spec.attentionWidth());
  const double qkv = static_cast<double>(spec.qkvWidth());
  const bool lora = finetune == Finetune::Lora;

  // Before the first block: the token (or patch) embedding and positions.
  if (spec.kind == TransformerKind::Vision) {
    const double patch = static_cast<double>(spec.patchSize) * spec.patchSize * spec.channels;
    TransformerOp p = matmul("patch_embedding", d, patch, false, true);  // a conv with a bias
    p.frozen = lora;
    w.pre.push_back(p);
  }
  // Token (and learned position) lookups and their sum, in fp32 under autocast (fp32 tables).
  const bool learned = spec.position == nn::PositionKind::Learned;
  w.pre.push_back(learned ? elementwise("embedding", {5 * d, 5 * d, 3}, {2 * d, 2 * d}, 0)
                          : elementwise("embedding", {2 * d, 2 * d, 1}, {2 * d, 2 * d}, 0));

  // One block, pre-norm (BERT is post-norm: the same ops in another order, the same cost).
  const bool rotary = spec.position == nn::PositionKind::Rotary;
  // A norm: eager reads x and writes y in fp32 (autocast keeps norms in fp32), then casts y to
  // 16 bits for the matmul (2 kernels). RMSNorm written in PyTorch ops (Llama's reference code)
  // is 7: square, mean, add, rsqrt, two multiplies and the cast. Fused: x in, the 16-bit y out.
  const bool rms = spec.norm == nn::NormKind::RmsNorm;
  const Eager norm = rms ? Eager{9 * d, 8 * d, 7} : Eager{4 * d, 3 * d, 2};
  w.block.push_back(elementwise("norm_1", norm, {2 * d, d}, d));
  if (spec.mla()) {
    // Multi-head latent attention: the queries through their latent (or directly), the keys and
    // values through one shared latent and a rotary key, then up to every head.
    const double heads = spec.heads, qk = spec.qkHeadDim();
    const double kvLatent = spec.kvLoraRank + spec.qkRopeHeadDim;
    if (spec.qLoraRank > 0) {
      TransformerOp qa = matmul("q_latent", spec.qLoraRank, d, false);
      qa.frozen = lora;
      w.block.push_back(qa);
      const double r = spec.qLoraRank;
      w.block.push_back(elementwise("q_latent_norm", rms ? Eager{9 * r, 8 * r, 7} : Eager{4 * r, 3 * r, 2}, {2 * r, r}, r));
      TransformerOp qb = matmul("q_up", heads * qk, r, true);
      qb.frozen = lora;
      w.block.push_back(qb);
    } else {
      TransformerOp qp = matmul("q", heads * qk, d, true);
      qp.frozen = lora;
      w.block.push_back(qp);
    }
    TransformerOp kva = matmul("kv_latent", kvLatent, d, false);
    kva.frozen = lora;
    kva.savedElements = 0;  // reads the same normalised input as the queries, kept once
    w.block.push_back(kva);
    const double r = spec.kvLoraRank;
    w.block.push_back(elementwise("kv_latent_norm", rms ? Eager{9 * r, 8 * r, 7} : Eager{4 * r, 3 * r, 2}, {2 * r, r}, r));
    TransformerOp kvb = matmul("kv_up", heads * (spec.qkNopeHeadDim + spec.vHeadDim), r, true);
    kvb.frozen = lora;
    w.block.push_back(kvb);
  } else {
    TransformerOp proj = matmul("qkv", qkv, d, true, spec.hasQkvBias());
    proj.frozen = lora;
    w.block.push_back(proj);
  }
  // Norms of q and k (Qwen3, OLMo 2): RMSNorm over each head or the whole projection.
  if (spec.qkNorm != nn::QkNorm::None) {
    const double qk = q + static_cast<double>(spec.kvHeads) * spec.headDim;
    w.block.push_back(elementwise("qk_norm", rms ? Eager{9 * qk, 8 * qk, 14} : Eager{4 * qk, 3 * qk, 4}, {2 * qk, qk}, qk));
  }
  // Rotary embedding of q and k: eager x*cos + rotate_half(x)*sin is five kernels a tensor
  // (negate, concatenate, two multiplies, add), ten passes over it; fused into the projection's
  // epilogue or the attention prologue. Latent attention rotates only its rotary part.
  const double rotated = spec.mla() ? static_cast<double>(spec.heads + 1) * spec.qkRopeHeadDim : qkv - (qkv - q) / 2;
  if (rotary) w.block.push_back(elementwise("rotary", {10 * rotated, 0, 10}, {0, 0}, 0));
  {
    TransformerOp a;
    a.name = "attention";
    a.kind = OpKind::Attention;
    a.savedElements = qkv + q;  // Q, K, V and the output (the T x T term is the step model's)
    w.block.push_back(a);
  }
  TransformerOp out = matmul("attention_out", d, q, true, spec.hasOutBias());
  out.frozen = lora;
  out.splitContraction = true;
  out.savedElements = 0;  // its input is the attention output, already kept
  // Eager: the heads back to (tokens, width), a copy (transpose + contiguous); fused stacks'
  // attention kernels write that layout.
  w.block.push_back(elementwise("attention_layout", {2 * q, 0, 1}, {0, 0}, 0));
  w.block.push_back(out);
  // The residual add: x (fp32 under autocast) + the branch's 16-bit output; fused into the norm
  // that follows.
  w.block.push_back(elementwise("residual_1", {3 * d, 2 * d, 1}, {0, 0}, 0));
  w.block.push_back(elementwise("norm_2", norm, {2 * d, d}, d));
  // Norms after the branches too (Gemma 2: four a block).
  for (int i = 2; i < spec.normsPerLayer; ++i)
    w.block.push_back(elementwise("norm_" + std::to_string(i + 1), norm, {2 * d, d}, d));

  // The feed-forward: dense in `denseShare` of the layers, experts in the rest.
  const bool gated = spec.gated();
  const double moeShare = spec.moe() ? static_cast<double>(spec.moeLayers()) / spec.layers : 0.0;
  const double denseShare = 1.0 - moeShare;
  // One feed-forward of `width`, `repeat` times per token, in `share` of the layers.
  auto ffn = [&](const std::string& prefix, double width, double repeat, bool routed, double share) {
    TransformerOp up = matmul(prefix + "_up", gated ? 2 * width : width, d, true, spec.hasFfnBias());
    up.repeat = repeat;
    up.routed = routed;
    up.frozen = lora;
    up.layerShare = share;
    w.block.push_back(up);
    // GELU fuses into the matmul's epilogue under hand-tuned stacks (cuBLASLt's GELU epilogue in
    // Transformer Engine, XLA); a compiler that leaves matmuls to cuBLAS runs it (with the bias)
    // as a kernel of its own, as eager does. A gated unit's gate x up is a kernel of its own
    // (eager: the activation, then the multiply).
    TransformerOp act = gated ? elementwise(spec.ffnKind == FfnKind::GeGlu ? "geglu" : "swiglu", {5 * width, 0, 2},
                                            {3 * width, 0}, 3 * width)
                              : elementwise("gelu", {2 * width, 0, 1}, {0, 0}, 2 * width);
    act.name = prefix == "ffn" || prefix == "experts" ? act.name : prefix + "_" + act.name;
    act.epilogueFusable = !gated;
    act.repeat = repeat;
    act.layerShare = share;
    w.block.push_back(act);
    TransformerOp down = matmul(prefix + "_down", d, width, true, spec.hasFfnBias());
    down.repeat = repeat;
    down.routed = routed;
    down.frozen = lora;
    down.splitContraction = true;
    down.savedElements = 0;  // its input is the activation's output, counted there
    down.layerShare = share;
    w.block.push_back(down);
  };
  if (denseShare > 0) ffn("ffn", f, 1, false, denseShare);
  if (moeShare > 0) {
    TransformerOp router = matmul("router", spec.experts, d, false);
    router.layerShare = moeShare;
    w.block.push_back(router);
    ffn("experts", spec.routedFfn(), spec.expertsPerToken, true, moeShare);
    if (spec.sharedExperts > 0) ffn("shared_expert", spec.sharedFfn(), spec.sharedExperts, false, moeShare);
  }
  w.block.push_back(elementwise("residual_2", {3 * d, 2 * d, 1}, {0, 0}, 0));

  // After the last block: final norm, the head and the loss.
  w.post.push_back(elementwise("final_norm", norm, {2 * d, d}, d));
  if (spec.kind == TransformerKind::Vision) {
    TransformerOp head = matmul("head", spec.vocab, d, false, true);  // the classifier's bias
    head.tokenShare = 1.0 / w.seqLen;  // the class token only
    w.post.push_back(head);
  } else {
    TransformerOp head = matmul("lm_head", spec.vocab, d, true, spec.headBias);
    head.frozen = lora;
    // BERT's masked-LM head runs on the masked tokens only (15%: the reference implementations
    // gather them before the vocabulary projection).
    if (spec.kind == TransformerKind::Encoder) head.tokenShare = 0.15;
    w.post.push_back(head);
    // Cross-entropy in fp32 over the vocabulary: eager casts the logits up, then log-softmax
    // and the loss (3 kernels); fused: one pass that reads the logits and writes the fp32
    // probabilities the backward needs.
    const double v = spec.vocab * head.tokenShare;
    TransformerOp loss = elementwise("cross_entropy", {4 * v, 4 * v, 3}, {2 * v, 2 * v}, v);
    loss.alwaysFp32 = true;
    w.post.push_back(loss);
  }

  w.params = spec.params();
  w.trainableParams = lora ? w.loraParams : w.params;
  const double n = static_cast<double>(spec.activeMatmulParams());
  // QK^T and AV over the whole T x T: forward 2 (qk + v) per head, backward twice that.
  const double attention = 6.0 * spec.layers * spec.heads * (spec.qkHeadDim() + spec.valueHeadDim()) * w.seqLen;
  // LoRA: frozen weights need no weight gradient (4 N), the attention core is differentiated whole.
  w.modelFlopsPerToken = lora ? 4.0 * n + attention + 6.0 * static_cast<double>(w.loraParams)
                              : 6.0 * n + attention;
  return w;
}

}  // namespace core::sim
