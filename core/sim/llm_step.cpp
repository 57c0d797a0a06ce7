#include "core/sim/llm_step.h"

#include <algorithm>
#include <cmath>

#include "core/sim/data_parallel.h"
#include "core/sim/execution_unit.h"
#include "core/sim/utilization.h"

namespace core::sim {
namespace {

// Seconds of one op on the device: arithmetic and bytes as a roofline, never less than the
// device's shortest kernel each; and the host's time to dispatch its kernels, which overlaps
// the device's work (see passTime).
struct OpTime {
  double compute = 0, memory = 0, overhead = 0;
  double host = 0;
  double kernels = 0;
  double exposedHost = 0;  // of overhead: host dispatch the device waited for (passTime)
  double seconds() const { return compute + memory + overhead; }
  void add(const OpTime& o) {
    compute += o.compute;
    memory += o.memory;
    overhead += o.overhead;
    host += o.host;
    kernels += o.kernels;
    exposedHost += o.exposedHost;
  }
  OpTime scaled(double k) const {
    return {compute * k, memory * k, overhead * k, host * k, kernels * k, exposedHost * k};
  }
};

OpTime roofline(double flops, double flopsPerSecond, double bytes, double bytesPerSecond, int kernels,
                const LlmUnit& u) {
  OpTime t;
  const double c = flopsPerSecond > 0 ? flops / flopsPerSecond : 0.0;
  const double m = bytesPerSecond > 0 ? bytes / bytesPerSecond : 0.0;
  if (c >= m) t.compute = c;
  else t.memory = m;
  t.overhead = std::max(0.0, kernels * u.minKernelSeconds - t.seconds());
  t.host = kernels * u.launchSeconds;
  t.kernels = kernels;
  return t;
}

// A pass (one micro-batch's forward, or backward) as the device runs it: the framework queues
// kernels ahead of the device, so host dispatch costs time only where it outruns the device's
// work; a pass of short kernels waits for the host (launch-bound). On a CPU the dispatch runs
// on the cores themselves and always adds.
OpTime passTime(OpTime t, const LlmUnit& u) {
  t.exposedHost = u.inlineDispatch ? t.host : std::max(0.0, t.host - t.seconds());
  t.overhead += t.exposedHost;
  return t;
}

double matmulUtilization(const LlmUnit& u, double rows, double cols, double contraction) {
  const GemmShape g{rows, cols, contraction};
  return u.systolic ? systolicUtilization(g, u.tile) : tiledUtilization(g, u.tile, u.units, u.tileMin);
}

struct Shard {
  double rows, contraction;
};

Shard shardOf(const TransformerOp& op, int tp) {
  if (!op.splitByTp || tp <= 1) return {op.rows, op.contraction};
  return op.splitContraction ? Shard{op.rows, op.contraction / tp} : Shard{op.rows / tp, op.contraction};
}

// Forward and backward of one op for `tokens` tokens of one micro-batch on one chip.
struct PassTimes {
  OpTime forward, backward;
};

PassTimes matmulTimes(const TransformerOp& op, const TransformerWork& w, const LlmUnit& u, const ParallelPlan& p,
                      double tokens) {
  const Shard s = shardOf(op, p.tp);
  const double n = tokens * op.tokenShare * op.repeat;  // token-rows this chip multiplies
  const auto& spec = *w.spec;
  // A mixture of experts splits the tokens over the chip's experts: narrower matmuls.
  const double perExpert = op.routed ? n / std::max(1.0, static_cast<double>(spec.experts) / std::max(1, p.ep)) : n;
  const double util = std::max(1e-3, matmulUtilization(u, s.rows, perExpert, s.contraction));
  const double flops = 2.0 * s.rows * s.contraction * n;
  const double localExperts = op.routed ? std::max(1.0, double(spec.experts) / p.ep) : 1.0;
  const double weights = s.rows * s.contraction * localExperts;
  // fp8/fp4 casts of the operands: fused into the producing norm/activation by fusing stacks
  // (Transformer Engine, XLA), a kernel of their own otherwise.
  const double castBytes = u.lowBitMatmuls ? (u.fusesElementwise ? 1.0 : 3.0) : 0.0;
  const double bytesF = weights * u.matmulInputBytes + n * (s.contraction * (u.matmulInputBytes + castBytes) + s.rows * u.actBytes);
  PassTimes t;
  t.forward = roofline(flops, u.matmulFlops * util, bytesF, u.memBytesPerSecond, 1, u);
  // Backward: the input gradient, and the weight gradient unless the weight is frozen (LoRA);
  // a bias's gradient is a reduction over the output gradient, a kernel of its own.
  const double k = op.frozen ? 1.0 : 2.0;
  const bool biasGrad = op.bias && !op.frozen && !u.fusesEpilogues;
  const double biasBytes = biasGrad ? n * s.rows * u.actBytes : 0.0;
  t.backward = roofline(k * flops, u.matmulFlops * util, k * bytesF + biasBytes, u.memBytesPerSecond,
                        (op.frozen ? 1 : 2) + (biasGrad ? 1 : 0), u);
  return t;
}

// Share of the T x T pairs a fused kernel computes: causal tiles above the diagonal skipped,
// and beyond a sliding window.
double pairShare(const TransformerWork& w) {
  if (!w.causal) return 1.0;
  const auto& s = *w.spec;
  if (s.slidingWindow <= 0 || s.slidingWindow >= w.seqLen) return 0.5;
  return s.attentionPairShare(w.seqLen);
}

PassTimes attentionTimes(const TransformerWork& w, const LlmUnit& u, const ParallelPlan& p, double sequences,
                         bool unfused, double* scoreElementsSaved) {
  const auto& spec = *w.spec;
  const double T = w.seqLen, heads = static_cast<double>(spec.heads) / p.tp;
  const double qkDim = spec.qkHeadDim(), vDim = spec.valueHeadDim();
  PassTimes t;
  if (!unfused) {
    // FlashAttention-style: tiles of the scores never leave the chip; causal tiles above the
    // diagonal are skipped.
    const double flops = 2.0 * sequences * T * T * (qkDim + vDim) * heads * pairShare(w);
    const double bytes = sequences * T * (spec.qkvWidth() + spec.attentionWidth()) / p.tp * u.actBytes;
    t.forward = roofline(flops, u.attentionFlops * kFusedAttentionForwardShare, bytes, u.memBytesPerSecond, 1, u);
    // The backward is three kernels (the output-gradient dot product, the main pass, the dQ
    // conversion in FlashAttention-2's implementation).
    t.backward = roofline(kAttentionBackwardFlopRatio * flops, u.attentionFlops * kFusedAttentionBackwardShare,
                          2 * bytes, u.memBytesPerSecond, 3, u);
    *scoreElementsSaved = 0;
    return t;
  }
  // Unfused (eager): two batched matmuls per head over the whole T x T (the mask is applied, not
  // skipped), and the scores written, scaled, masked, soft-maxed (and dropped out) in memory.
  const double batches = sequences * heads;
  const double flopsQk = 2.0 * batches * T * T * qkDim, flopsAv = 2.0 * batches * T * T * vDim;
  const double utilQk = std::max(1e-3, matmulUtilization(u, T, T, qkDim));
  const double utilAv = std::max(1e-3, matmulUtilization(u, vDim, T, T));
  const double passes = spec.bias ? 7.0 : 5.0;  // write S, scale+mask r/w, softmax r/w, (dropout r/w), read P
  const double scoreBytes = batches * T * T * u.actBytes * passes;
  const double qkvBytes = sequences * T * (spec.qkvWidth() + spec.attentionWidth()) / p.tp * u.actBytes;
  OpTime qk = roofline(flopsQk, u.attentionFlops * utilQk, qkvBytes, u.memBytesPerSecond, 1, u);
  OpTime av = roofline(flopsAv, u.attentionFlops * utilAv, qkvBytes, u.memBytesPerSecond, 1, u);
  OpTime sm = roofline(0, 0, scoreBytes, u.memBytesPerSecond, spec.bias ? 4 : 3, u);
  t.forward = qk;
  t.forward.add(av);
  t.forward.add(sm);
  t.backward = t.forward.scaled(2.0);
  *scoreElementsSaved = batches * T * T * (spec.bias ? 2.0 : 1.0);  // P (and the dropout mask)
  return t;
}

// An element-wise op: its bytes at the widths the stack moves them (fp32 for the elements
// autocast keeps wide), one fused kernel or its eager kernels; the backward reads and writes
// about twice the forward's bytes in as many kernels.
PassTimes elementwiseTimes(const TransformerOp& op, const LlmUnit& u, const ParallelPlan& p, double tokens) {
  const bool fused = u.fusesElementwise && (u.fusesEpilogues || !op.epilogueFusable);
  const double all = fused ? op.fusedElements : op.elements;
  const double wide = op.alwaysFp32 ? all : u.autocast ? (fused ? op.fusedWideElements : op.wideElements) : 0.0;
  const double perToken = (all - wide) * u.actBytes + wide * std::max(4.0, u.actBytes);
  // With sequence parallelism every token-wise op is split over the tensor-parallel ranks.
  const double bytes = perToken * op.repeat * op.tokenShare * tokens / p.tp;
  const int kernels = all <= 0 ? 0 : fused ? 1 : op.kernels;
  PassTimes t;
  t.forward = roofline(0, 0, bytes, u.memBytesPerSecond, kernels, u);
  t.backward = roofline(0, 0, 2 * bytes, u.memBytesPerSecond, kernels, u);
  return t;
}

// The forward/backward time of a list of ops for one micro-batch, with the ops' rows.
struct ListTimes {
  OpTime forward, backward;
  double scoreElementsSaved = 0;  // per micro-batch, one layer (unfused attention)
};

ListTimes listTimes(const std::vector<TransformerOp>& ops, const TransformerWork& w, const LlmUnit& u,
                    const ParallelPlan& p, double sequences, std::vector<LayerSeconds>* rows, const std::string& prefix) {
  ListTimes out;
  const double tokens = sequences * w.seqLen;
  const bool unfused = !u.fusedAttention;
  for (const auto& op : ops) {
    PassTimes t;
    switch (op.kind) {
      case OpKind::Matmul: t = matmulTimes(op, w, u, p, tokens); break;
      case OpKind::Attention: t = attentionTimes(w, u, p, sequences, unfused, &out.scoreElementsSaved); break;
      case OpKind::Elementwise: t = elementwiseTimes(op, u, p, tokens); break;
    }
    if (op.layerShare != 1.0) {  // run by some of the layers: its share of every layer's time
      t.forward = t.forward.scaled(op.layerShare);
      t.backward = t.backward.scaled(op.layerShare);
    }
    out.forward.add(t.forward);
    out.backward.add(t.backward);
    if (!rows) continue;
    LayerSeconds ls;
    ls.name = prefix + op.name;
    ls.kind = op.kind == OpKind::Matmul ? "matmul" : op.kind == OpKind::Attention ? "attention" : "elementwise";
    ls.forwardSeconds = t.forward.seconds();
    ls.backwardSeconds = t.backward.seconds();
    ls.kernels = static_cast<int>(std::lround(t.forward.kernels + t.backward.kernels));
    if (op.kind == OpKind::Matmul) {
      const Shard s = shardOf(op, p.tp);
      ls.utilization = matmulUtilization(u, s.rows, tokens * op.tokenShare * op.repeat, s.contraction);
    } else {
      ls.utilization = 1.0;
    }
    const double c = t.forward.compute + t.backward.compute, m = t.forward.memory + t.backward.memory,
                 o = t.forward.overhead + t.backward.overhead;
    ls.bound = o > c && o > m ? Bound::Overhead : m > c ? Bound::Memory : Bound::Compute;
    rows->push_back(std::move(ls));
  }
  // LoRA adapters: two thin matmuls per attention projection; bandwidth-bound at rank 16.
  if (w.finetune == Finetune::Lora && &ops == &w.block) {
    const auto& s = *w.spec;
    const double elems = 2.0 * (4.0 * s.dModel + 2.0 * s.attentionWidth() + 2.0 * s.kvHeads * s.headDim) / p.tp;
    const double bytes = elems * tokens * u.actBytes;
    OpTime f = roofline(0, 0, bytes, u.memBytesPerSecond, 8, u);
    out.forward.add(f);
    out.backward.add(f.scaled(2.0));
  }
  return out;
}

double ringAllReduce(double bytes, int n, double bw, double latency) {
  return ringAllReduceSeconds(bytes, n, bw, latency);
}

// The link a group of `n` ranks, `stride` chips apart, runs on, as one all-reduce of `bytes`.
double groupAllReduce(double bytes, int n, int stride, const LlmUnit& u) {
  if (n <= 1 || bytes <= 0) return 0.0;
  const int perNode = std::max(1, u.chipsPerNode / std::max(1, stride));  // group members sharing a node
  if (perNode >= n || u.interBytesPerSecond <= 0) return ringAllReduce(bytes, n, u.intraBytesPerSecond, u.latencySeconds);
  if (perNode <= 1) return ringAllReduce(bytes, n, u.interBytesPerSecond, u.latencySeconds);
  return hierarchicalAllReduceSeconds(bytes, n, perNode, u.intraBytesPerSecond, u.interBytesPerSecond,
                                      u.latencySeconds);
}

double linkFor(int span, const LlmUnit& u) {
  return span <= u.chipsPerNode || u.interBytesPerSecond <= 0 ? u.intraBytesPerSecond : u.interBytesPerSecond;
}

struct StageParams {
  double first = 0, last = 0;  // parameters of the first and last stage (before the TP split)
  double experts = 0;          // of them, the routed experts this chip holds (its 1/ep)

  // A chip's `params` of the stage sharded the ZeRO way when `sharded`: the dense weights over
  // the dp replicas, the experts over the dp / ep replicas that hold the same experts.
  double perChip(double params, bool sharded, const ParallelPlan& p) const {
    if (!sharded) return params;
    const double dense = params - experts;
    return dense / p.dp + experts / std::max(1, p.dp / std::max(1, p.ep));
  }
};

StageParams stageParams(const TransformerWork& w, const ParallelPlan& p) {
  const auto& s = *w.spec;
  const double layersPerStage = std::ceil(static_cast<double>(s.layers) / p.pp);
  // The average layer; expert parallelism keeps 1/ep of the routed experts on a chip.
  double layer = static_cast<double>(s.bodyParams()) / s.layers;
  if (s.moe()) layer -= static_cast<double>(s.routedExpertParams()) / s.layers * (1.0 - 1.0 / std::max(1, p.ep));
  const double body = layersPerStage * layer;
  StageParams sp;
  if (s.moe()) sp.experts = layersPerStage * static_cast<double>(s.routedExpertParams()) / s.layers / std::max(1, p.ep);
  sp.first = body + static_cast<double>(s.embeddingParams());
  sp.last = body + static_cast<double>(s.headParams());
  // A tied head on its own stage keeps a copy of the embedding.
  if (s.tiedEmbeddings) sp.last += p.pp > 1 ? static_cast<double>(s.vocab) * s.dModel : 0.0;
  if (p.pp == 1) sp.first = sp.last = body + static_cast<double>(s.embeddingParams() + s.headParams());
  return sp;
}

}  // namespace

std::string planProblem(const TransformerWork& w, const ParallelPlan& p, int chips, int globalBatch) {
  const auto& s = *w.spec;
  const std::string plan = "plan " + p.text() + ": ";
  if (p.chips() != chips)
    return plan + "dp x tp x pp = " + std::to_string(p.chips()) + " but the run has " + std::to_string(chips) + " chips";
  if (s.heads % p.tp != 0)
    return plan + "tp=" + std::to_string(p.tp) + " does not divide the " + std::to_string(s.heads) + " heads";
  if (s.kvHeads % p.tp != 0 && p.tp % s.kvHeads != 0)
    return plan + "tp=" + std::to_string(p.tp) + " and the " + std::to_string(s.kvHeads) + " KV heads do not divide";
  if (p.pp > s.layers) return plan + "pp=" + std::to_string(p.pp) + " has more stages than the " + std::to_string(s.layers) + " layers";
  if (p.ep > 1 && (s.experts % p.ep != 0))
    return plan + "ep=" + std::to_string(p.ep) + " does not divide the " + std::to_string(s.experts) + " experts";
  if (p.dp % p.ep != 0) return plan + "ep must divide dp";
  if (globalBatch % p.dp != 0)
    return plan + "the global batch " + std::to_string(globalBatch) + " does not split over dp=" + std::to_string(p.dp);
  if ((globalBatch / p.dp) % p.microBatch != 0)
    return plan + "micro-batch " + std::to_string(p.microBatch) + " does not divide the " +
           std::to_string(globalBatch / p.dp) + " sequences per replica";
  if (p.zero > 0 && p.dp == 1 && p.zero != 0) return plan + "ZeRO shards over data-parallel replicas: dp=1 has none";
  return "";
}

MemoryBreakdown planMemory(const TransformerWork& w, const LlmUnit& u, const ParallelPlan& p, int globalBatch) {
  const auto& s = *w.spec;
  MemoryBreakdown m;
  StageParams sp = stageParams(w, p);
  sp.experts /= p.tp;
  const double stage = std::max(sp.first, sp.last) / p.tp;
  const bool mixed = u.actBytes < 4;
  const double dp = p.dp;
  // Mixed precision keeps 16-bit weights and gradients and an fp32 master copy with Adam's two
  // moments (2 + 2 + 12 bytes a parameter, the ZeRO paper's accounting); fp32 keeps 4 + 4 + 8.
  const double weightB = mixed ? 2.0 : 4.0, gradB = mixed ? 2.0 : 4.0, optB = mixed ? 12.0 : 8.0;
  if (w.finetune == Finetune::Lora) {
    const double adapters = static_cast<double>(w.loraParams) / p.pp / p.tp;
    m.weightBytes = stage * weightB + adapters * weightB;
    m.gradientBytes = adapters * gradB / (p.zero >= 2 ? dp : 1.0);
    m.optimizerBytes = adapters * optB / (p.zero >= 1 ? dp : 1.0);
    if (p.zero >= 3) m.weightBytes /= dp;
  } else {
    m.weightBytes = sp.perChip(stage, p.zero >= 3, p) * weightB;
    m.gradientBytes = sp.perChip(stage, p.zero >= 2, p) * gradB;
    m.optimizerBytes = sp.perChip(stage, p.zero >= 1, p) * optB;
  }
  // Activations: what one layer keeps per token, for the layers of a stage and the micro-batches
  // in flight (1F1B: the first stage holds pp of them).
  double perToken = 0;
  for (const auto& op : w.block) perToken += op.savedElements * op.repeat * op.layerShare;
  perToken /= p.tp;  // tensor + sequence parallel shard every saved tensor
  const double sequences = p.microBatch;
  const double tokens = sequences * w.seqLen;
  double scores = 0;
  if (!u.fusedAttention && p.recompute == Recompute::None)
    scores = sequences * s.heads / p.tp * static_cast<double>(w.seqLen) * w.seqLen * (s.bias ? 2.0 : 1.0);
  const double perLayer = (perToken * tokens + scores) * u.actBytes;
  const double layersPerStage = std::ceil(static_cast<double>(s.layers) / p.pp);
  const int microBatches = globalBatch / p.dp / p.microBatch;
  const double inFlight = p.pp > 1 ? std::min<double>(p.pp, microBatches) : 1.0;
  // A stage's activations with `inFlight` micro-batches begun and not yet finished (1F1B: the
  // first stage holds pp of them, the last stage one).
  auto keptWith = [&](double inFlight) {
    if (p.recompute == Recompute::Full)  // each layer's input, plus one layer re-run at a time
      return layersPerStage * inFlight * tokens * s.dModel / p.tp * u.actBytes + perLayer;
    return layersPerStage * inFlight * perLayer;
  };
  // The logits at the loss on the last stage (vocabulary-parallel over tp). A fused loss keeps
  // the logits and their fp32 gradient. Unfused (eager PyTorch's cross_entropy(logits.float())),
  // the loss's backward holds three fp32 tensors of the logits' size at once: the saved
  // log-softmax output, its gradient and the gradient of the fp32 logits (the 16-bit logits
  // were freed by the cast). Measured on one H100 (calibration-gpu-single.csv): eager GPT-2
  // large peaks 2.4 GB above torch.compile, 5.8 bytes per logit.
  const double bytesPerLogit = u.fusedLoss ? u.actBytes + 4.0 : 3 * 4.0;
  double logits = 0;
  for (const auto& op : w.post)
    if (op.kind == OpKind::Matmul) logits = tokens * op.tokenShare * op.rows / (op.splitByTp ? p.tp : 1) * bytesPerLogit;
  // The fullest stage: the first (most micro-batches in flight) or the last (the logits too).
  m.activationBytes = p.pp > 1 ? std::max(keptWith(inFlight), keptWith(1) + logits) : keptWith(1) + logits;
  m.reserveBytes = u.reserveBytes;
  return m;
}

PlanCost costPlan(const TransformerWork& w, const LlmUnit& u, const ParallelPlan& p, int globalBatch, bool perOp) {
  const auto& s = *w.spec;
  PlanCost c;
  const double sequences = p.microBatch;
  const double tokens = sequences * w.seqLen;
  c.microBatches = globalBatch / p.dp / p.microBatch;
  const double m = c.microBatches;
  std::vector<LayerSeconds>* rows = perOp ? &c.ops : nullptr;
  const ListTimes block = listTimes(w.block, w, u, p, sequences, rows, "block/");
  const ListTimes pre = listTimes(w.pre, w, u, p, sequences, rows, "");
  const ListTimes post = listTimes(w.post, w, u, p, sequences, rows, "");
  const double layersPerStage = std::ceil(static_cast<double>(s.layers) / p.pp);

  // The slowest stage: its layers plus the embedding (first) or the head (last).
  OpTime fwd = block.forward.scaled(layersPerStage), bwd = block.backward.scaled(layersPerStage);
  // One stage holds both ends (their kernels and host time too); several: the slower end's stage.
  OpTime ends = pre.forward, endsB = pre.backward;
  if (p.pp == 1) {
    ends.add(post.forward);
    endsB.add(post.backward);
  } else {
    if (post.forward.seconds() >= pre.forward.seconds()) ends = post.forward;
    if (post.backward.seconds() >= pre.backward.seconds()) endsB = post.backward;
  }
  fwd.add(ends);
  bwd.add(endsB);
  if (u.autocast) {
    // Autocast casts each fp32 weight to 16 bits in every forward (one kernel a tensor, 4 bytes
    // read and 2 written a parameter) and each 16-bit weight gradient back to fp32 in the
    // backward. A LoRA base kept in 16 bits is not cast; its adapters are.
    const StageParams spc = stageParams(w, p);
    const double params = w.finetune == Finetune::Lora ? static_cast<double>(w.loraParams) / p.pp / p.tp
                                                         : std::max(spc.first, spc.last) / p.tp;
    double tensors = 0;
    for (const auto& op : w.block)
      if (op.kind == OpKind::Matmul && !op.frozen) tensors += (op.bias ? 2 : 1) * op.layerShare;
    if (w.finetune == Finetune::Lora) tensors = 8;  // A and B of q, k, v, o
    const OpTime casts = roofline(0, 0, 6.0 * params, u.memBytesPerSecond, static_cast<int>(std::lround(tensors * layersPerStage)), u);
    fwd.add(casts);
    bwd.add(casts);
    if (rows) {
      LayerSeconds ls;
      ls.name = "weight_casts";
      ls.kind = "elementwise";
      ls.forwardSeconds = casts.seconds();
      ls.backwardSeconds = casts.seconds();
      ls.kernels = static_cast<int>(std::lround(2 * casts.kernels));
      ls.utilization = 1.0;
      ls.bound = Bound::Memory;
      rows->push_back(std::move(ls));
    }
  }
  fwd = passTime(fwd, u);
  bwd = passTime(bwd, u);
  OpTime recompute;
  if (p.recompute == Recompute::Full) recompute = block.forward.scaled(layersPerStage);
  if (p.recompute == Recompute::Selective && !u.fusedAttention) {
    // Re-run the attention core's forward for its backward: about a third of its time.
    for (const auto& op : w.block)
      if (op.kind == OpKind::Attention) {
        double unused = 0;
        const PassTimes t = attentionTimes(w, u, p, sequences, true, &unused);
        recompute.add(t.forward.scaled(layersPerStage));
      }
  }

  // Tensor parallel: two all-reduces (or reduce-scatter + all-gather) per layer forward, two
  // backward, two more when the forward is recomputed; on NVLink/ICI when tp fits a node.
  double tp = 0;
  if (p.tp > 1) {
    const double bytes = tokens * s.dModel * u.actBytes;
    const double one = ringAllReduceSeconds(bytes, p.tp, linkFor(p.tp, u), u.latencySeconds);
    const double perLayer = one * (p.recompute == Recompute::Full ? 6.0 : 4.0);
    tp = perLayer * layersPerStage * (u.overlapsCollectives && u.fusesElementwise ? 1.0 - kTensorParallelOverlapShare : 1.0);
  }
  // Pipeline: each micro-batch's activations cross a stage boundary forward, gradients back.
  double ppComm = 0;
  if (p.pp > 1) ppComm = 2.0 * tokens * s.dModel / p.tp * u.actBytes / linkFor(p.tp * p.pp, u);
  // Expert parallel: dispatch and combine all-to-all per layer, forward and backward.
  double ep = 0;
  if (p.ep > 1) {
    const double bytes = tokens * s.expertsPerToken * s.dModel * u.actBytes * (p.ep - 1.0) / p.ep;
    const double moeShare = static_cast<double>(s.moeLayers()) / s.layers;
    ep = 4.0 * layersPerStage * moeShare * bytes / linkFor(p.ep * p.tp * p.pp, u);
  }
  recompute = passTime(recompute, u);
  c.microBatchSeconds = fwd.seconds() + bwd.seconds() + recompute.seconds() + tp + ppComm + ep;
  c.kernelsPerMicroBatch = static_cast<std::int64_t>(std::llround(fwd.kernels + bwd.kernels + recompute.kernels));
  const double slots = m + p.pp - 1;  // 1F1B: m micro-batches plus the fill and drain
  c.bubbleSeconds = (p.pp - 1) * c.microBatchSeconds;
  c.computeSeconds = slots * (fwd.compute + bwd.compute + recompute.compute);
  c.memorySeconds = slots * (fwd.memory + bwd.memory + recompute.memory);
  c.overheadSeconds = slots * (fwd.overhead + bwd.overhead + recompute.overhead);
  // Host work and kernels: each micro-batch once (the bubble's slots launch nothing).
  c.hostSeconds = m * (fwd.host + bwd.host + recompute.host);
  c.exposedHostSeconds = slots * (fwd.exposedHost + bwd.exposedHost + recompute.exposedHost);
  c.tpCommSeconds = slots * tp;
  c.ppCommSeconds = slots * ppComm;
  c.epCommSeconds = slots * ep;
  const double pipeline = slots * c.microBatchSeconds;
  // Evaluation: the forward of each micro-batch through the pipeline, with the forward's half of
  // the tensor-parallel all-reduces (two of four), of the stage hand-offs and of the all-to-alls
  // (ZeRO-3's forward weight gathers are added below).
  const double tpForward = tp * 2.0 / (p.recompute == Recompute::Full ? 6.0 : 4.0);
  c.evalStepSeconds = slots * (fwd.seconds() + tpForward + ppComm / 2 + ep / 2) + u.stepOverheadSeconds;

  // Data parallel: the gradients of this chip's shard reduced once per step (ZeRO-3 also
  // gathers the weights before each micro-batch's forward and backward).
  StageParams sp = stageParams(w, p);
  sp.experts /= p.tp;
  const double chipParams = std::max(sp.first, sp.last) / p.tp;
  const bool lora = w.finetune == Finetune::Lora;
  const double trainable = lora ? static_cast<double>(w.loraParams) / p.pp / p.tp : chipParams;
  // The experts' gradients are reduced among the dp / ep replicas holding the same experts.
  const double expertGrads = lora ? 0.0 : sp.experts;
  const double gradWidth = u.actBytes < 4 ? 2.0 : 4.0;
  const int stride = p.tp * p.pp;
  // One collective over dp for what every replica holds; the experts over their own dp / ep
  // group (the same group, one collective, without expert parallelism).
  auto overReplicas = [&](double all, double experts) {
    if (p.ep <= 1) return groupAllReduce(all, p.dp, stride, u);
    return groupAllReduce(all - experts, p.dp, stride, u) + groupAllReduce(experts, p.dp / p.ep, stride * p.ep, u);
  };
  double dpComm = overReplicas(trainable * gradWidth, expertGrads * gradWidth);
  double window = bwd.compute + bwd.memory;  // the last micro-batch's backward
  if (p.zero >= 3 && p.dp > 1) {
    // All-gathers (half an all-reduce each) of the dense weights over the dp replicas, and of
    // the experts over the dp / ep replicas holding them (none when each chip is their only one).
    const double width = u.actBytes < 4 ? 2.0 : 4.0;
    const double gather = overReplicas(chipParams * width, sp.experts * width) / 2.0;
    dpComm += 2.0 * m * gather;
    c.evalStepSeconds += m * gather;  // an evaluation forward gathers the weights too
    window = c.computeSeconds + c.memorySeconds;
  }
  c.dpCommTotalSeconds = dpComm;
  c.dpCommSeconds = u.overlapsCollectives ? exposedCommunicationSeconds(dpComm, window, false) : dpComm;
  // Adam over the parameters this chip updates (its ZeRO shard).
  const double updated = lora ? trainable / (p.zero >= 1 ? p.dp : 1.0) : sp.perChip(chipParams, p.zero >= 1, p);
  c.optimizerSeconds = updated * u.optimizerBytesPerParam / u.memBytesPerSecond;
  c.overheadSeconds += u.stepOverheadSeconds;
  c.stepSeconds = pipeline + c.dpCommSeconds + c.optimizerSeconds + u.stepOverheadSeconds;

  c.memory = planMemory(w, u, p, globalBatch);
  c.fits = c.memory.total() <= u.capacityBytes;
  return c;
}

}  // namespace core::sim
