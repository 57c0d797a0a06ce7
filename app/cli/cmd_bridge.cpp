// The bridge to real hardware: export-script (a PyTorch job for any scenario), import-run (what
// it measured, beside the simulator's prediction) and calibrate (a device fitted on your runs).
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <ostream>
#include <sstream>

#include "app/cli/args.h"
#include "app/cli/commands.h"
#include "app/cli/engine_options.h"
#include "app/cli/sim_options.h"
#include "core/experiment/limits.h"
#include "core/bridge/device_calibration.h"
#include "core/bridge/job_plan.h"
#include "core/bridge/run_log.h"
#include "core/bridge/run_prediction.h"
#include "core/bridge/torch_export.h"
#include "core/data/dataset_info.h"
#include "core/hw/device_spec.h"
#include "core/nn/graph_model_file.h"
#include "core/nn/onnx_model.h"
#include "core/nn/transformer_spec.h"
#include "core/nn/zoo.h"
#include "core/sim/validation.h"
#include "core/util/error.h"
#include "core/util/files.h"
#include "core/util/json.h"

namespace app::cli {

using core::util::Error;
using core::util::Json;

const char* const kExportScriptUsage =
    "Usage: accellab-cli export-script --model M [--dataset D] [--batch B] [--precision P]\n"
    "                                  [--device X --count N] [--epochs E] [--optimizer adam|sgd] [--lr R]\n"
    "                                  [--seed S] [--limit N] [--steps N] --out DIR [--force]\n\n"
    "Writes DIR/train.py, a self-contained PyTorch training job for the experiment (the model\n"
    "built layer for layer from AccelLab's definition, the same data, optimizer and seed), and\n"
    "DIR/README.md saying how to run it on a cloud GPU and bring its log back. It needs only\n"
    "`pip install torch` there. With --count N > 1 the job runs under torchrun with DDP, or FSDP\n"
    "when the simulator says the model does not fit one device. --steps sets a language model's\n"
    "optimizer updates (char-gpt: 2000, the peer's protocol). A DIR that already holds train.py or\n"
    "README.md is refused unless --force (then both are replaced).\n\n"
    "Any transformer (a built-in id such as gpt2-small or llama3-8b, a model file or a Hugging Face\n"
    "config.json) exports too, built from AccelLab's description of it, trained on synthetic tokens\n"
    "(--dataset synthetic, the default) or a text's bytes (--dataset fortunes), with the options\n"
    "simulate takes:\n"
    "  --seq-len T        tokens per sequence (default: the model's own)\n"
    "  --parallel PLAN    dp=2,zero=1,recompute=selective,microbatch=2 (default: with --device, the\n"
    "                     simulator's fastest plan a plain PyTorch job runs: data parallel, ZeRO-1,\n"
    "                     FSDP, recomputation, micro-batches; no tp, pp or ep)\n"
    "  --finetune MODE    full (default) or lora (--lora-rank R, default 16: adapters on q,k,v,o)\n"
    "  --stack ID         pytorch-eager or pytorch-compile (torch.compile); default: the device's\n"
    "The job runs under `torchrun --standalone --nproc_per_node N train.py` and logs the plan it ran.\n\n"
    "  accellab-cli export-script --model resnet20 --dataset cifar10 --batch 128 --device a100 --out job/\n"
    "  python3 job/train.py --steps 50 --log run.jsonl && accellab-cli import-run run.jsonl\n"
    "  accellab-cli export-script --model gpt2-small --batch 4 --seq-len 128 --device h100 --count 2 --out gpt/\n"
    "  torchrun --standalone --nproc_per_node 2 gpt/train.py --steps 20 --log run.jsonl\n";

const char* const kImportRunUsage =
    "Usage: accellab-cli import-run FILE [--device ID] [--stack ID] [--model FILE.onnx] [--format text|json]\n\n"
    "Reads the JSON-lines log of an exported job (train.py --log FILE) and prints the measured\n"
    "steady-state step time and throughput (the median over the steps after warm-up), the\n"
    "simulator's prediction for the same configuration on the device it ran on, and the error:\n"
    "simulated throughput / measured - 1, said in words (\"AccelLab predicted 31% slower than\n"
    "measured\"). A transformer job's log adds its plan, measured tokens/s, MFU and peak memory beside\n"
    "the prediction for the same plan. The device is matched from the name PyTorch reported (`host`\n"
    "for this machine's CPU), never taken from the device the job was exported for; --device names\n"
    "it when the match is wrong or missing, and the output says where it ran. The steady-state\n"
    "window is printed with its spread; a noisy log (two kinds of step) is flagged. A reference CSV (the format of\n"
    "resources/calibration/calibration.csv) is accepted too: its published figures are set beside\n"
    "the predictions, row by row, as `validate` does. Bad logs are refused with the line and\n"
    "field named. A job exported for a model from a file (export-script --model net.onnx or a\n"
    "layer-graph my.json) is read with that file: --model net.onnx. In the GUI: File > Import measured run (the run joins the\n"
    "runs list).\n";

const char* const kCalibrateUsage =
    "Usage: accellab-cli calibrate --device-base X --runs a.jsonl [b.jsonl ...] --out mydevice.json\n"
    "                              [--force] [--id ID] [--name NAME] [--fit FIGURES] [--stack ID]\n"
    "                              [--format text|json]\n\n"
    "Fits the software/efficiency figures of a device on your own measured runs (logs of exported\n"
    "jobs) and writes a device file: device X's datasheet figures plus the fitted ones, each\n"
    "sourced \"fitted on your runs <date>\" (X = host: this machine's measured figures, for\n"
    "PyTorch runs here). Drop it into ~/.local/share/accellab/devices/ to\n"
    "simulate with it. --fit lists the figures to fit (default: as many as the runs can pin, in\n"
    "the order gemm_efficiency, gemm_efficiency_fp32 (CNN/MLP runs), matmul_efficiency,\n"
    "matmul_efficiency_fp32 (transformer runs), step_overhead_seconds, mem_efficiency,\n"
    "kernel_launch_seconds); a transformer job's run is simulated with the plan and the stack\n"
    "(eager or torch.compile) its log records, and eager and compiled runs are fitted apart;\n"
    "it refuses more figures than the runs can pin, and says why. Prints the fit error and, with\n"
    "4 runs or more, the leave-one-out error. An existing --out file is refused unless --force; the\n"
    "out file is never one of the runs or the base device's file, --force or not. A run that ran on\n"
    "another catalog device than X is refused, naming both, unless --other-device (you are fitting\n"
    "X's datasheet to a device the catalog lacks); the same run given twice counts once; a noisy\n"
    "run (two kinds of step, or a wide spread) is named.\n";

namespace {

std::string pct(double fraction) {
  std::ostringstream s;
  s << std::showpos;
  if (std::abs(fraction) < 1e12) s << std::fixed << std::setprecision(1) << fraction * 100 << "%";
  else s << std::setprecision(3) << fraction * 100 << "%";  // a power of ten, not 300 digits
  return s.str();
}

using core::bridge::shellQuoted;

// The output of export-script, either kind of job.
void printExport(const core::bridge::ExportRequest& r, const core::bridge::ExportedJob& job, const std::string& py,
                 const std::string& dir, const std::string& format, std::ostream& out) {
  const std::string run = core::bridge::launchCommand(r.count, py) + " --steps 50 --log run.jsonl";
  if (format == "json") {
    Json j = Json::object();
    j.set("train_py", py);
    j.set("readme", (std::filesystem::path(dir) / "README.md").string());
    j.set("model", job.modelId);
    j.set("params", static_cast<double>(job.params));
    if (r.llm) j.set("total_params", static_cast<double>(job.totalParams));
    j.set("unit", job.unit);
    if (r.llm) {
      j.set("parallel", r.llm->plan.text());
      j.set("plan_reason", r.llm->planReason);
      j.set("stack", r.llm->stackId);
      j.set("compile", r.llm->compile);
    } else {
      j.set("strategy", r.count > 1 ? r.strategy : "single");
      if (!r.strategyReason.empty()) j.set("strategy_reason", r.strategyReason);
    }
    j.set("run", run);
    out << j.dump(2) << "\n";
    return;
  }
  out << "wrote " << py << " and README.md (" << job.modelId << ", " << withThousands(job.params)
      << " trainable parameters)\n";
  if (r.llm) out << "plan:    " << r.llm->plan.text() << " (" << r.llm->planReason << ")\nstack:   " << r.llm->stackId
                 << (r.llm->compile ? " (torch.compile)" : " (eager)") << "\n";
  else if (r.count > 1) out << "multi-device: torchrun --nproc_per_node=" << r.count << " train.py (" << r.strategy << ": " << r.strategyReason << ")\n";
  out << "run it:  " << run << "\nthen:    accellab-cli import-run run.jsonl\n";
}

// export-script for a transformer AccelLab describes: the options simulate takes.
int exportTransformer(const Args& a, const std::string& format, std::ostream& out, std::ostream& err) {
  core::sim::SimConfig c = llmConfigOptions(a, err);  // model, seq-len, precision, finetune, parallel
  c.batch = static_cast<int>(a.integer("batch", 8, 1, core::experiment::kMaxBatch));
  c.count = static_cast<int>(a.integer("count", 1, 1, core::experiment::kMaxDeviceCount));
  for (const char* engineOnly : {"epochs", "optimizer", "lr", "momentum", "limit"})
    if (a.has(engineOnly))
      throw Error(std::string("--") + engineOnly + ": a transformer's job trains with AdamW and the LM schedule (--steps)");
  const core::hw::StackCatalog stacks = loadSimStacks(err);
  c.stackId = stackIdOption(a, stacks);
  const std::string dir = a.required("out");
  const core::hw::DeviceCatalog cat = loadSimCatalog(false, err);
  c.deviceId = a.has("device") ? deviceIdOption("--device", a.str("device", ""), cat) : std::string();
  core::bridge::ExportRequest r = core::bridge::transformerExportRequest(c);
  r.train.datasetId = a.str("dataset", r.train.datasetId);
  r.train.seed = static_cast<std::uint64_t>(a.integer("seed", 0, 0, static_cast<std::int64_t>(core::experiment::kMaxSeed)));
  r.lmSteps = static_cast<int>(a.integer("steps", r.lmSteps, 1, core::experiment::kMaxLmSteps));
  r.lmEvalEvery = static_cast<int>(a.integer("eval-every", r.lmSteps, 1, core::experiment::kMaxLmSteps));
  core::bridge::chooseLlmPlan(r, cat, stacks);
  const core::bridge::ExportedJob job = core::bridge::exportTorchJob(r);
  for (const auto& f : core::bridge::torchJobFiles(dir)) core::util::checkOutputPath(f, {}, a.flag("force"), kForceFlag);
  printExport(r, job, core::bridge::writeTorchJob(job, dir), dir, format, out);
  return 0;
}

}  // namespace

int cmdExportScript(const CommandArgs& args, std::ostream& out, std::ostream& err) {
  const Args a(args, {"help", "force"});
  a.allowOnly({"model", "dataset", "batch", "precision", "device", "count", "epochs", "optimizer", "lr", "momentum",
               "seed", "limit", "steps", "eval-every", "out", "force", "format", "help", "seq-len", "parallel", "finetune",
               "lora-rank", "stack"});
  const std::string format = formatOption(a, {"text", "json"});
  core::bridge::ExportRequest r;
  const std::string model = a.required("model");
  if (!core::nn::findModel(model) && !core::nn::isOnnxPath(model) && !core::nn::isGraphModelPath(model))
    return exportTransformer(a, format, out, err);
  for (const char* llmOnly : {"seq-len", "parallel", "finetune", "lora-rank", "stack"})
    if (a.has(llmOnly))
      throw Error(std::string("--") + llmOnly + ": for a transformer AccelLab describes (gpt2-small, llama3-8b, a config.json); " +
                  model + " is one of the engine's models");
  r.train.modelId = modelOption(a);
  r.train.datasetId = a.str("dataset", core::nn::modelInfo(r.train.modelId).defaultDataset);
  try {
    core::data::datasetInfo(r.train.datasetId);
  } catch (const Error& e) {
    throw Error(std::string("--dataset: ") + e.what());
  }
  r.train.batch = static_cast<int>(a.integer("batch", r.train.modelId == "char-gpt" ? 32 : 128, 1, core::experiment::kMaxBatch));
  r.train.precision = precisionOption(a);
  r.train.epochs = static_cast<int>(a.integer("epochs", 1, 1, core::experiment::kMaxEpochs));
  r.train.optimizer = optimizerOption(a, core::train::OptimizerKind::Adam);
  r.train.learningRate = a.real("lr", r.train.optimizer == core::train::OptimizerKind::SGD ? 0.01 : 1e-3, 1e-12, 100);
  r.train.momentum = a.real("momentum", 0.9, 0, 1);
  r.train.seed = static_cast<std::uint64_t>(a.integer("seed", 0, 0, static_cast<std::int64_t>(core::experiment::kMaxSeed)));
  r.train.limit = a.integer("limit", 0, 0, core::experiment::kMaxSamples);
  r.lmSteps = static_cast<int>(a.integer("steps", 2000, 1, core::experiment::kMaxLmSteps));
  r.lmEvalEvery = static_cast<int>(a.integer("eval-every", 250, 1, core::experiment::kMaxLmSteps));
  r.count = static_cast<int>(a.integer("count", 1, 1, core::experiment::kMaxDeviceCount));
  const std::string dir = a.required("out");
  if (a.has("device")) {
    const core::hw::DeviceCatalog cat = loadSimCatalog(false, err);
    r.deviceId = deviceIdOption("--device", a.str("device", ""), cat);
    const core::hw::StackCatalog stacks = loadSimStacks(err);
    core::bridge::chooseStrategy(r, cat, stacks);
  } else if (r.count > 1) {
    throw Error("--count: name the device too (--device), so the simulator can say whether the model fits one");
  }
  const core::bridge::ExportedJob job = core::bridge::exportTorchJob(r);
  for (const auto& f : core::bridge::torchJobFiles(dir)) core::util::checkOutputPath(f, {}, a.flag("force"), kForceFlag);
  printExport(r, job, core::bridge::writeTorchJob(job, dir), dir, format, out);
  return 0;
}

int cmdImportRun(const CommandArgs& args, std::ostream& out, std::ostream& err) {
  const Args a(args);
  a.allowOnly({"device", "stack", "model", "format", "help"});
  const std::string format = formatOption(a, {"text", "json"});
  if (a.positional().size() != 1) throw Error("import-run takes one file (a run log .jsonl or a reference .csv)");
  if (a.has("model")) modelOption(a);  // a model from a file (an ONNX graph) joins the zoo first
  const std::string path = a.positional().front();
  // A run log or a reference CSV: the larger cap of the two.
  const std::string text = core::util::readFile(path, core::util::kMaxRunLogBytes);
  if (!core::bridge::looksLikeRunLog(text) && path.size() > 4 && path.substr(path.size() - 4) == ".csv") {
    CommandArgs v = {"--reference", path, "--format", format};
    if (a.has("stack")) v.insert(v.end(), {"--stack", a.str("stack", "")});
    return cmdValidate(v, out, err);
  }
  const core::bridge::RunLog log = [&] {
    try {
      return core::bridge::parseRunLog(text, path);
    } catch (const Error& e) {
      const std::string what = e.what();
      if (!a.has("model") && what.find("unknown model") != std::string::npos)
        throw Error(what + "; if the job trained a model from a file, give the file as well (--model path/to/model.onnx "
                           "or my.json)");
      throw;
    }
  }();
  const core::bridge::SteadyState ss = core::bridge::steadyState(log);
  const core::hw::DeviceCatalog cat = loadSimCatalog(log.deviceType == "cpu" || a.str("device", "") == core::hw::kHostDeviceId, err);
  const core::hw::StackCatalog stacks = loadSimStacks(err);
  const std::string deviceId =
      a.has("device") ? deviceIdOption("--device", a.str("device", ""), cat) : core::bridge::matchDevice(cat, log);
  // Judged where it ran unless the user names the device; then the output says which is which.
  const std::string mismatch = a.has("device") ? core::bridge::deviceMismatch(cat, log, deviceId) : std::string();
  const std::string noise = core::bridge::noiseWarning(ss);
  const std::string stackId = stackIdOption(a, stacks);
  const core::bridge::RunPrediction p = core::bridge::predictRun(cat, stacks, log, deviceId, stackId);
  // A transformer job's measured MFU: the simulator's FLOPs and peak at the measured throughput.
  const bool llmPrediction = log.plan && p.known && p.report.llm;
  const double measuredMfu = llmPrediction ? p.report.utilization * ss.perSecond / p.perSecond : 0;

  if (format == "json") {
    Json j = Json::object();
    j.set("file", path);
    j.set("model", log.model);
    j.set("dataset", log.dataset);
    j.set("batch", log.batch);
    j.set("precision", log.precision);
    j.set("unit", log.unit);
    j.set("device_name", log.deviceName);
    j.set("device_count", log.deviceCount);
    j.set("torch", log.torchVersion);
    Json m = Json::object();
    m.set("step_seconds", ss.stepSeconds);
    m.set("per_second", ss.perSecond);
    m.set("steps", ss.steps);
    m.set("first_step", ss.firstStep);
    m.set("last_step", ss.lastStep);
    m.set("spread", ss.spread);
    m.set("warmup_only", ss.warmupOnly);
    if (!noise.empty()) m.set("noisy", noise);
    if (log.finished) m.set("peak_memory_bytes", log.peakMemoryBytes);
    if (log.unit == "tokens") m.set("tokens_per_second", ss.perSecond);
    if (llmPrediction) m.set("mfu", measuredMfu);
    m.set("measured", true);
    j.set("measured", m);
    if (log.plan) {
      j.set("parallel", log.plan->text());
      j.set("finetune", core::sim::finetuneName(log.finetune));
      j.set("compiled", log.compiled);
      j.set("seq_len", log.seqLen);
    }
    Json pr = Json::object();
    pr.set("device", p.deviceId);
    if (p.known) {
      pr.set("device_name", p.deviceName);
      pr.set("stack", p.stackId);
      pr.set("step_seconds", p.stepSeconds);
      pr.set("per_second", p.perSecond);
      pr.set("fits_in_memory", p.fitsInMemory);
      if (p.report.llm) {
        pr.set("tokens_per_second", p.report.llm->tokensPerSecond);
        pr.set("mfu", p.report.utilization);
        pr.set("memory_bytes_per_device", p.report.memoryBytesPerDevice);
      }
      pr.set("simulated", true);
      j.set("error", std::round(p.error * 10000) / 10000);
      j.set("error_basis", "simulated throughput / measured throughput - 1");
      j.set("error_words", core::bridge::errorInWords(p.error));
    } else {
      pr.set("why_none", p.why);
    }
    j.set("predicted", pr);
    if (!mismatch.empty()) j.set("device_note", mismatch + "; judged on " + deviceId + " as --device asks");
    j.set("finished", log.finished);
    out << j.dump(2) << "\n";
    return 0;
  }
  out << log.model << " on " << log.dataset << ", batch " << log.batch << ", " << log.precision << ", "
      << log.deviceCount << "x " << log.deviceName << " (PyTorch " << log.torchVersion << ")\n"
      << "  measured   " << fmt(ss.stepSeconds * 1e3, 4) << " ms/step, " << fmt(ss.perSecond, 4) << " " << log.unit
      << "/s (median of " << ss.steps << (ss.warmupOnly ? " steps, all warm-up" : " steps after warm-up") << ", steps "
      << ss.firstStep << "-" << ss.lastStep << ")\n";
  if (!noise.empty()) out << "  noisy      " << noise << "\n";
  if (!mismatch.empty()) out << "  device     " << mismatch << "; judged on " << deviceId << " as --device asks\n";
  if (log.plan)
    out << "  plan       " << log.plan->text() << ", " << core::sim::finetuneName(log.finetune) << ", "
        << (log.compiled ? "torch.compile" : "eager") << ", " << log.seqLen << " tokens a sequence\n";
  if (p.known) {
    out << "  simulated  " << fmt(p.stepSeconds * 1e3, 4) << " ms/step, " << fmt(p.perSecond, 4) << " " << log.unit
        << "/s on " << p.deviceId << " under " << p.stackId << (p.fitsInMemory ? "" : " (predicted: does NOT fit in memory)")
        << "\n  error      " << pct(p.error) << ": " << core::bridge::errorInWords(p.error)
        << " (simulated / measured throughput - 1)\n";
    if (llmPrediction)
      out << "  MFU        measured " << fmt(100 * measuredMfu, 3) << "%, simulated "
          << fmt(100 * p.report.utilization, 3) << "%\n"
          << "  memory     " << (log.finished ? "measured " + fmt(log.peakMemoryBytes / 1073741824.0, 3) + " GiB peak (" +
                                                    log.memoryKind + "), "
                                              : std::string())
          << "simulated " << fmt(p.report.memoryBytesPerDevice / 1073741824.0, 3) << " GiB per device\n";
  } else {
    out << "  simulated  none: " << p.why << "\n";
  }
  if (!log.finished) out << "  note       the log has no end record: the run was cut off\n";
  return 0;
}

int cmdCalibrate(const CommandArgs& args, std::ostream& out, std::ostream& err) {
  const Args a(args, {"help", "force", "other-device"});
  a.allowOnly({"device-base", "runs", "out", "force", "id", "name", "fit", "stack", "format", "help", "other-device"});
  const std::string format = formatOption(a, {"text", "json"});
  // --runs a.jsonl b.jsonl ... (the files after the first arrive as positional arguments) or a,b.
  std::vector<std::string> files = a.list("runs", {});
  if (files.empty()) throw Error("--runs: name one or more run logs (train.py --log FILE)");
  for (const auto& p : a.positional()) files.push_back(p);
  // Refused before any work: an existing --out (without --force) or one of the inputs.
  const std::string outPath = a.required("out");
  core::util::checkOutputPath(outPath, files, a.flag("force"), kForceFlag);
  std::vector<core::bridge::RunLog> runs;
  for (const auto& f : files) runs.push_back(core::bridge::readRunLog(f));
  const core::hw::DeviceCatalog cat = loadSimCatalog(a.str("device-base", "") == core::hw::kHostDeviceId, err);
  const core::hw::StackCatalog stacks = loadSimStacks(err);
  core::bridge::CalibrationRequest req;
  req.base = cat.at(deviceIdOption("--device-base", a.required("device-base"), cat));
  req.stackId = stackIdOption(a, stacks);
  req.figures = a.list("fit", {});
  req.otherDevice = a.flag("other-device");
  if (!req.base.filePath.empty()) core::util::checkOutputPath(outPath, {req.base.filePath}, a.flag("force"), kForceFlag);
  req.id = a.str("id", std::filesystem::path(outPath).stem().string());
  req.name = a.str("name", req.base.name + " (calibrated on your runs)");
  const core::bridge::CalibrationResult r = core::bridge::calibrateDevice(req, runs, cat, stacks);
  const std::string file = core::bridge::calibratedDeviceJson(r).dump(2) + "\n";
  core::hw::parseDeviceJson(file, outPath);  // the file must load as it is written (id = file name, ...)
  core::util::writeFileAtomic(outPath, file);
  if (format == "json") {
    Json j = core::bridge::calibrationReportJson(r);
    j.set("out", outPath);
    out << j.dump(2) << "\n";
    return 0;
  }
  out << "calibrated " << r.device.id << " from " << req.base.id << " on " << r.runs.size() << " run(s) under "
      << r.stackId << "\n";
  for (const auto& f : r.figures)
    out << "  " << std::left << std::setw(24) << f.key << std::right << fmt(f.value, 4) << "  (was " << fmt(f.start, 4)
        << ")\n";
  for (const auto& d : r.duplicates) out << "  duplicate       " << d << "\n";
  for (const auto& n : r.noisy) out << "  noisy           " << n << "\n";
  out << "  fit error       median " << fmt(r.fitMedianAbsPct, 3) << "%, worst " << fmt(r.fitMaxAbsPct, 3) << "%\n";
  if (r.leaveOneOutMedianAbsPct)
    out << "  leave-one-out   median " << fmt(*r.leaveOneOutMedianAbsPct, 3) << "% (" << r.runs.size() << " fits, each predicting the run it left out)\n";
  else
    out << "  leave-one-out   needs 4 runs or more\n";
  out << "wrote " << outPath << "\n";
  return 0;
}

}  // namespace app::cli
