// A transformer AccelLab describes (built-in, a model file or a Hugging Face config.json) as a
// PyTorch job: MODEL is its model file, the module (torch_transformer.py.inc) is written from
// it key for key, and CONFIG carries the plan (data parallel, ZeRO, recomputation,
// micro-batches), LoRA and the stack's torch.compile. The runner is every job's.
#include <sstream>

#include "core/bridge/torch_job_parts.h"
#include "core/nn/model_file.h"
#include "core/nn/transformer_spec.h"
#include "core/sim/llm_workload.h"
#include "core/util/error.h"
#include "core/util/files.h"
#include "core/util/version.h"

namespace core::bridge::detail {
namespace {

using util::FieldError;
using util::Json;

constexpr const char* kTransformer =
#include "core/bridge/torch_transformer.py.inc"
    ;

// Tensor parallelism in the exported job is DTensor's column/row split of each block's
// projections (torch_runner's tensor_parallel): what it cannot split is refused here.
void checkTensorParallel(const ExportRequest& r, const nn::TransformerSpec& spec) {
  const LlmExport& l = *r.llm;
  const sim::ParallelPlan& p = l.plan;
  const std::string tp = "tp=" + std::to_string(p.tp) + ": ";
  const std::string instead = "; export with tp=1 (data parallel, ZeRO, FSDP) or run the plan with Megatron-LM or torchtitan";
  if (spec.kind == nn::TransformerKind::Vision)
    throw FieldError("parallel", tp + "the exported job splits a language model's blocks, not a vision transformer's" + instead);
  if (spec.mla()) throw FieldError("parallel", tp + spec.id + "'s latent attention is not split by the exported job" + instead);
  if (spec.moe()) throw FieldError("parallel", tp + spec.id + "'s experts are not split by the exported job" + instead);
  if (spec.kvHeads % p.tp != 0)
    throw FieldError("parallel", tp + "the " + std::to_string(spec.kvHeads) + " key/value heads do not split over " +
                                     std::to_string(p.tp) + " ranks" + instead);
  if (spec.qkNorm != nn::QkNorm::None)  // one scale shared by heads on different ranks: its gradient would be partial
    throw FieldError("parallel", tp + spec.id + "'s q/k norms share their scales across heads the split puts on different "
                                     "ranks, which the exported job does not reduce" + instead);
  if (spec.attentionSinks) throw FieldError("parallel", tp + spec.id + "'s attention sinks are not split by the exported job" + instead);
  if (l.finetune == sim::Finetune::Lora)
    throw FieldError("parallel", tp + "the LoRA adapters are not split by the exported job; export --finetune full, or tp=1");
  if (r.train.precision == util::Precision::FP16)
    throw FieldError("precision", tp + "fp16's loss scaling does not take the split weights in the exported job; export "
                                       "--precision bf16, or tp=1");
  if (p.dp > 1 && p.zero != 3)
    throw FieldError("parallel", tp + "over dp=" + std::to_string(p.dp) +
                                     " replicas the split weights (DTensor) shard with FSDP2, as torchtitan runs them: "
                                     "export with zero=3, or dp=1");
}

// What the exported job can run, checked before anything is written: each refusal names the
// option and says what to export instead.
void checkExportable(const ExportRequest& r, const nn::TransformerSpec& spec, int seqLen) {
  const LlmExport& l = *r.llm;
  const sim::ParallelPlan& p = l.plan;
  if (spec.normsPerLayer != 2 && spec.normsPerLayer != 4)
    throw FieldError("model", spec.id + " has " + std::to_string(spec.normsPerLayer) +
                                  " norms a block; the exported module knows 2 (pre- or post-norm) and 4 (both)");
  if (p.chips() != r.count)
    throw FieldError("parallel", "dp x tp x pp = " + std::to_string(p.chips()) + " processes, but --count is " +
                                     std::to_string(r.count));
  if (p.tp > 1) checkTensorParallel(r, spec);
  if (p.pp > 1)
    throw FieldError("parallel", "pp=" + std::to_string(p.pp) + ": pipeline stages are not in the exported job; export with pp=1");
  if (p.ep > 1)
    throw FieldError("parallel", "ep=" + std::to_string(p.ep) +
                                     ": expert parallelism is not in stock PyTorch; export with ep=1 (every replica holds "
                                     "the experts, or zero=3 shards them)");
  if (r.train.batch % p.dp != 0 || (r.train.batch / p.dp) % p.microBatch != 0)
    throw FieldError("parallel", "the global batch " + std::to_string(r.train.batch) + " does not split into micro-batches of " +
                                     std::to_string(p.microBatch) + " over " + std::to_string(p.dp) + " replicas");
  if (l.finetune == sim::Finetune::Lora && spec.mla())
    throw FieldError("finetune", spec.id + " uses latent attention; the exported job puts LoRA on q, k, v and o projections, "
                                 "which it does not have: export --finetune full");
  if (spec.kind == nn::TransformerKind::Vision) {
    if (p.zero == 1 || p.zero == 2 || p.microBatch != r.train.batch / p.dp)
      throw FieldError("parallel", "a vision transformer's job runs DDP or FSDP (zero=0 or 3) with one micro-batch a step; "
                                   "export with microbatch=" + std::to_string(r.train.batch / p.dp));
    if (r.train.datasetId != "synthetic-imagenet")
      throw FieldError("dataset", spec.id + " is exported on synthetic images (synthetic-imagenet), not " + r.train.datasetId);
  } else {
    if (spec.position == nn::PositionKind::Learned && seqLen > spec.maxPositions)
      throw FieldError("seq-len", std::to_string(seqLen) + " tokens, but " + spec.id + " has " +
                                      std::to_string(spec.maxPositions) + " learned positions");
    const std::string& d = r.train.datasetId;
    if (d != "synthetic" && d != "fortunes")
      throw FieldError("dataset", spec.id + " is exported on synthetic tokens (synthetic) or the bytes of a text (fortunes, "
                                  "or any text with train.py --data-dir), not " + d);
    if (d == "fortunes" && spec.vocab < 256)
      throw FieldError("dataset", "a text's bytes are token ids up to 255, but " + spec.id + " has " +
                                      std::to_string(spec.vocab) + " tokens: export on synthetic");
  }
}

Json planJson(const sim::ParallelPlan& p) {
  Json j = Json::object();
  j.set("dp", p.dp);
  j.set("tp", p.tp);
  j.set("pp", p.pp);
  j.set("ep", p.ep);
  j.set("zero", p.zero);
  j.set("recompute", sim::recomputeName(p.recompute));
  j.set("micro_batch", p.microBatch);
  return j;
}

}  // namespace

ExportedJob exportTransformerJob(const ExportRequest& r) {
  const experiment::TrainConfig& t = r.train;
  const LlmExport& l = *r.llm;
  const nn::TransformerSpec& spec = nn::transformerSpec(t.modelId);
  const bool vision = spec.kind == nn::TransformerKind::Vision;
  const int seqLen = vision ? spec.tokensPerSample(0) : (l.seqLen > 0 ? l.seqLen : spec.defaultSeqLen);
  checkExportable(r, spec, seqLen);
  const bool lora = l.finetune == sim::Finetune::Lora;

  ExportedJob job;
  job.modelId = spec.id;
  job.params = lora ? sim::loraParams(spec, l.loraRank) : spec.params();
  job.totalParams = spec.params() + (lora ? job.params : 0);
  job.unit = vision ? "images" : "tokens";
  const std::string date = r.generatedOn.empty() ? util::todayUtc() : r.generatedOn;
  const data::DatasetInfo& info = data::datasetInfo(t.datasetId);
  const DataPlan dataPlan = dataPlanFor(info);

  Json data = Json::object();
  data.set("reader", vision ? "synthetic" : dataPlan.reader);
  data.set("default_dir", dataPlan.defaultDir);
  data.set("how_to_get", vision ? std::string("synthetic images of the model's input")
                                : dataPlan.reader == "text" ? dataPlan.howToGet + " (each byte is a token id)"
                                                            : std::string("random token ids"));
  Json shape = Json::array();
  if (vision) {
    for (int v : {spec.channels, spec.imageSize, spec.imageSize}) shape.push(v);
  } else {
    for (int v : {1, seqLen, 1}) shape.push(v);
  }
  data.set("shape", shape);
  data.set("tokens", !vision);
  data.set("classes", spec.vocab);
  data.set("vocabulary", spec.vocab);
  data.set("train_size", static_cast<double>(info.trainSize));

  Json config = jobConfig(r, job, vision ? "classify" : "language", vision ? 0 : seqLen, l.plan.zero == 3 ? "fsdp" : "ddp",
                          std::move(data));
  config.set("plan", planJson(l.plan));
  config.set("finetune", sim::finetuneName(l.finetune));
  config.set("lora_rank", lora ? l.loraRank : 0);
  config.set("stack", l.stackId);
  config.set("compile", l.compile);

  std::ostringstream py;
  py << jobHeader(r, job, date,
                  "The transformer below is built from MODEL, AccelLab's model file of " + spec.id +
                      ", the description its simulator costs; plan " + l.plan.text() + ".")
     << "CONFIG = json.loads(r'''" << config.dump(2) << "''')\n"
     << "MODEL = json.loads(r'''" << nn::transformerToModelJson(spec).dump(2) << "''')\n"
     << kTransformer << "\n\ndef build_model():\n    return build_transformer()\n\n"
     << torchRunner();
  job.trainPy = py.str();

  const std::string launcher = launchCommand(r.count, "train.py");
  std::ostringstream md;
  md << "# " << spec.id << " — a PyTorch job exported by AccelLab\n\n"
     << "Exported " << date << " by AccelLab " << util::kVersion << ". `train.py` builds " << spec.name << " ("
     << job.totalParams << " parameters, " << job.params << " of them trained"
     << (lora ? ": LoRA rank " + std::to_string(l.loraRank) + " on q, k, v and o" : std::string()) << ") from `MODEL`, "
     << "AccelLab's own description of it, and trains it with global batch " << t.batch << " × " << seqLen
     << (vision ? " patches" : " tokens") << " in " << util::precisionName(t.precision) << ", seed " << t.seed
     << ". It needs Python 3 and PyTorch (1.13 or 2.x" << (l.plan.tp > 1 ? "; 2.4 or newer for its tensor parallelism" : "")
     << "), nothing else.\n\n"
     << "## The plan\n\n`" << l.plan.text() << "` — " << l.plan.describe() << ".\n"
     << (l.planReason.empty() ? std::string() : l.planReason + ".\n")
     << (l.plan.tp > 1 ? "\n- tensor parallel over " + std::to_string(l.plan.tp) +
                             " processes: DTensor splits q, k, v and the feed-forward's first matmuls by columns and the "
                             "attention output and its last matmul by rows (PyTorch 2.4 or newer; an older PyTorch stops "
                             "and says so)"
                       : std::string())
     << "\n- data parallel over " << l.plan.dp << (l.plan.dp == 1 ? " replica" : " replicas") << ": "
     << (l.plan.zero == 3 && l.plan.tp > 1 ? "FSDP2 (ZeRO-3 over the replicas, one unit per block)"
         : l.plan.zero == 3 ? "FSDP (ZeRO-3: weights, gradients and optimizer state sharded, one unit per block)"
         : l.plan.zero > 0 ? "DDP with the optimizer state sharded (ZeroRedundancyOptimizer, ZeRO-1; ZeRO-2's gradient "
                             "sharding is not in stock DDP, so gradients stay whole)"
                           : "DDP (every process holds the whole model)")
     << "\n- activation recomputation: " << sim::recomputeName(l.plan.recompute)
     << (l.plan.recompute == sim::Recompute::Full        ? " (each block re-run in the backward pass)"
         : l.plan.recompute == sim::Recompute::Selective ? " (the attention core re-run in the backward pass)"
                                                         : "")
     << "\n- micro-batches of " << l.plan.microBatch << " sequences, " << t.batch / l.plan.dp / l.plan.microBatch
     << " accumulated per step on each replica"
     << "\n- stack: " << l.stackId << (l.compile ? ", so the model runs under torch.compile (`--compile off` to run eager)"
                                                 : ", eager (`--compile on` to compile)")
     << (l.stackNote.empty() ? std::string() : "\n- " + l.stackNote) << "\n\n"
     << readmeRunSection(launcher);
  if (r.count > 1)
    md << "On several nodes: `torchrun --nnodes N --node_rank R --master_addr HOST --master_port 29500 "
          "--nproc_per_node P train.py` on each (N x P processes in all). Another number of processes changes dp; the "
          "log records the plan that ran.\n\n";
  md << "## Options\n\n"
     << "- `--steps N` stop after N optimizer steps (default " << r.lmSteps << ")\n"
     << "- `--log FILE` the JSON-lines log (default `run.jsonl`); `--device auto|cpu|cuda` (auto: CUDA or ROCm when present)\n"
     << (vision ? std::string("- the images are synthetic, of the model's input shape\n")
                : "- `--synthetic` random token ids; `--data-dir PATH` a text file or folder whose bytes are the tokens (default `" +
                      dataPlan.defaultDir + "`)\n")
     << "- `--compile auto|on|off` torch.compile (auto: as the stack does); `--count-params` prints the parameter counts "
        "(built on PyTorch's meta device, no memory) and exits\n"
     << "- `--warmup N` the first N steps are marked as warm-up in the log (default 3); `--threads N` CPU threads\n\n"
     << "## The log\n\n"
     << "One JSON object per line: a `start` record (model, the model file itself in `model_spec`, batch, precision,\n"
     << "parameters, the plan as it ran, fine-tuning, stack, whether torch.compile ran, device name and count, versions),\n"
     << "a `step` record per optimizer step (`seconds`, `tokens`, `per_second` " << job.unit << "/s, `loss`, peak memory so\n"
     << "far), `eval` records, and an `end` record with the peak device memory. `accellab-cli import-run run.jsonl` sets\n"
     << "it beside AccelLab's prediction for the same plan.\n";
  job.readme = md.str();
  return job;
}

}  // namespace core::bridge::detail
