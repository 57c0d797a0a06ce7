// accellab-cli simulate / sweep / devices: the simulator and the hardware catalog from the
// command line. (validate lives in sim_validate.cpp.)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <iomanip>
#include <optional>
#include <ostream>
#include <sstream>

#include "app/cli/args.h"
#include "app/cli/commands.h"
#include "app/cli/sim_json.h"
#include "core/util/numbers.h"
#include "core/experiment/limits.h"
#include "core/hw/device_spec.h"
#include "core/sim/sim_report_json.h"
#include "app/cli/sim_options.h"
#include "core/data/dataset_loader.h"
#include "core/experiment/sim_config.h"
#include "core/nn/transformer_spec.h"
#include "core/nn/model_file.h"
#include "core/nn/zoo.h"
#include "core/sim/simulator.h"
#include "core/sim/row_readings.h"
#include "core/sim/validation.h"
#include "core/util/error.h"
#include "core/util/json.h"

namespace app::cli {

using core::util::Error;
using core::util::Json;
using core::util::readableMoney;
using core::util::readableNumber;

const char* const kSimulateUsage =
    "Usage: accellab-cli simulate --model M [--dataset D] --device X --batch B [--count N]\n"
    "                             [--vcpus V] [--precision fp32|tf32|fp16|bf16|fp8|fp4] [--epochs E]\n"
    "                             [--stack ID] [--cpu-build compiled|pip] [--eval]\n"
    "                             [--memory-format nchw|channels-last]\n"
    "                             [--limit N] [--steps-per-epoch S] [--preemptible] [--usd-per-hour X]\n"
    "                             [--grid R] [--pue P] [--format json|text]\n"
    "\n"
    "Predicts one training configuration from the model's layers, the device file and the\n"
    "software stack: the step time and what binds it, images/s, steady and first epoch, memory\n"
    "per device, and cost.\n"
    "  --stack ID         software stack (accellab-cli stacks): keras-2017, tuned, ...; default:\n"
    "                     the modern stack for the device's kind (pytorch-eager on CPUs/GPUs,\n"
    "                     tuned on TPUs)\n"
    "  --dataset D        default: the model's own dataset (accellab-cli models)\n"
    "  --data-dir DIR     with --dataset image-folder: your folder (DIR/<class>/*.png|*.jpg);\n"
    "                     its images make the epoch, at the model's own input size\n"
    "  --batch B          GLOBAL batch, split evenly over --count devices\n"
    "  --count N          devices in synchronous data parallel (default 1)\n"
    "  --vcpus V          scalable CPUs (cpu-skylake): vCPUs used (default: the device's)\n"
    "  --precision P      fp16/bf16 = mixed precision; a device without units for P runs the\n"
    "                     nearest precision it has (the explanation says so). Default: the run's\n"
    "                     fp32, or where the device has no fp32 peak (a TPU) the first of bf16,\n"
    "                     fp16, fp32, tf32 it has: the app's rule for a device without a choice\n"
    "  --limit N          a subset: epochs of the first N training samples (as train --limit)\n"
    "  --cpu-build        CPU software stack: compiled (default) or pip (2017 TensorFlow\n"
    "                     without AVX2/FMA kernels)\n"
    "  --eval             each epoch also runs a forward pass over the test split\n"
    "  --memory-format F  CNN activations on a GPU's tensor cores: nchw (PyTorch's default; cuDNN\n"
    "                     transposes around each convolution) or channels-last; default: the\n"
    "                     stack's (pytorch-eager: nchw, pytorch-compile and tuned: channels-last)\n"
    "  --preemptible      preemptible/spot price instead of on-demand\n"
    "  --layers           with --format text: each layer's time, utilisation and bound after the\n"
    "                     summary (JSON always has them under layers)\n"
    ACCELLAB_COST_OPTIONS_USAGE
    "JSON keys: model, dataset, device, count, batch, precision, step_seconds, images_per_second,\n"
    "epoch_seconds, first_epoch_seconds, usd_per_hour, usd_per_million_images, usd_per_run\n"
    "(null, never 0, when no price is known), price_kind (on-demand, preemptible, user),\n"
    "price_seller and price_date, energy_kwh and co2e_kg over the run (estimates: null when the\n"
    "device file has no power figure; energy {power_watts, power_from, pue, grid...}),\n"
    "memory_bytes_per_device, fits_in_memory, bound, explanation, breakdown {compute_seconds,\n"
    "memory_seconds, overhead_seconds, input_seconds, communication_seconds}, simulated: true,\n"
    "and more.\n"
    "A configuration that does not fit prints fits_in_memory: false and exits 0.\n"
    "Example: accellab-cli simulate --model resnet50 --dataset imagenet --device v100 --count 4 \\\n"
    "           --batch 1024 --precision fp16\n"
    "\n"
    "Transformers (bert-*, gpt2-*, gpt3-*, llama*, mistral-7b, mixtral-8x7b, maxtext-*, vit-*; the\n"
    "list: accellab-cli models; or --model PATH: your Hugging Face config.json or model file) are\n"
    "simulated at LLM scale, one step of the whole batch over --count devices (a TPU board counts\n"
    "its chips; on a CPU, --count is torchrun's processes on one machine of --vcpus vCPUs, which\n"
    "they share):\n"
    "  --seq-len T        tokens per sequence (default: the model's own; ViT: its patches)\n"
    "  --precision P      default bf16; fp8 = fp8 matmuls, bf16 elsewhere (Hopper+, MI300, Gaudi,\n"
    "                     TPU v5p/v6e); a device without fp8 runs bf16 and says so; fp4 =\n"
    "                     NVFP4/MXFP4 matmuls, bf16 elsewhere (Blackwell, MI355X); a device\n"
    "                     without fp4 runs fp8 (or bf16) and says so\n"
    "  --parallel auto    (default) cost every plan that can run and take the fastest that fits;\n"
    "                     or one plan: dp=8,tp=2,pp=1,ep=1,zero=1,recompute=selective,microbatch=2\n"
    "                     (zero 0-3: ZeRO stage, 3 = FSDP; recompute none|selective|full)\n"
    "  --finetune MODE    full (pre-training, default) or lora (frozen base, adapters on q,k,v,o)\n"
    "  --lora-rank R      LoRA rank (default 16)\n"
    "  --train-tokens N   also report time_to_tokens_seconds and usd_to_tokens for N tokens\n"
    "JSON: the report every simulation prints (step_seconds, images_per_second = sequences/s,\n"
    "utilization = MFU, memory_bytes_per_device, bound, explanation, ...) with a transformer's\n"
    "keys added: tokens_per_second, samples_per_second, mfu, plan {dp, tp, pp, ep, zero,\n"
    "recompute, microbatch, text, searched, ...}, memory_breakdown {weights_bytes, ...} per chip,\n"
    "usd_per_million_tokens, kernels and communication in breakdown, layers (each op of a block\n"
    "and the head, per micro-batch), params, trainable_params, forward_flops_per_sample,\n"
    "active_params (a mixture of experts), and \"simulated\": true. No dataset, epoch or run\n"
    "keys: this is a step, not a run.\n"
    "Example: accellab-cli simulate --model llama3-8b --device h100 --count 8 --batch 128 \\\n"
    "           --seq-len 8192 --precision fp8 --train-tokens 1e9 --format text\n";

const char* const kSweepUsage =
    "Usage: accellab-cli sweep --model M|all [--dataset D] [--device a,b,...] [--batch 16,32,...]\n"
    "                          [--count 1,4] [--vcpus 8,16] [--precision fp32,bf16]\n"
    "                          [--stack a,b] [--epochs E] [--limit N] [--cpu-build compiled|pip]\n"
    "                          [--memory-format nchw|channels-last]\n"
    "                          [--preemptible] [--usd-per-hour X] [--grid R] [--pue P] [--time]\n"
    "\n"
    "simulate over every combination of the lists, one JSON object per line (the keys of\n"
    "`simulate`). --model all: every zoo model on its own dataset. --time: print to stderr how\n"
    "long the simulations took (without the JSON output). Defaults: every catalog device\n"
    "except host, batches 32,64,...,1024, count 1, the device's default vCPUs, the run's fp32\n"
    "(bf16 on a device without fp32, as simulate), each device's default stack. A combination\n"
    "the simulator refuses (a batch the device count cannot split, a vCPU count for a device\n"
    "without vCPUs) is skipped with a note on stderr; configurations that do not fit are printed with fits_in_memory: false.\n";

const char* const kDevicesUsage =
    "Usage: accellab-cli devices [--format text|json] [--host [--remeasure]]\n"
    "\n"
    "Lists the hardware catalog: the shipped device files, the user's own\n"
    "(<user data dir>/devices/*.json, e.g. ~/.local/share/accellab/devices) and, with --host,\n"
    "this machine as measured by a short micro-benchmark (run once, then cached; --remeasure runs\n"
    "it again, e.g. when the cache was measured on a busy machine). JSON: an array\n"
    "of devices with their figures (units in the key names) and a source and date per figure.\n"
    "Device files that fail validation are reported on stderr, naming the file and the key.\n";

const char* const kStacksUsage =
    "Usage: accellab-cli stacks [--format text|json]\n"
    "\n"
    "Lists the software stacks (resources/stacks/*.json and the user's own in\n"
    "<user data dir>/stacks): the figures that belong to the software rather than the hardware\n"
    "(GEMM efficiency, per-op and per-step cost, fusion, input pipeline, all-reduce), each per\n"
    "hardware generation or device kind, with its source. Pass an id to simulate, sweep or\n"
    "validate with --stack ID. Stack files that fail validation are reported on stderr.\n";

namespace {

// The summary; `layers`: each layer's time, utilisation and what binds it after it (a ResNet-50
// is 160 lines, so the summary stays on screen unless asked).
void printText(const core::sim::SimReport& r, std::ostream& out, bool layers) {
  const auto& c = r.config;
  out << c.modelId << " on " << c.datasetId << ", ";
  if (c.count > 1) out << c.count << "x ";
  out << c.deviceId;
  if (r.vcpus > 0) out << " (" << r.vcpus << " vCPUs, " << core::sim::cpuBuildName(c.cpuBuild) << ")";
  out << ", batch " << c.batch << ", " << core::util::precisionName(c.precision) << "\n"
      << "  step            " << duration(r.stepSeconds) << "  (" << core::sim::boundName(r.bound) << "-bound)\n"
      << "  breakdown       compute " << fmt(r.breakdown.computeSeconds * 1e3) << " ms, memory "
      << fmt(r.breakdown.memorySeconds * 1e3) << " ms, overhead " << fmt(r.breakdown.overheadSeconds * 1e3)
      << " ms, input " << fmt(r.breakdown.inputSeconds * 1e3) << " ms, communication "
      << fmt(r.breakdown.communicationSeconds * 1e3) << " ms\n"
      << "  throughput      " << readableNumber(r.imagesPerSecond) << " images/s, " << fmt(r.achievedTflops) << " TFLOP/s per device ("
      << fmt(100 * r.utilization) << "% of " << fmt(r.peakTflops) << " " << core::util::precisionName(r.peakPrecision) << ")\n"
      << "  epoch           " << duration(r.epochSeconds) << " steady, " << duration(r.firstEpochSeconds) << " first ("
      << core::util::groupedWhole(static_cast<double>(r.stepsPerEpoch)) << " steps)\n"
      << "  memory          " << fmt(r.memoryBytesPerDevice / (1 << 30)) << " of " << fmt(r.memoryCapacityBytes / (1 << 30))
      << " GiB per device: " << (r.fitsInMemory ? "fits" : "DOES NOT FIT") << "\n"
      << "  cost            ";
  if (r.priceKnown)
    out << readableMoney(r.usdPerHour) << "/h, " << readableMoney(r.usdPerMillionImages) << " per million images, "
        << readableMoney(r.usdPerRun) << " per run ("<< priceLabel(r.priceKind, r.priceSeller, r.priceDate) << ")";
  else
    out << core::sim::noPriceText(r.priceDate) << "; --usd-per-hour sets yours";
  out << "\n  energy          " << energyText(r.energy, c.energy, "per run")
      << "\n  why             " << r.explanation << "\n";
  if (!layers) {
    out << "  layers          " << r.layers.size() << " (--layers lists each: time, utilisation, what binds it)\n";
    return;
  }
  out << "\n  layer                            kind             fwd ms    bwd ms   util  bound\n";
  for (const auto& l : r.layers) {
    std::string name = l.name;
    if (name.size() > 32) name = name.substr(0, 29) + "...";
    out << "  " << std::left << std::setw(33) << name << std::setw(14) << l.kind << std::right << std::setw(9)
        << fmt(l.forwardSeconds * 1e3) << std::setw(10) << fmt(l.backwardSeconds * 1e3) << std::setw(7)
        << fmt(l.utilization, 2) << "  " << core::sim::boundName(l.bound) << "\n";
  }
}

// The options every configuration of a run shares (not model, dataset or device): the
// experiment's (epochs, a subset, the price) and the simulator's own knobs, which no
// experiment carries (CPU build, memory format, evaluation, steps per epoch).
struct RunOptions {
  int epochs = 1;
  std::int64_t limit = 0;
  bool preemptible = false;
  CostOptions cost;
  core::sim::CpuBuild cpuBuild = core::sim::CpuBuild::Compiled;
  std::optional<bool> channelsLast;
  bool evalEachEpoch = false;
  std::int64_t stepsPerEpoch = 0;

  // The CLI's knobs on top of the experiment's configuration (core::experiment::simConfigFor).
  core::sim::SimConfig apply(core::sim::SimConfig c) const {
    c.cpuBuild = cpuBuild;
    c.channelsLast = channelsLast;
    c.evalEachEpoch = evalEachEpoch;
    if (stepsPerEpoch > 0) c.stepsPerEpoch = stepsPerEpoch;  // an explicit count wins over --limit's
    return c;
  }
};

RunOptions runOptions(const Args& a, std::ostream& err) {
  RunOptions o;
  o.epochs = static_cast<int>(a.integer("epochs", 1, 1, core::experiment::kMaxEpochs));
  o.limit = a.integer("limit", 0, 1, INT64_MAX / 2);
  o.preemptible = a.flag("preemptible");
  o.cost = costOptions(a, err);
  o.cpuBuild = cpuBuildOption(a);
  if (a.has("memory-format")) {
    const std::string f = a.str("memory-format", "");
    if (f != "nchw" && f != "channels-last") throw Error("--memory-format: '" + f + "' is not one of nchw, channels-last");
    o.channelsLast = f == "channels-last";
  }
  o.evalEachEpoch = a.flag("eval");
  o.stepsPerEpoch = a.integer("steps-per-epoch", 0, 0, INT64_MAX);
  return o;
}

// The experiment's settings that the options give (batch and precision come per configuration).
core::experiment::TrainConfig baseTrain(const Args& a, const RunOptions& options) {
  core::experiment::TrainConfig t;
  t.epochs = options.epochs;
  t.limit = options.limit;
  t.modelId = simModelOption(a);
  t.datasetId = simDatasetOption(a, t.modelId);
  if (a.has("data-dir")) {  // your image folder: its classes and image counts make the epoch
    t.dataDir = a.str("data-dir", "");
    if (t.datasetId != "image-folder") throw Error("--data-dir: applies to --dataset image-folder only");
    try {
      core::data::datasetInfoIn(t.datasetId, t.dataDir);
    } catch (const Error& e) {
      throw Error(std::string("--data-dir: ") + e.what());
    }
  }
  return t;
}

// A device choice with the options' price.
core::experiment::DeviceChoice choiceWith(const RunOptions& options) {
  core::experiment::DeviceChoice d;
  d.preemptible = options.preemptible;
  d.userUsdPerHour = options.cost.userUsdPerHour;
  return d;
}

}  // namespace

int cmdSimulate(const CommandArgs& args, std::ostream& out, std::ostream& err) {
  const Args a(args, {"help", "preemptible", "eval", "layers"});
  const std::string model = a.str("model", "");
  if (core::nn::findTransformer(model) || (core::nn::looksLikeModelPath(model) && !core::nn::isGraphModelPath(model)))
    return simulateTransformer(a, out, err);
  a.allowOnly({"model", "dataset", "device", "count", "vcpus", "batch", "precision", "epochs", "preemptible",
               "usd-per-hour", "grid", "pue",
               "cpu-build", "eval", "steps-per-epoch", "format", "stack", "help", "memory-format", "data-dir", "limit",
               "layers"});
  const std::string format = a.str("format", "json");
  if (format != "json" && format != "text") throw Error("--format: '" + format + "' is not one of json, text");
  const RunOptions options = runOptions(a, err);
  core::experiment::TrainConfig train = baseTrain(a, options);
  const std::string device = a.required("device");
  const core::hw::DeviceCatalog cat = loadSimCatalog(device == core::hw::kHostDeviceId, err);
  core::experiment::DeviceChoice choice = choiceWith(options);
  choice.deviceId = deviceIdOption("--device", device, cat);
  choice.count = static_cast<int>(a.integer("count", 1, 1, core::experiment::kMaxDeviceCount));
  choice.vcpus = static_cast<int>(a.integer("vcpus", 0, 1, core::experiment::kMaxVcpus));
  if (a.has("vcpus") && cat.at(choice.deviceId).kind != core::hw::DeviceKind::Cpu)
    throw Error("--vcpus: device '" + choice.deviceId + "' is not a scalable CPU");
  // A scalable CPU is one machine of --vcpus vCPUs: a count beside it would be dropped.
  if (a.has("vcpus") && choice.count > 1)
    throw Error("--count: a scalable CPU runs as one machine; give its size with --vcpus, not --count " +
                std::to_string(choice.count));
  train.batch = static_cast<int>(a.integer("batch", 0, 1, core::experiment::kMaxBatch));
  if (!a.has("batch")) throw Error("missing required option --batch");
  // --precision is the user's choice for the device; without it the run's fp32 follows the
  // one precision policy (core/experiment/sim_config.h), as in the app.
  if (a.has("precision")) choice.precision = parsePrecisionOption("--precision", a.str("precision", ""));
  const core::hw::StackCatalog stacks = loadSimStacks(err);
  choice.stackId = stackIdOption(a, stacks);
  const core::sim::SimConfig c = options.apply(core::experiment::simConfigFor(train, choice, cat.find(choice.deviceId), options.cost.energy));
  const core::sim::Simulator sim(cat, stacks);
  const core::sim::SimReport r = sim.simulate(c);
  // The simulator's held-out error for this stack on this device's generation (or, marked
  // uncalibrated, on other devices of its kind); absent when the shipped file is.
  const core::sim::ErrorBand band = shippedErrorBand(cat, c.modelId, r.config.stackId, c.deviceId, err);
  if (format == "text") {
    printText(r, out, a.flag("layers"));
    if (band.known()) out << "  error band      " << band.text() << "\n";
  } else {
    Json j = core::sim::simReportToJson(r, core::sim::JsonDigits::Six);
    if (band.known()) j.set("error_band", core::sim::errorBandToJson(band));
    out << j.dump(2) << "\n";
  }
  return 0;
}

int cmdSweep(const CommandArgs& args, std::ostream& out, std::ostream& err) {
  const Args a(args, {"help", "preemptible", "eval", "time"});
  a.allowOnly({"model", "dataset", "device", "count", "vcpus", "batch", "precision", "epochs", "preemptible",
               "usd-per-hour", "grid", "pue",
               "cpu-build", "eval", "steps-per-epoch", "time", "stack", "help", "memory-format", "data-dir", "limit"});
  const RunOptions options = runOptions(a, err);  // grid.json read once, not per model
  std::vector<core::experiment::TrainConfig> bases;
  if (a.str("model", "") == "all") {
    if (a.has("dataset")) throw Error("--dataset: not with --model all (each model runs on its own dataset)");
    for (const auto& m : core::nn::modelCatalog()) {
      core::experiment::TrainConfig t;
      t.epochs = options.epochs;
      t.limit = options.limit;
      t.modelId = m.id;
      t.datasetId = m.defaultDataset;
      bases.push_back(t);
    }
  } else {
    bases.push_back(baseTrain(a, options));
  }
  const auto deviceList = a.list("device", {});
  bool wantHost = false;
  for (const auto& d : deviceList) wantHost = wantHost || d == core::hw::kHostDeviceId;
  const core::hw::DeviceCatalog cat = loadSimCatalog(wantHost, err);
  std::vector<std::string> devices;
  if (deviceList.empty()) {
    for (const auto& d : cat.devices())
      if (!d.measured) devices.push_back(d.id);
  } else {
    for (const auto& d : deviceList) devices.push_back(deviceIdOption("--device", d, cat));
  }
  const auto batches = a.integerList("batch", {32, 64, 128, 256, 512, 1024}, 1, core::experiment::kMaxBatch);
  const auto counts = a.integerList("count", {1}, 1, core::experiment::kMaxDeviceCount);
  const auto vcpuList = a.integerList("vcpus", {0}, 1, core::experiment::kMaxVcpus);
  // Chosen precisions; none: the run's fp32 under the precision policy (a TPU runs bf16).
  std::vector<std::optional<core::util::Precision>> precisions;
  for (const auto& p : a.list("precision", {})) precisions.push_back(parsePrecisionOption("--precision", p));
  if (precisions.empty()) precisions.push_back(std::nullopt);
  const core::hw::StackCatalog stacks = loadSimStacks(err);
  std::vector<std::string> stackIds;
  for (const auto& id : a.list("stack", {""})) stackIds.push_back(id.empty() ? id : stackIdOption("--stack", id, stacks));
  const core::sim::Simulator sim(cat, stacks);
  const auto errors = shippedHeldOutErrors(cat, err);  // each row's error band
  double simSeconds = 0;
  std::size_t done = 0, skipped = 0;
  const std::clock_t cpu0 = std::clock();
  double cpuOutsideSims = 0;  // CPU time spent writing JSON, not simulating
  for (const auto& base : bases) {
    sim.workload(base.modelId, base.datasetId, base.dataDir);  // layer stats once per (model, dataset), cached
    for (const auto& device : devices) {
      const bool cpu = cat.at(device).kind == core::hw::DeviceKind::Cpu;
      for (auto vcpus : vcpuList) {
        if (!cpu && vcpus != 0) continue;  // vCPU lists apply to scalable CPUs only
        for (auto count : counts) {
          if (vcpus != 0 && count > 1) continue;  // a scalable CPU is one machine of `vcpus`
          for (auto p : precisions)
            for (const auto& stackId : stackIds)
            for (auto b : batches) {
              core::experiment::TrainConfig train = base;
              train.batch = static_cast<int>(b);
              core::experiment::DeviceChoice choice = choiceWith(options);
              choice.stackId = stackId;
              choice.deviceId = device;
              choice.vcpus = static_cast<int>(vcpus);
              choice.count = static_cast<int>(count);
              choice.precision = p;
              core::sim::SimConfig c =
                  options.apply(core::experiment::simConfigFor(train, choice, cat.find(device), options.cost.energy));
              c.perLayer = false;
              try {
                const auto t0 = std::chrono::steady_clock::now();
                const core::sim::SimReport r = sim.simulate(c);
                simSeconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
                ++done;
                const std::clock_t w0 = std::clock();
                core::util::Json j = core::sim::simReportToJson(r, core::sim::JsonDigits::Six);
                if (errors)
                  if (const auto band = core::sim::errorBandFor(*errors, c.modelId, r.config.stackId, cat.at(device)); band.known())
                    j.set("error_band", core::sim::errorBandToJson(band));
                out << j.dump() << "\n";
                cpuOutsideSims += static_cast<double>(std::clock() - w0) / CLOCKS_PER_SEC;
              } catch (const Error& e) {
                ++skipped;
                err << "accellab-cli sweep: skipped " << c.modelId << " on " << device << " count " << count << " batch "
                    << b << ": " << cliMessage(e) << "\n";
              }
            }
        }
      }
    }
  }
  if (a.flag("time")) {
    const double cpuSims = static_cast<double>(std::clock() - cpu0) / CLOCKS_PER_SEC - cpuOutsideSims;
    err << "accellab-cli sweep: " << done << " configurations simulated in " << fmt(simSeconds * 1e3, 4)
        << " ms wall, " << fmt(cpuSims * 1e3, 4) << " ms CPU (" << fmt(simSeconds / std::max<std::size_t>(1, done) * 1e6, 3)
        << " us each); " << skipped << " skipped\n";
  }
  return 0;
}

int cmdStacks(const CommandArgs& args, std::ostream& out, std::ostream& err) {
  const Args a(args);
  a.allowOnly({"format", "help"});
  const std::string format = a.str("format", "text");
  if (format != "json" && format != "text") throw Error("--format: '" + format + "' is not one of text, json");
  const core::hw::StackCatalog stacks = loadSimStacks(err);
  if (format == "json") {
    Json list = Json::array();
    for (const auto& s : stacks.stacks()) list.push(core::hw::stackToJson(s));
    out << list.dump(2) << "\n";
    return 0;
  }
  for (const auto& s : stacks.stacks()) {
    std::string defaults;
    for (auto k : s.defaultFor) defaults += std::string(defaults.empty() ? "" : ", ") + core::hw::deviceKindName(k);
    out << s.id << "  " << s.name << (s.era.empty() ? "" : " [" + s.era + "]")
        << (defaults.empty() ? "" : "  (default for " + defaults + ")") << "\n    " << s.description << "\n";
  }
  return 0;
}

int cmdDevices(const CommandArgs& args, std::ostream& out, std::ostream& err) {
  const Args a(args, {"help", "host", "remeasure"});
  a.allowOnly({"format", "host", "remeasure", "help"});
  if (a.flag("remeasure") && !a.flag("host")) throw Error("--remeasure: only with --host");
  const std::string format = a.str("format", "text");
  if (format != "json" && format != "text") throw Error("--format: '" + format + "' is not one of text, json");
  const core::hw::DeviceCatalog cat = loadSimCatalog(a.flag("host"), err, a.flag("remeasure"));
  if (format == "json") {
    Json list = Json::array();
    for (const auto& d : cat.devices()) list.push(deviceJson(d));
    out << list.dump(2) << "\n";
    return 0;
  }
  auto peak = [](const std::optional<double>& v) { return v ? fmt(*v, 4) : std::string("-"); };
  out << std::left << std::setw(14) << "id" << std::setw(5) << "kind" << std::right << std::setw(8) << "fp32"
      << std::setw(8) << "tf32" << std::setw(8) << "fp16" << std::setw(8) << "bf16" << std::setw(8) << "fp8" << std::setw(8) << "fp4" << std::setw(8) << "GiB"
      << std::setw(8) << "GB/s" << std::setw(9) << "$/h" << "  name\n";
  for (const auto& d : cat.devices()) {
    out << std::left << std::setw(14) << d.id << std::setw(5) << core::hw::deviceKindName(d.kind) << std::right
        << std::setw(8) << peak(d.peakTflopsFp32) << std::setw(8) << peak(d.peakTflopsTf32) << std::setw(8)
        << peak(d.peakTflopsFp16) << std::setw(8) << peak(d.peakTflopsBf16) << std::setw(8) << peak(d.peakTflopsFp8)
        << std::setw(8) << peak(d.peakTflopsFp4) << std::setw(8) << fmt(d.memGib, 4)
        << std::setw(8) << fmt(d.memBandwidthGBps, 4) << std::setw(9) << (d.usdPerHourOnDemand ? fmt(*d.usdPerHourOnDemand, 4) : std::string("none")) << "  " << d.name
        << (d.kind == core::hw::DeviceKind::Cpu ? " [per vCPU]" : "")
        << (d.usdPerHourOnDemand ? std::string() : " [" + core::sim::noPriceText(d.priceDate) + "]") << "\n";
  }
  return 0;
}

}  // namespace app::cli
