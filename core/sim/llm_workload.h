#pragma once
// What one transformer asks of the hardware, op by op, read from its TransformerSpec at a
// sequence length: the ops of one block (repeated `layers` times), those before the first block
// (embeddings) and after the last (final norm, head, loss). Figures are per token and before
// any tensor-parallel split; the step model (llm_step) splits, batches and times them.
#include <string>
#include <vector>

#include "core/nn/transformer_spec.h"
#include "core/sim/parallel_plan.h"
#include "core/sim/sim_report.h"

namespace core::sim {

enum class OpKind {
  Matmul,       // a weight matrix times the tokens: rows x contraction per token
  Attention,    // the attention core: Q K^T, softmax, x V (fused or not, per the stack)
  Elementwise,  // norms, activations, residual adds, rotary, embeddings: bytes, no matmul
};

struct TransformerOp {
  std::string name;     // "qkv", "attention", "ffn_up", ...
  OpKind kind = OpKind::Matmul;
  // Matmul: output width and contraction per token (weights rows x cols), before the TP split.
  double rows = 0, contraction = 0;
  bool splitByTp = true;  // sharded over tensor-parallel ranks (Megatron column/row parallel)
  bool splitContraction = false;  // row parallel: the contraction is split, not the rows
  bool frozen = false;    // LoRA: a frozen base weight (backward computes the input gradient only)
  bool bias = false;      // the matmul adds a bias (its gradient is a reduction of its own unless fused)
  double tokenShare = 1;  // share of the tokens it runs on (BERT's MLM head: the masked 15%)
  double repeat = 1;      // experts each token passes through (MoE: top-k; shared experts)
  bool routed = false;    // a routed expert's matmul: the tokens split over the chip's experts
  double layerShare = 1;  // share of the layers that run it (DeepSeek-V3: experts in 58 of 61)
  // Elementwise: elements read + written per token in the forward pass, unfused (eager: each
  // op its own kernel, `kernels` of them) and when the stack fuses elementwise work into its
  // neighbours (one kernel, none when fusedElements is 0).
  double elements = 0, fusedElements = 0;
  int kernels = 1;
  // Of those, the elements that are fp32 under autocast (PyTorch AMP over fp32 modules: the
  // residual stream, norm outputs and the casts that feed matmuls); 16-bit stacks that keep
  // bf16 activations (Megatron, MaxText) move them at the activation width.
  double wideElements = 0, fusedWideElements = 0;
  bool alwaysFp32 = false;  // computed in fp32 whatever the precision (the loss over the vocabulary)
  // Fused into the producing matmul's epilogue only by stacks that fuse epilogues; a stack that
  // fuses element-wise chains but leaves matmuls to the library runs it as eager does.
  bool epilogueFusable = false;
  // Elements kept for the backward pass, per token.
  double savedElements = 0;
};

struct TransformerWork {
  const nn::TransformerSpec* spec = nullptr;
  int seqLen = 0;             // tokens per sample the model runs at
  bool causal = true;
  Finetune finetune = Finetune::Full;
  int loraRank = 0;
  std::vector<TransformerOp> pre, block, post;
  std::int64_t params = 0;          // all of the model's (base) parameters
  std::int64_t trainableParams = 0; // LoRA: the adapters only
  std::int64_t loraParams = 0;      // the adapters (0 without LoRA)
  // Model FLOPs per token the MFU counts: 6 N (4 N for LoRA: no weight gradients of frozen
  // weights) + the attention's 12 L d_attn T (PaLM's convention, non-causal).
  double modelFlopsPerToken = 0;
};

// Throws core::util::Error when the sequence length does not fit the model (learned positions
// beyond the table) or the LoRA rank is out of range.
TransformerWork makeTransformerWork(const nn::TransformerSpec& spec, int seqLen, Finetune finetune, int loraRank);

// The model's size as a report states it (active parameters for a mixture of experts only).
ModelSize modelSizeOf(const TransformerWork& w);
// The same for the whole model (no LoRA) at `seqLen` (0: its own).
ModelSize modelSizeOf(const nn::TransformerSpec& spec, int seqLen);

// LoRA adapters of rank `rank` on the attention projections (q, k, v, o) of every layer:
// r x (d_in + d_out) parameters each.
std::int64_t loraParams(const nn::TransformerSpec& spec, int rank);

}  // namespace core::sim
