#include "core/sim/llm_workload.h"

#include "core/util/error.h"

namespace core::sim {
namespace {

using nn::FfnKind;
using nn::TransformerKind;

TransformerOp matmul(std::string name, double rows, double contraction, bool splitByTp = true) {
  TransformerOp op;
  op.name = std::move(name);
  op.kind = OpKind::Matmul;
  op.rows = rows;
  op.contraction = contraction;
  op.splitByTp = splitByTp;
  op.savedElements = contraction;  // the input, for the weight gradient
  return op;
}

TransformerOp elementwise(std::string name, double elements, double fusedElements, double saved) {
  TransformerOp op;
  op.name = std::move(name);
  op.kind = OpKind::Elementwise;
  op.elements = elements;
  op.fusedElements = fusedElements;
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
    TransformerOp p = matmul("patch_embedding", d, patch, false);
    p.frozen = lora;
    w.pre.push_back(p);
  }
  w.pre.push_back(elementwise("embedding", 2 * d, 2 * d, 0));

  // One block, pre-norm (BERT is post-norm: the same ops in another order, the same cost).
  const bool rotary = spec.position == nn::PositionKind::Rotary;
  w.block.push_back(elementwise("norm_1", 2 * d, 2 * d, d));
  TransformerOp proj = matmul("qkv", qkv, d);
  proj.frozen = lora;
  w.block.push_back(proj);
  if (rotary) w.block.push_back(elementwise("rotary", 2 * (qkv - (qkv - q) / 2), 0, 0));
  {
    TransformerOp a;
    a.name = "attention";
    a.kind = OpKind::Attention;
    a.savedElements = qkv + q;  // Q, K, V and the output (the T x T term is the step model's)
    w.block.push_back(a);
  }
  TransformerOp out = matmul("attention_out", d, q);
  out.frozen = lora;
  out.splitContraction = true;
  out.savedElements = 0;  // its input is the attention output, already kept
  w.block.push_back(out);
  w.block.push_back(elementwise("residual_1", 3 * d, 0, 0));
  w.block.push_back(elementwise("norm_2", 2 * d, 2 * d, d));
  const double experts = spec.expertsPerToken;
  if (spec.experts > 1) w.block.push_back(matmul("router", spec.experts, d, false));
  const bool swiglu = spec.ffnKind == FfnKind::SwiGlu;
  TransformerOp up = matmul(spec.experts > 1 ? "experts_up" : "ffn_up", swiglu ? 2 * f : f, d);
  up.repeat = experts;
  up.frozen = lora;
  w.block.push_back(up);
  // GELU fuses into the matmul's epilogue; SwiGLU's gate x up is a kernel of its own.
  TransformerOp act = elementwise(swiglu ? "swiglu" : "gelu", swiglu ? 3 * f : 2 * f, swiglu ? 3 * f : 0,
                                  swiglu ? 3 * f : 2 * f);
  act.repeat = experts;
  w.block.push_back(act);
  TransformerOp down = matmul(spec.experts > 1 ? "experts_down" : "ffn_down", d, f);
  down.repeat = experts;
  down.frozen = lora;
  down.splitContraction = true;
  down.savedElements = 0;  // its input is the activation's output, counted there
  w.block.push_back(down);
  w.block.push_back(elementwise("residual_2", 3 * d, 0, 0));

  // After the last block: final norm, the head and the loss.
  w.post.push_back(elementwise("final_norm", 2 * d, 2 * d, d));
  if (spec.kind == TransformerKind::Vision) {
    TransformerOp head = matmul("head", spec.vocab, d, false);
    head.tokenShare = 1.0 / w.seqLen;  // the class token only
    w.post.push_back(head);
  } else {
    TransformerOp head = matmul("lm_head", spec.vocab, d);
    head.frozen = lora;
    // BERT's masked-LM head runs on the masked tokens only (15%: the reference implementations
    // gather them before the vocabulary projection).
    if (spec.kind == TransformerKind::Encoder) head.tokenShare = 0.15;
    w.post.push_back(head);
    TransformerOp loss = elementwise("cross_entropy", 3 * spec.vocab * head.tokenShare, 2 * spec.vocab * head.tokenShare,
                                     spec.vocab * head.tokenShare);
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
