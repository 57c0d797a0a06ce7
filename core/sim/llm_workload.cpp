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

TransformerWork makeTransformerWork(const nn::TransformerSpec& spec, int seqLen, Finetune finetune, int loraRank) {
  TransformerWork w;
  w.spec = &spec;
  w.seqLen = spec.tokensPerSample(seqLen);
  if (spec.kind != TransformerKind::Vision && spec.position == nn::PositionKind::Learned && w.seqLen > spec.maxPositions)
    throw util::Error("--seq-len: " + std::to_string(w.seqLen) + " is longer than " + spec.id + "'s " +
                      std::to_string(spec.maxPositions) + " learned positions");
  if (w.seqLen < 1 || w.seqLen > (1 << 22))
    throw util::Error("--seq-len: " + std::to_string(w.seqLen) + " must be between 1 and 4194304");
  w.causal = spec.kind == TransformerKind::Decoder;
  w.finetune = finetune;
  if (finetune == Finetune::Lora) {
    if (loraRank < 1 || loraRank > spec.dModel)
      throw util::Error("--lora-rank: " + std::to_string(loraRank) + " must be between 1 and d_model (" +
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
  TransformerOp proj = matmul("qkv", qkv, d, true, spec.bias);
  proj.frozen = lora;
  w.block.push_back(proj);
  // Rotary embedding of q and k: eager x*cos + rotate_half(x)*sin is five kernels a tensor
  // (negate, concatenate, two multiplies, add), ten passes over it; fused into the projection's
  // epilogue or the attention prologue.
  const double rotated = qkv - (qkv - q) / 2;  // q and k
  if (rotary) w.block.push_back(elementwise("rotary", {10 * rotated, 0, 10}, {0, 0}, 0));
  {
    TransformerOp a;
    a.name = "attention";
    a.kind = OpKind::Attention;
    a.savedElements = qkv + q;  // Q, K, V and the output (the T x T term is the step model's)
    w.block.push_back(a);
  }
  TransformerOp out = matmul("attention_out", d, q, true, spec.bias);
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
  const double experts = spec.expertsPerToken;
  if (spec.experts > 1) w.block.push_back(matmul("router", spec.experts, d, false));
  const bool swiglu = spec.ffnKind == FfnKind::SwiGlu;
  TransformerOp up = matmul(spec.experts > 1 ? "experts_up" : "ffn_up", swiglu ? 2 * f : f, d, true, spec.bias);
  up.repeat = experts;
  up.frozen = lora;
  w.block.push_back(up);
  // GELU fuses into the matmul's epilogue under hand-tuned stacks (cuBLASLt's GELU epilogue in
  // Transformer Engine, XLA); a compiler that leaves matmuls to cuBLAS runs it (with the bias)
  // as a kernel of its own, as eager does. SwiGLU's gate x up is a kernel of its own (eager:
  // silu, then the multiply).
  TransformerOp act = swiglu ? elementwise("swiglu", {5 * f, 0, 2}, {3 * f, 0}, 3 * f)
                             : elementwise("gelu", {2 * f, 0, 1}, {0, 0}, 2 * f);
  act.epilogueFusable = !swiglu;
  act.repeat = experts;
  w.block.push_back(act);
  TransformerOp down = matmul(spec.experts > 1 ? "experts_down" : "ffn_down", d, f, true, spec.bias);
  down.repeat = experts;
  down.frozen = lora;
  down.splitContraction = true;
  down.savedElements = 0;  // its input is the activation's output, counted there
  w.block.push_back(down);
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
  const double attention = 12.0 * spec.layers * q * w.seqLen;  // QK^T and AV: forward 4, backward 8
  // LoRA: frozen weights need no weight gradient (4 N), the attention core is differentiated whole.
  w.modelFlopsPerToken = lora ? 4.0 * n + attention + 6.0 * static_cast<double>(w.loraParams)
                              : 6.0 * n + attention;
  return w;
}

}  // namespace core::sim
