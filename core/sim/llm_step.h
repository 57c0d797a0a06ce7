#pragma once
// One training step of a transformer under a parallel plan, on one chip of a resolved device
// (llm_unit.h):
// every op of the model (llm_workload) timed as a roofline at its tensor-parallel shape, the
// 1F1B pipeline and its bubble, the tensor-, pipeline-, expert- and data-parallel traffic on the
// link it crosses (within a node or between nodes) with what frameworks overlap, the optimizer
// update, and the memory each chip holds. Pure functions; the planner (llm_simulator) calls
// them for every candidate plan.
#include <cstdint>
#include <string>
#include <vector>

#include "core/sim/llm_unit.h"
#include "core/sim/llm_workload.h"
#include "core/sim/parallel_plan.h"
#include "core/sim/sim_report.h"

namespace core::sim {

// FlashAttention-2 (Dao 2023, figs. 5-7) reaches about 70% of an A100's peak forward and 55%
// backward where cuBLAS matmuls reach about 80%: the fused attention core runs at these shares
// of the stack's matmul efficiency.
inline constexpr double kFusedAttentionForwardShare = 0.85;
inline constexpr double kFusedAttentionBackwardShare = 0.7;
// A fused attention backward re-computes the scores and does five matmuls to the forward's two.
inline constexpr double kAttentionBackwardFlopRatio = 2.5;
// Share of tensor-parallel collectives hidden behind matmuls by stacks that overlap them
// (Megatron-Core's tp-comm-overlap, XLA's async collectives); other stacks expose them.
inline constexpr double kTensorParallelOverlapShare = 0.5;

struct PlanCost {
  double stepSeconds = 0;
  double computeSeconds = 0;    // matmul and attention arithmetic, all micro-batches (incl. recompute)
  double memorySeconds = 0;     // bandwidth-bound ops (norms, activations, casts, small matmuls)
  double overheadSeconds = 0;   // kernels shorter than a launch, host dispatch the GPU waits for, the per-step overhead
  double hostSeconds = 0;       // host dispatch of every kernel (overlaps the device's work while it has some queued)
  double exposedHostSeconds = 0;  // of overheadSeconds: host dispatch the device waited for
  std::int64_t kernelsPerMicroBatch = 0; // kernels one micro-batch launches on the slowest stage, forward + backward
  double bubbleSeconds = 0;     // pipeline fill and drain
  double tpCommSeconds = 0, ppCommSeconds = 0, epCommSeconds = 0;  // exposed
  double dpCommSeconds = 0;     // exposed
  double dpCommTotalSeconds = 0;
  double optimizerSeconds = 0;
  double microBatchSeconds = 0; // one micro-batch through the slowest stage, forward + backward
  // One evaluation step of the global batch: the forward pass alone (and its share of the
  // tensor-, pipeline- and expert-parallel traffic), no gradients, no optimizer.
  double evalStepSeconds = 0;
  int microBatches = 0;
  MemoryBreakdown memory;       // per chip (the fullest stage)
  bool fits = true;
  std::vector<LayerSeconds> ops;  // one block's ops and the head's, per micro-batch
};

// Why `p` cannot run `w` at `globalBatch` on `chips` chips ("" when it can): the product of the
// parallel degrees, divisibility of heads, layers, experts and batch.
std::string planProblem(const TransformerWork& w, const ParallelPlan& p, int chips, int globalBatch);

MemoryBreakdown planMemory(const TransformerWork& w, const LlmUnit& u, const ParallelPlan& p, int globalBatch);

// The step under plan `p` (planProblem(...) must be empty). `perOp` fills PlanCost::ops.
PlanCost costPlan(const TransformerWork& w, const LlmUnit& u, const ParallelPlan& p, int globalBatch, bool perOp);

}  // namespace core::sim
