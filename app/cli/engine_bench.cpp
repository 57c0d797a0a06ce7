// accellab-cli bench: steady-state training throughput of a zoo model on this CPU.
#include <cmath>
#include <iomanip>
#include <ostream>
#include <sstream>

#include "app/cli/args.h"
#include "app/cli/commands.h"
#include "app/cli/engine_options.h"
#include "core/experiment/limits.h"
#include "core/nn/gemm.h"
#include "core/train/benchmark.h"
#include "core/train/optimizer.h"
#include "core/util/error.h"
#include "core/util/json.h"

namespace app::cli {

using core::util::Error;
using core::util::Json;

const char* const kBenchUsage =
    "Usage: accellab-cli bench --model M [--batch B] [--threads T] [--steps K] [--warmup W] [options]\n"
    "\n"
    "Measures steady-state training throughput on this CPU the way the PyTorch peer\n"
    "(shared/bench/torch_baseline.py) does: a fresh model, W warm-up steps discarded, then K\n"
    "timed steps (forward + backward + optimizer update). Batches are real shuffled samples of\n"
    "the model's dataset when its files are installed (fashion-mnist for mlp, lenet5,\n"
    "mnist-cnn, colab-cnn), else synthetic batches of the same shape; \"data\" says which.\n"
    "\n"
    "Options:\n"
    "  --model M        zoo id (see `accellab-cli models`), a layer-graph model file or an ONNX\n"
    "                   graph, required\n"
    "  --batch B        samples per step (default 128)\n"
    "  --threads T      worker threads (default 0 = all cores)\n"
    "  --steps K        timed steps (default 50)\n"
    "  --warmup W       discarded steps before timing (default 10)\n"
    "  --optimizer O    adam or sgd (default: the peer's: sgd momentum 0.9 for mlp, else adam)\n"
    "  --lr R           learning rate (default 0.01 for sgd, 0.001 for adam)\n"
    "  --seed S         seed (default 0)\n"
    "  --precision P    fp32 (default), tf32, bf16, fp16\n"
    "  --data-dir DIR   folder of the model's dataset files\n"
    "  --format F       json (default) or text\n"
    "\n"
    "JSON fields: images_per_second (timed steps over their total wall time, batch gathering\n"
    "included), images_per_second_median_step (batch / median step time), step_ms_median/p10/p90,\n"
    "gflop_per_image (forward + backward FLOPs from the model's layer stats), gflops (achieved:\n"
    "gflop_per_image x images_per_second), gflops_median_step, params, peak_rss_bytes, data,\n"
    "isa (the GEMM kernels chosen at run time: amx, avx512-bf16, avx512, avx2 or portable; the environment\n"
    "variable ACCELLAB_GEMM_ISA=NAME runs a lower one), build_isa, gemm_path (in words), bf16_on_hardware,\n"
    "fma_peak (this machine's measured multiply-add peak with the same threads, fp32_gflops and bf16_gflops,\n"
    "null where bf16 is emulated), peak_fraction (gflops over the peak of the path that ran).\n"
    "\n"
    "Example:\n"
    "  accellab-cli bench --model lenet5 --batch 64 --threads 2 --steps 100 --warmup 20 --format json\n";

namespace {

double rounded(double v, int decimals) {
  const double f = std::pow(10.0, decimals);
  return std::round(v * f) / f;
}

// The vector ISA this binary was compiled for (the build decides the speed: say which).
const char* compiledIsa() {
#if defined(__AVX512F__)
  return "avx512";
#elif defined(__AVX2__) && defined(__FMA__)
  return "avx2+fma";
#elif defined(__AVX__)
  return "avx";
#else
  return "sse2";
#endif
}

}  // namespace

int cmdBench(const CommandArgs& args, std::ostream& out, std::ostream&) {
  const Args a(args);
  a.allowOnly({"model", "batch", "threads", "steps", "warmup", "optimizer", "lr", "seed", "precision", "data-dir",
               "format", "help"});
  const std::string format = formatOption(a, {"json", "text"});
  core::train::BenchConfig c;
  c.modelId = modelOption(a);
  c.batch = static_cast<int>(a.integer("batch", 128, 1, core::experiment::kMaxBatch));
  c.threads = static_cast<int>(a.integer("threads", 0, 0, core::experiment::kMaxThreads));
  c.steps = static_cast<int>(a.integer("steps", 50, 1, 1000000));
  c.warmup = static_cast<int>(a.integer("warmup", 10, 0, 1000000));
  if (a.has("optimizer")) c.optimizer = optimizerOption(a, core::train::OptimizerKind::Adam);
  if (a.has("lr")) {
    c.learningRate = a.real("lr", 0, 0);
    if (*c.learningRate <= 0) throw Error("--lr: must be positive, got " + a.str("lr", ""));
  }
  c.seed = static_cast<std::uint64_t>(a.integer("seed", 0, 0, static_cast<std::int64_t>(core::experiment::kMaxSeed)));
  c.precision = precisionOption(a);
  c.dataDir = a.str("data-dir", "");

  const core::train::BenchResult r = core::train::runBenchmark(c);
  if (format == "text") {
    std::ostringstream os;
    os << std::fixed << std::setprecision(1) << r.modelId << " batch " << r.batch << ", " << r.threads
       << " thread(s), " << r.steps << " timed steps after " << r.warmup << " warm-up, data " << r.data << "\n"
       << "  " << r.imagesPerSecond << " images/s (" << r.imagesPerSecondMedianStep << " from the median step of "
       << std::setprecision(3) << r.stepSecondsMedian * 1e3 << " ms)\n"
       << std::setprecision(1) << "  " << r.gflops << " GFLOP/s achieved, " << std::setprecision(4)
       << r.trainFlopsPerImage / 1e9 << " GFLOP per image (forward + backward), " << withThousands(r.params)
       << " params, peak RSS " << std::setprecision(0) << static_cast<double>(r.peakRssBytes) / (1 << 20) << " MiB\n";
    os << "  GEMMs: " << r.gemmPath << "\n  this machine's measured peak with " << r.peak.threads << " thread(s): "
       << withThousands(static_cast<long long>(std::llround(r.peak.fp32Gflops))) << " GFLOP/s fp32";
    if (r.peak.bf16Gflops > 0)
      os << ", " << withThousands(static_cast<long long>(std::llround(r.peak.bf16Gflops))) << " bf16";
    os << "; this run reached " << std::setprecision(0) << 100 * r.peakFraction << "% of the "
       << (r.bf16OnHardware ? "bf16" : "fp32") << " peak\n";
    if (!r.dataNote.empty()) os << "  note: " << r.dataNote << "\n";
    out << os.str();
    return 0;
  }
  Json j = Json::object();
  j.set("model", r.modelId);
  j.set("batch", r.batch);
  j.set("threads", r.threads);
  j.set("precision", core::util::precisionName(c.precision));
  j.set("optimizer", core::train::optimizerName(r.optimizer));
  j.set("learning_rate", r.learningRate);
  j.set("data", r.data);
  if (!r.dataNote.empty()) j.set("data_note", r.dataNote);
  Json shape = Json::array();
  shape.push(r.inputShape.c);
  shape.push(r.inputShape.h);
  shape.push(r.inputShape.w);
  j.set("input_shape", shape);
  j.set("warmup_steps", r.warmup);
  j.set("steps", r.steps);
  j.set("wall_seconds", rounded(r.wallSeconds, 4));
  j.set("images_per_second", rounded(r.imagesPerSecond, 1));
  j.set("images_per_second_median_step", rounded(r.imagesPerSecondMedianStep, 1));
  if (r.tokensPerSample > 0) {  // a language model: images are sequences
    j.set("sequences_per_second", rounded(r.imagesPerSecond, 1));
    j.set("tokens_per_second", rounded(r.imagesPerSecond * r.tokensPerSample, 1));
    j.set("tokens_per_second_median_step", rounded(r.imagesPerSecondMedianStep * r.tokensPerSample, 1));
  }
  j.set("step_ms_median", rounded(r.stepSecondsMedian * 1e3, 3));
  j.set("step_ms_p10", rounded(r.stepSecondsP10 * 1e3, 3));
  j.set("step_ms_p90", rounded(r.stepSecondsP90 * 1e3, 3));
  j.set("forward_gflop_per_image", rounded(r.forwardFlopsPerImage / 1e9, 6));
  j.set("gflop_per_image", rounded(r.trainFlopsPerImage / 1e9, 6));
  j.set("gflops", rounded(r.gflops, 2));
  j.set("gflops_median_step", rounded(r.gflopsMedianStep, 2));
  j.set("params", static_cast<long long>(r.params));
  j.set("final_loss", rounded(r.finalLoss, 6));
  j.set("peak_rss_bytes", static_cast<long long>(r.peakRssBytes));
  j.set("isa", core::nn::gemmIsaName(core::nn::gemmIsa()));  // the kernels that ran (chosen at run time)
  j.set("build_isa", compiledIsa());                          // the rest of the engine's baseline
  j.set("gemm_path", r.gemmPath);
  j.set("bf16_on_hardware", r.bf16OnHardware);
  Json peak = Json::object();
  peak.set("threads", r.peak.threads);
  peak.set("fp32_gflops", rounded(r.peak.fp32Gflops, 1));
  if (r.peak.bf16Gflops > 0) peak.set("bf16_gflops", rounded(r.peak.bf16Gflops, 1));
  else peak.set("bf16_gflops", Json());
  j.set("fma_peak", peak);
  j.set("peak_fraction", rounded(r.peakFraction, 4));
  out << j.dump() << "\n";
  return 0;
}

}  // namespace app::cli
