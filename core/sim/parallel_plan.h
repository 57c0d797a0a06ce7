#pragma once
// How a transformer's training step is laid out over N chips: data parallel with ZeRO sharding,
// Megatron-style tensor parallel, 1F1B pipeline parallel, expert parallel for a mixture of
// experts, activation recomputation and the micro-batch. The text form is what the CLI takes
// and prints: "dp=8,tp=2,pp=1,ep=1,zero=1,recompute=selective,microbatch=2".
#include <optional>
#include <string>
#include <string_view>

namespace core::sim {

enum class Recompute {
  None,       // keep every activation the backward pass reads
  Selective,  // recompute the attention core (softmax, dropout): drops the T x T term
  Full,       // keep only each layer's input; the backward pass re-runs the layer's forward
};
const char* recomputeName(Recompute r);  // "none", "selective", "full"
std::optional<Recompute> parseRecompute(std::string_view name);  // the inverse; nullopt for another name

enum class Finetune { Full, Lora };
const char* finetuneName(Finetune f);    // "full", "lora"
inline constexpr int kMaxLoraRank = 65536;  // LoRA's rank: the CLI, the planner and their files

struct ParallelPlan {
  int dp = 1;          // data-parallel replicas
  int tp = 1;          // tensor-parallel ranks (with sequence parallelism), innermost
  int pp = 1;          // pipeline stages
  int ep = 1;          // expert-parallel ranks (within the data-parallel group; MoE only)
  int zero = 0;        // 0: replicated; 1: optimizer state sharded over dp; 2: + gradients; 3: + weights (FSDP)
  Recompute recompute = Recompute::None;
  int microBatch = 1;  // sequences per micro-batch on one replica

  int chips() const { return dp * tp * pp; }
  std::string text() const;  // the CLI form, every key
  // A short line for people: "tp=8 within a node, dp=32, ZeRO-1, micro-batch 2".
  std::string describe() const;
  friend bool operator==(const ParallelPlan&, const ParallelPlan&) = default;
};

// Parses the CLI form. Keys may come in any order and any may be left out (its default above);
// throws core::util::Error naming the key or value that is wrong (FieldError "parallel: tp=0: ...").
ParallelPlan parseParallelPlan(const std::string& text);

}  // namespace core::sim
