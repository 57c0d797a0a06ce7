// accellab-cli simulate for transformers (LLM scale): the model, sequence length, device count,
// parallel plan ("auto" searches), fine-tune mode and tokens to train, in; the LlmReport out.
#include <cmath>
#include <iomanip>
#include <ostream>
#include <sstream>

#include "app/cli/args.h"
#include "app/cli/commands.h"
#include "app/cli/sim_options.h"
#include "core/nn/transformer_spec.h"
#include "core/sim/llm_report_json.h"
#include "core/sim/llm_simulator.h"
#include "core/sim/transformer_run.h"
#include "core/util/error.h"

namespace app::cli {
namespace {

using core::util::Error;

std::string gib(double bytes) { return fmt(bytes / (1024.0 * 1024 * 1024)); }

void printText(const core::sim::LlmReport& r, std::ostream& out) {
  const auto& c = r.config;
  out << r.modelName << " (" << c.modelId << ", " << core::sim::finetuneName(c.finetune)
      << (c.finetune == core::sim::Finetune::Lora ? " rank " + std::to_string(c.loraRank) : std::string()) << ") on "
      << c.count << "x " << c.deviceId << " (" << r.chips << " chips), batch " << c.batch << " x " << r.seqLen
      << " tokens, " << core::util::precisionName(c.precision) << ", " << r.stackName << " [simulated]\n"
      << "  plan            " << r.plan.describe() << "  (" << r.plan.text() << ")\n"
      << "  step            " << duration(r.stepSeconds) << "  (" << core::sim::boundName(r.bound) << "-bound)\n"
      << "  breakdown       compute " << fmt(r.breakdown.computeSeconds) << " s, memory " << fmt(r.breakdown.memorySeconds)
      << " s, overhead " << fmt(r.breakdown.overheadSeconds) << " s, communication "
      << fmt(r.breakdown.communicationSeconds) << " s (bubble " << fmt(r.bubbleSeconds) << " s)\n"
      << "  throughput      " << fmt(r.tokensPerSecond, 4) << " tokens/s, " << fmt(r.samplesPerSecond, 4)
      << " samples/s, MFU " << fmt(100 * r.mfu) << "% of " << fmt(r.peakTflopsPerChip) << " TFLOP/s per chip\n"
      << "  memory per chip " << gib(r.memory.total()) << " of " << gib(r.memoryCapacityBytes)
      << " GiB: weights " << gib(r.memory.weightBytes) << ", gradients " << gib(r.memory.gradientBytes)
      << ", optimizer " << gib(r.memory.optimizerBytes) << ", activations " << gib(r.memory.activationBytes) << " -> "
      << (r.fitsInMemory ? "fits" : "DOES NOT FIT") << "\n"
      << "  cost            ";
  if (r.priceKnown) {
    out << "$" << fmt(r.usdPerHour) << "/h, $" << fmt(r.usdPerMillionTokens) << " per million tokens";
    if (c.trainTokens > 0) out << ", $" << fmt(r.usdToTokens, 4) << " for " << fmt(c.trainTokens, 4) << " tokens";
  } else {
    out << "no price known";
  }
  if (c.trainTokens > 0) out << "\n  time to tokens  " << duration(r.timeToTokensSeconds);
  out << "\n  why             " << r.explanation << "\n";
}

}  // namespace

int simulateTransformer(const Args& a, std::ostream& out, std::ostream& err) {
  a.allowOnly({"model", "dataset", "device", "count", "batch", "precision", "preemptible", "format", "stack", "help",
               "seq-len", "parallel", "finetune", "lora-rank", "train-tokens"});
  const std::string format = a.str("format", "json");
  if (format != "json" && format != "text") throw Error("--format: '" + format + "' is not one of json, text");
  core::sim::LlmConfig c;
  c.modelId = a.required("model");
  const core::nn::TransformerSpec& spec = core::nn::transformerSpec(c.modelId);
  // Any dataset of the right kind: token sequences ("text", the generic one; fortunes) or images
  // for a ViT.
  const std::string dataset = a.str("dataset", "");
  if (!dataset.empty() && !(dataset == "text" && spec.kind != core::nn::TransformerKind::Vision)) {
    try {
      core::sim::requireTransformerDataset(spec, dataset);
    } catch (const Error& e) {
      std::string why = e.what();
      if (why.rfind("dataset: ", 0) == 0) why = why.substr(9);
      throw Error("--dataset: " + why);
    }
  }
  const std::string device = a.required("device");
  const core::hw::DeviceCatalog cat = loadSimCatalog(false, err);
  c.deviceId = deviceIdOption("--device", device, cat);
  c.count = static_cast<int>(a.integer("count", 1, 1, 65536));
  if (!a.has("batch")) throw Error("missing required option --batch (global, in sequences)");
  c.batch = static_cast<int>(a.integer("batch", 0, 1, 1 << 24));
  c.seqLen = static_cast<int>(a.integer("seq-len", 0, 1, 1 << 22));
  if (a.has("seq-len") && spec.kind == core::nn::TransformerKind::Vision)
    throw Error("--seq-len: " + c.modelId + " reads " + std::to_string(spec.tokensPerSample(0)) +
                " tokens (patches and a class token) per image; it has no sequence length to set");
  c.precision = parsePrecisionOption("--precision", a.str("precision", "bf16"));
  const std::string finetune = a.str("finetune", "full");
  if (finetune == "lora") c.finetune = core::sim::Finetune::Lora;
  else if (finetune != "full") throw Error("--finetune: '" + finetune + "' is not one of full, lora");
  c.loraRank = static_cast<int>(a.integer("lora-rank", 16, 1, 65536));
  if (a.has("lora-rank") && c.finetune != core::sim::Finetune::Lora)
    throw Error("--lora-rank: only with --finetune lora");
  const std::string plan = a.str("parallel", "auto");
  if (plan != "auto") c.plan = core::sim::parseParallelPlan(plan);
  c.trainTokens = a.real("train-tokens", 0, 1, 1e18);
  c.preemptible = a.flag("preemptible");
  const core::hw::StackCatalog stacks = loadSimStacks(err);
  const std::string stackId = stackIdOption(a, stacks);
  const core::hw::DeviceSpec& d = cat.at(c.deviceId);
  const core::hw::StackSpec& stack = stackId.empty() ? stacks.defaultFor(d.kind) : stacks.at(stackId);
  const core::sim::LlmReport r = core::sim::simulateLlm(c, d, stack);
  if (format == "text") printText(r, out);
  else out << core::sim::llmReportToJson(r).dump(2) << "\n";
  return 0;
}

}  // namespace app::cli
