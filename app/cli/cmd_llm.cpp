// accellab-cli simulate for transformers (LLM scale): the model, sequence length, device count,
// parallel plan ("auto" searches), fine-tune mode and tokens to train, in; the SimReport out.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <ostream>
#include <sstream>

#include "app/cli/args.h"
#include "app/cli/commands.h"
#include "app/cli/engine_options.h"
#include "app/cli/sim_options.h"
#include "core/data/dataset_info.h"
#include "core/experiment/limits.h"
#include "core/nn/transformer_spec.h"
#include "core/sim/backwards_plan.h"
#include "core/sim/sim_report_json.h"
#include "core/sim/llm_simulator.h"
#include "core/sim/transformer_run.h"
#include "core/util/error.h"
#include "core/util/numbers.h"
#include "core/util/units.h"

namespace app::cli {
namespace {

using core::util::Error;
using core::util::Json;
using core::util::readableMoney;
using core::util::readableNumber;

std::string gib(double bytes) { return fmt(bytes / core::util::kBytesPerGib); }

void printText(const core::sim::SimReport& r, std::ostream& out) {
  const auto& c = r.config;
  const core::sim::LlmPart& l = *r.llm;
  out << l.modelName << " (" << c.modelId << ", " << core::sim::finetuneName(c.llm.finetune)
      << (c.llm.finetune == core::sim::Finetune::Lora ? " rank " + std::to_string(c.llm.loraRank) : std::string()) << ") on "
      << c.count << "x " << c.deviceId << " (" << l.chips << " chips), batch " << c.batch << " x " << l.seqLen
      << " tokens, " << core::util::precisionName(c.precision) << ", " << r.stackName << " [simulated]\n"
      << "  model           " << withThousands(r.size.params) << " parameters"
      << (r.size.activeParams > 0 ? ", " + withThousands(r.size.activeParams) + " active a token" : std::string())
      << ", " << fmt(r.size.forwardFlopsPerSample / 1e12, 4) << " TFLOP forward a sample\n"
      << "  plan            " << l.plan.describe() << "  (" << l.plan.text() << ")\n"
      << "  step            " << duration(r.stepSeconds) << "  (" << core::sim::boundName(r.bound) << "-bound)\n"
      << "  breakdown       compute " << fmt(r.breakdown.computeSeconds) << " s, memory " << fmt(r.breakdown.memorySeconds)
      << " s, overhead " << fmt(r.breakdown.overheadSeconds) << " s, communication "
      << fmt(r.breakdown.communicationSeconds) << " s (bubble " << fmt(l.bubbleSeconds) << " s)\n"
      << "  throughput      " << readableNumber(l.tokensPerSecond) << " tokens/s, " << readableNumber(r.imagesPerSecond)
      << " samples/s, MFU " << fmt(100 * r.utilization) << "% of " << fmt(r.peakTflops) << " TFLOP/s " << core::util::precisionName(r.peakPrecision) << " per chip\n"
      << "  memory per chip " << gib(l.memory.total()) << " of " << gib(r.memoryCapacityBytes)
      << " GiB: weights " << gib(l.memory.weightBytes) << ", gradients " << gib(l.memory.gradientBytes)
      << ", optimizer " << gib(l.memory.optimizerBytes) << ", activations " << gib(l.memory.activationBytes) << " -> "
      << (r.fitsInMemory ? "fits" : "DOES NOT FIT") << "\n"
      << "  cost            ";
  if (r.priceKnown) {
    out << readableMoney(r.usdPerHour) << "/h, " << readableMoney(l.usdPerMillionTokens) << " per million tokens";
    if (c.llm.trainTokens > 0)
      out << ", " << readableMoney(l.usdToTokens) << " for " << readableNumber(c.llm.trainTokens) << " tokens";
    out << " (" << priceLabel(r.priceKind, r.priceSeller, r.priceDate) << ")";
  } else {
    out << core::sim::noPriceText(r.priceDate) << "; --usd-per-hour sets yours";
  }
  if (c.llm.trainTokens > 0) out << "\n  time to tokens  " << duration(l.timeToTokensSeconds);
  out << "\n  energy          "
      << energyText(r.energy, c.energy, l.energyBasis == core::sim::EnergyBasis::OneHour ? "per hour" : "to the tokens");
  out << "\n  why             " << r.explanation << "\n";
}

}  // namespace

// The options simulate and plan share for a transformer: model, dataset, sequence length,
// precision, fine-tuning, parallel plan, price and energy (not device, count, batch or tokens).
core::sim::SimConfig llmConfigOptions(const Args& a, std::ostream& err) {
  core::sim::SimConfig c;
  const core::nn::TransformerSpec& spec = [&]() -> const core::nn::TransformerSpec& {
    try {
      return core::nn::resolveTransformer(a.required("model"));
    } catch (const Error& e) {
      throw Error(std::string("--model: ") + e.what());
    }
  }();
  c.modelId = spec.id;
  // Any dataset of the right kind: token sequences ("text", the generic one; fortunes) or images
  // for a ViT.
  const std::string dataset = a.str("dataset", "");
  if (!dataset.empty() && !(dataset == "text" && spec.kind != core::nn::TransformerKind::Vision)) {
    try {
      core::sim::requireTransformerDataset(spec, dataset);
    } catch (const core::util::FieldError&) {
      throw;  // names its field: the CLI says the flag
    } catch (const Error& e) {
      throw Error("--dataset: " + std::string(e.what()));
    }
  }
  c.llm.seqLen = static_cast<int>(a.integer("seq-len", 0, 1, core::nn::kMaxSeqLen));
  if (a.has("seq-len") && spec.kind == core::nn::TransformerKind::Vision)
    throw Error("--seq-len: " + c.modelId + " reads " + std::to_string(spec.tokensPerSample(0)) +
                " tokens (patches and a class token) per image; it has no sequence length to set");
  c.precision = parsePrecisionOption("--precision", a.str("precision", "bf16"));
  const std::string finetune = a.str("finetune", "full");
  if (finetune == "lora") c.llm.finetune = core::sim::Finetune::Lora;
  else if (finetune != "full") throw Error("--finetune: '" + finetune + "' is not one of full, lora");
  c.llm.loraRank = static_cast<int>(a.integer("lora-rank", 16, 1, core::sim::kMaxLoraRank));
  if (a.has("lora-rank") && c.llm.finetune != core::sim::Finetune::Lora)
    throw Error("--lora-rank: only with --finetune lora");
  const std::string plan = a.str("parallel", "auto");
  if (plan != "auto") c.llm.plan = core::sim::parseParallelPlan(plan);
  c.preemptible = a.flag("preemptible");
  const CostOptions cost = costOptions(a, err);
  c.userUsdPerHour = cost.userUsdPerHour;
  c.energy = cost.energy;
  return c;
}

int simulateTransformer(const Args& a, std::ostream& out, std::ostream& err) {
  a.allowOnly({"model", "dataset", "device", "count", "vcpus", "batch", "precision", "preemptible", "format", "stack",
               "help", "usd-per-hour", "grid", "pue", "seq-len", "parallel", "finetune", "lora-rank", "train-tokens"});
  const std::string format = a.str("format", "json");
  if (format != "json" && format != "text") throw Error("--format: '" + format + "' is not one of json, text");
  core::sim::SimConfig c = llmConfigOptions(a, err);
  const std::string device = a.required("device");
  const core::hw::DeviceCatalog cat = loadSimCatalog(device == core::hw::kHostDeviceId, err);
  c.deviceId = deviceIdOption("--device", device, cat);
  c.count = static_cast<int>(a.integer("count", 1, 1, core::experiment::kMaxDeviceCount));
  c.vcpus = static_cast<int>(a.integer("vcpus", 0, 1, core::experiment::kMaxVcpus));
  if (a.has("vcpus") && cat.at(c.deviceId).kind != core::hw::DeviceKind::Cpu)
    throw Error("--vcpus: device '" + c.deviceId + "' is not a CPU");
  if (!a.has("batch")) throw Error("missing required option --batch (global, in sequences)");
  c.batch = static_cast<int>(a.integer("batch", 0, 1, core::experiment::kMaxBatch));
  c.llm.trainTokens = a.real("train-tokens", 0, 1, core::sim::kMaxTrainTokens);
  const core::hw::StackCatalog stacks = loadSimStacks(err);
  const std::string stackId = stackIdOption(a, stacks);
  const core::hw::DeviceSpec& d = cat.at(c.deviceId);
  const core::hw::StackSpec& stack = stackId.empty() ? stacks.defaultFor(d.kind) : stacks.at(stackId);
  const core::sim::SimReport r = core::sim::simulateLlm(c, d, stack);
  // The held-out error band of the stack on this device's generation, as for CNNs.
  // And a caution where its MFU exceeds what published runs of that scale reached.
  const auto errors = shippedHeldOutErrors(cat, err);
  const core::sim::ErrorBand band = errors ? core::sim::errorBandFor(*errors, c.modelId, stack.id, d) : core::sim::ErrorBand{};
  const std::string caution = errors && r.fitsInMemory ? core::sim::mfuCaution(*errors, r.utilization, r.llm->chips, d.kind) : "";
  if (format == "text") {
    printText(r, out);
    if (band.known()) out << "  error band      " << band.text() << "\n";
    if (!caution.empty()) out << "  caution         " << caution << "\n";
  } else {
    Json j = core::sim::simReportToJson(r, core::sim::JsonDigits::Six, core::sim::JsonLayers::Write);
    if (band.known()) j.set("error_band", core::sim::errorBandToJson(band));
    if (!caution.empty()) j.set("mfu_caution", caution);
    out << j.dump(2) << "\n";
  }
  return 0;
}

}  // namespace app::cli

namespace app::cli {

const char* const kPlanUsage =
    "Usage: accellab-cli plan --model M --device a,b,... (--tokens N | --epochs E --dataset D)\n"
    "                         (--days D | --deadline YYYY-MM-DD)\n"
    "                         [--budget-usd U] [--batch B] [--seq-len T] [--precision P]\n"
    "                         [--stack ID] [--finetune full|lora] [--max-count N]\n"
    "                         [--usd-per-hour X] [--grid R] [--pue P] [--format json|text]\n"
    "\n"
    "Plans backwards for a transformer (an id, or your config.json or model file): for each device,\n"
    "the smallest count that trains --tokens tokens within the deadline and/or the budget, with its\n"
    "parallel plan, time, cost and\n"
    "energy, or why no count up to --max-count (default 65536) does. Every count tried is\n"
    "simulated as `simulate` would (plan search included): counts double from 1, then the gap\n"
    "is bisected (whole nodes beyond one node).\n"
    "  --tokens N         tokens to train (e.g. 1e12)\n"
    "  --epochs E         or epochs over --dataset D (imagenet for a ViT, fortunes, imdb, ...): E x its\n"
    "                     training samples x the model's tokens a sample (as simulate's run counts them)\n"
    "  --days D           the deadline in days of training; or --deadline YYYY-MM-DD (from now)\n"
    "  --budget-usd U     the most the training may cost (needs a price: the catalog's or yours)\n"
    "  --batch B          GLOBAL batch in sequences, kept at every count (default 1024)\n"
    ACCELLAB_COST_OPTIONS_USAGE
    "JSON: one object per device: device, met, count (null when not met), why, counts_tried,\n"
    "and the simulate keys at that count under \"report\" (time_to_tokens_seconds, usd_to_tokens,\n"
    "plan, energy_kwh, ...; the closest count tried when not met), and error_band: the held-out\n"
    "error of the stack on the device's generation (as simulate gives it).\n"
    "Example: accellab-cli plan --model llama3-8b --device h100,mi300x,tpu-v5p-8 --tokens 1e12 --days 30\n";

namespace {

// Seconds from now to the start (00:00 UTC) of a YYYY-MM-DD date; throws naming the option.
double secondsUntil(const std::string& date) {
  int y = 0, m = 0, d = 0;
  char tail = 0;
  if (std::sscanf(date.c_str(), "%4d-%2d-%2d%c", &y, &m, &d, &tail) != 3 || m < 1 || m > 12 || d < 1 || d > 31)
    throw Error("--deadline: '" + date + "' is not a date YYYY-MM-DD");
  const std::chrono::year_month_day ymd{std::chrono::year{y} / std::chrono::month{static_cast<unsigned>(m)} /
                                       std::chrono::day{static_cast<unsigned>(d)}};
  if (!ymd.ok()) throw Error("--deadline: " + date + " is not a day of the calendar");
  const std::chrono::sys_days day{ymd};
  const double seconds =
      std::chrono::duration<double>(day - std::chrono::system_clock::now()).count();
  if (!(seconds > 0)) throw Error("--deadline: " + date + " is not in the future");
  return seconds;
}

}  // namespace

int cmdPlan(const CommandArgs& args, std::ostream& out, std::ostream& err) {
  const Args a(args, {"help", "preemptible"});
  a.allowOnly({"model", "dataset", "device", "tokens", "epochs", "days", "deadline", "budget-usd", "batch", "seq-len",
               "precision", "stack", "finetune", "lora-rank", "max-count", "preemptible", "usd-per-hour", "grid", "pue",
               "format", "help"});
  const std::string format = a.str("format", "json");
  if (format != "json" && format != "text") throw Error("--format: '" + format + "' is not one of json, text");
  core::sim::SimConfig base = llmConfigOptions(a, err);
  base.batch = static_cast<int>(a.integer("batch", 1024, 1, core::experiment::kMaxBatch));
  core::sim::BackwardsGoal goal;
  if (a.has("tokens") == a.has("epochs"))
    throw Error(a.has("tokens") ? "--epochs: give --tokens or --epochs, not both"
                                : "missing required option --tokens (tokens to train, e.g. 1e12) or --epochs with --dataset");
  std::string epochsOf;  // "3 epochs of imagenet", said beside the tokens
  if (a.has("epochs")) {
    if (!a.has("dataset")) throw Error("--epochs: name the dataset they go over (--dataset), or give --tokens");
    const double epochs = a.real("epochs", 0, 1e-3, 1e6);
    const core::data::DatasetInfo& info = core::data::datasetInfo(a.str("dataset", ""));
    if (info.trainSize <= 0) throw Error("--epochs: dataset '" + info.id + "' has no fixed size; give --tokens");
    const auto perSample = core::nn::transformerSpec(base.modelId).tokensPerSample(base.llm.seqLen);
    goal.tokens = epochs * static_cast<double>(info.trainSize) * static_cast<double>(perSample);
    if (!(goal.tokens <= core::sim::kMaxTrainTokens))
      throw Error("--epochs: " + fmt(goal.tokens, 4) + " tokens is more than the " + fmt(core::sim::kMaxTrainTokens, 4) +
                  " a plan takes");
    epochsOf = fmt(epochs, 4) + " epochs of " + info.id + " (" + core::util::groupedWhole(static_cast<double>(info.trainSize)) +
               " samples x " + std::to_string(perSample) + " tokens) = " + core::util::groupedWhole(goal.tokens) + " tokens";
  } else {
    goal.tokens = a.real("tokens", 0, 1, core::sim::kMaxTrainTokens);
  }
  if (a.has("days") && a.has("deadline")) throw Error("--deadline: give --days or --deadline, not both");
  if (a.has("days")) goal.deadlineSeconds = a.real("days", 0, 1e-3, 1e6) * 86400;
  if (a.has("deadline")) goal.deadlineSeconds = secondsUntil(a.str("deadline", ""));
  if (a.has("budget-usd")) goal.budgetUsd = a.real("budget-usd", 0, 1e-2, 1e15);
  goal.maxCount = static_cast<int>(a.integer("max-count", core::experiment::kMaxDeviceCount, 1, core::experiment::kMaxDeviceCount));
  const core::hw::DeviceCatalog cat = loadSimCatalog(false, err);
  const core::hw::StackCatalog stacks = loadSimStacks(err);
  const std::string stackId = stackIdOption(a, stacks);
  const auto devices = a.list("device", {});
  if (devices.empty()) throw Error("missing required option --device (one or more, comma-separated)");
  const auto errors = shippedHeldOutErrors(cat, err);  // each device's error band
  if (format == "text" && !epochsOf.empty()) out << epochsOf << "\n";
  Json all = Json::array();
  for (const auto& id : devices) {
    core::sim::SimConfig c = base;
    c.deviceId = deviceIdOption("--device", id, cat);
    const core::hw::DeviceSpec& d = cat.at(c.deviceId);
    const core::hw::StackSpec& stack = stackId.empty() ? stacks.defaultFor(d.kind) : stacks.at(stackId);
    const core::sim::BackwardsAnswer ans = core::sim::planBackwards(c, d, stack, goal);
    const core::sim::ErrorBand band = errors ? core::sim::errorBandFor(*errors, c.modelId, stack.id, d) : core::sim::ErrorBand{};
    if (format == "text") {
      out << c.deviceId << ": ";
      if (ans.met) {
        const auto& r = ans.report;
        out << ans.count << (ans.count == 1 ? " device (" : " devices (") << r.llm->plan.text() << "), " << duration(r.llm->timeToTokensSeconds);
        if (r.priceKnown)
          out << ", " << readableMoney(r.llm->usdToTokens) << " (" << priceLabel(r.priceKind, r.priceSeller, r.priceDate) << ")";
        else
          out << ", " << core::sim::noPriceText(r.priceDate);
        out << "; " << energyText(r.energy, r.config.energy, "to the tokens");
        if (band.known()) out << "; error band " << band.label();
        out << "\n";
      } else {
        out << "none: " << ans.why;
        if (band.known()) out << " (error band " << band.label() << ")";
        out << "\n";
      }
      continue;
    }
    Json j = Json::object();
    j.set("device", c.deviceId);
    j.set("met", ans.met);
    j.set("count", ans.met ? Json(ans.count) : Json());
    if (!ans.met) j.set("why", ans.why);
    Json tried = Json::array();
    for (int n : ans.countsTried) tried.push(n);
    j.set("counts_tried", tried);
    j.set("report", ans.hasReport ? core::sim::simReportToJson(ans.report, core::sim::JsonDigits::Six) : Json());
    if (band.known()) j.set("error_band", core::sim::errorBandToJson(band));
    all.push(std::move(j));
  }
  if (format == "json") {
    Json root = Json::object();
    root.set("model", base.modelId);
    root.set("tokens", goal.tokens);
    if (a.has("epochs")) root.set("epochs", a.real("epochs", 0, 1e-3, 1e6)), root.set("dataset", a.str("dataset", ""));
    root.set("deadline_seconds", goal.deadlineSeconds > 0 ? Json(goal.deadlineSeconds) : Json());
    root.set("budget_usd", goal.budgetUsd > 0 ? Json(goal.budgetUsd) : Json());
    root.set("batch", base.batch);
    root.set("simulated", true);
    root.set("devices", all);
    out << root.dump(2) << "\n";
  }
  return 0;
}

}  // namespace app::cli
