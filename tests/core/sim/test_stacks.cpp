// Software stacks as data: the shipped stack files, strict validation, what a stack changes
// for the same device, and the fit that reproduces the shipped figures.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "core/hw/stack_catalog.h"
#include "core/sim/device_rates.h"
#include "core/sim/llm_step.h"
#include "core/sim/row_readings.h"
#include "core/sim/stack_fit.h"
#include "core/util/error.h"
#include "sim_test_support.h"

using namespace core::sim;
using core::hw::parseStackJson;
using core::util::Precision;

namespace {

std::string stackText(const std::string& figures, const std::string& sources) {
  return R"({"id": "lab", "name": "Lab stack", "description": "one line",)" + figures +
         R"(, "sources": {)" + sources + "}}";
}

std::string errorOf(const std::string& text, const std::string& path = "/x/lab.json") {
  try {
    parseStackJson(text, path);
  } catch (const core::util::Error& e) {
    return e.what();
  }
  return "";
}

const std::string kSrc = R"({"ref": "r", "date": "2024"})";

}  // namespace

TEST(Stacks, TheShippedStacksLoadWithASourcePerFigure) {
  const auto& cat = simtest::stacks();
  EXPECT_TRUE(cat.loadErrors().empty()) << (cat.loadErrors().empty() ? "" : cat.loadErrors().front());
  for (const char* id : {"keras-2017", "keras-2020", "tf-tuned-2018", "pytorch-eager", "pytorch-compile", "tuned", "mlperf"}) {
    const auto* s = cat.find(id);
    ASSERT_NE(s, nullptr) << id;
    EXPECT_FALSE(s->description.empty()) << id;
    const auto json = core::hw::stackToJson(*s);
    for (const auto& [key, value] : json.asObject()) {
      if (key == "id" || key == "name" || key == "description" || key == "era" || key == "default_for" ||
          key == "sources")
        continue;
      EXPECT_NE(s->sourceOf(key), nullptr) << id << ": " << key;
    }
  }
  EXPECT_EQ(cat.defaultFor(core::hw::DeviceKind::Gpu).id, "pytorch-eager");
  EXPECT_EQ(cat.defaultFor(core::hw::DeviceKind::Tpu).id, "tuned");
}

TEST(Stacks, BadFilesAreRefusedNamingTheFileAndTheKey) {
  const std::string ok = stackText(R"("gemm_efficiency": {"volta": 0.5})", R"("gemm_efficiency": )" + kSrc);
  EXPECT_EQ(errorOf(ok), "");
  const std::string unknown = errorOf(stackText(R"("gemm_eficiency": 0.5)", R"("gemm_eficiency": )" + kSrc));
  EXPECT_NE(unknown.find("/x/lab.json"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("gemm_eficiency"), std::string::npos) << unknown;
  const std::string range = errorOf(stackText(R"("gemm_efficiency": {"volta": 1.5})", R"("gemm_efficiency": )" + kSrc));
  EXPECT_NE(range.find("gemm_efficiency.volta"), std::string::npos) << range;
  EXPECT_NE(range.find("plausible range"), std::string::npos) << range;
  const std::string tiny = errorOf(stackText(R"("kernel_launch_seconds": 1e308)", R"("kernel_launch_seconds": )" + kSrc));
  EXPECT_NE(tiny.find("kernel_launch_seconds"), std::string::npos) << tiny;
  const std::string selector = errorOf(stackText(R"("gemm_efficiency": {"volt": 0.5})", R"("gemm_efficiency": )" + kSrc));
  EXPECT_NE(selector.find("gemm_efficiency.volt"), std::string::npos) << selector;
  EXPECT_NE(selector.find("hopper"), std::string::npos) << selector;  // the known generations are listed
  const std::string unsourced = errorOf(stackText(R"("gemm_efficiency": 0.5)", ""));
  EXPECT_NE(unsourced.find("has no source"), std::string::npos) << unsourced;
  const std::string kind = errorOf(stackText(R"("input_pipeline": "gpu")", R"("input_pipeline": )" + kSrc));
  EXPECT_NE(kind.find("device-decode"), std::string::npos) << kind;
  EXPECT_NE(errorOf(ok, "/x/other.json").find("must match the file name"), std::string::npos);
  EXPECT_NE(errorOf(R"({"id": "lab"})").find("'name'"), std::string::npos);
}

TEST(Stacks, TheMostSpecificSelectorWins) {
  const auto s = parseStackJson(
      stackText(R"("gemm_efficiency": {"default": 0.3, "gpu": 0.4, "volta": 0.5})", R"("gemm_efficiency": )" + kSrc),
      "/x/lab.json");
  EXPECT_DOUBLE_EQ(*core::hw::figuresFor(s, simtest::catalog().at("v100")).gemmEfficiency, 0.5);
  EXPECT_DOUBLE_EQ(*core::hw::figuresFor(s, simtest::catalog().at("a100")).gemmEfficiency, 0.4);
  EXPECT_DOUBLE_EQ(*core::hw::figuresFor(s, simtest::catalog().at("tpu-v2-8")).gemmEfficiency, 0.3);
  // The file round-trips through its writer.
  const auto again = parseStackJson(core::hw::stackToJson(s).dump(2), "/x/lab.json");
  EXPECT_DOUBLE_EQ(*core::hw::figuresFor(again, simtest::catalog().at("v100")).gemmEfficiency, 0.5);
}

TEST(Stacks, TheSameV100UnderTwoStacksDiffersForTheDocumentedReasons) {
  // ResNet-50 on real ImageNet, one V100, mixed precision: 2018 Keras vs a tuned NGC container.
  auto c = simtest::config("resnet50", "imagenet", "v100", 256, Precision::FP16, 1, 0, "keras-2017");
  const SimReport keras = simtest::simulator().simulate(c);
  c.stackId = "tuned";
  const SimReport tuned = simtest::simulator().simulate(c);
  EXPECT_GT(keras.stepSeconds, 1.5 * tuned.stepSeconds);
  // Keras decodes JPEG on 8 host vCPUs and binds there; DALI decodes on the GPU.
  EXPECT_EQ(keras.bound, Bound::Input);
  EXPECT_NE(tuned.bound, Bound::Input);
  // Fused element-wise layers and a fused optimizer move fewer bytes.
  EXPECT_LT(tuned.breakdown.memorySeconds, keras.breakdown.memorySeconds);
  // The report names its stack and says what the other would do.
  EXPECT_EQ(tuned.config.stackId, "tuned");
  EXPECT_NE(tuned.explanation.find("Software: " + tuned.stackName), std::string::npos) << tuned.explanation;
  EXPECT_NE(tuned.explanation.find("With pytorch-eager it would be"), std::string::npos) << tuned.explanation;
  // Without a stack the device kind's default (pytorch-eager on GPUs) runs.
  c.stackId.clear();
  EXPECT_EQ(simtest::simulator().simulate(c).config.stackId, "pytorch-eager");
}

TEST(Stacks, AnUnknownStackIsRefusedNamingTheKnownOnes) {
  auto c = simtest::config("mlp", "mnist", "v100", 128, Precision::FP32, 1, 0, "keras-2099");
  try {
    simtest::simulator().simulate(c);
    FAIL();
  } catch (const core::util::Error& e) {
    EXPECT_NE(std::string(e.what()).find("keras-2099"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("tuned"), std::string::npos);
  }
}

TEST(StackFit, TheFitReproducesTheShippedFigures) {
  const FitSpec spec = readFitSpec(std::string(ACCELLAB_SOURCE_RESOURCES) + "/calibration/stack-fit.json");
  const auto rows = shippedReferenceRows();
  const FitOutcome fit = fitStacks(simtest::catalog(), simtest::stacks(), rows, spec);
  ASSERT_FALSE(fit.figures.empty());
  for (const auto& f : fit.figures) {
    const auto& s = simtest::stacks().at(f.figure.stack);
    const auto it = s.bySelector.find(f.figure.selector);
    ASSERT_NE(it, s.bySelector.end()) << f.figure.name();
    const auto shipped = core::hw::figureValue(it->second, f.figure.key);
    ASSERT_TRUE(shipped.has_value()) << f.figure.name();
    EXPECT_NEAR(f.value, *shipped, 0.005 * std::abs(*shipped)) << f.figure.name();
  }
  for (const auto& s : fit.perStack) {
    EXPECT_GT(s.rows, 0) << s.stack;
    EXPECT_LE(s.objectiveFitted, s.objectiveStart) << s.stack;
  }
}

TEST(Stacks, AStackWithoutFiguresForTheDeviceKindIsRefused) {
  // The tuned stack describes GPUs and TPUs (NGC, XLA), not CPUs: no silent kind defaults.
  auto c = simtest::config("mlp", "mnist", "cpu-skylake", 128, Precision::FP32, 1, 8, "tuned");
  try {
    simtest::simulator().simulate(c);
    FAIL() << "a CPU ran under the tuned stack";
  } catch (const core::util::Error& e) {
    EXPECT_NE(std::string(e.what()).find("no figures for cpu"), std::string::npos) << e.what();
  }
  c.stackId = "pytorch-eager";
  EXPECT_GT(simtest::simulator().simulate(c).stepSeconds, 0);
}

TEST(Stacks, NchwActivationsCostTransposesOnTensorCoresOnly) {
  // ResNet-50 on one H100 at bf16 under eager PyTorch (NCHW by default): cuDNN transposes each
  // convolution's tensors for the tensor cores; channels_last does not (measured on an H100:
  // 2,228 vs 3,985 images/s, issue #26; the simulator has the direction, not all of the size).
  auto c = simtest::config("resnet50", "synthetic-imagenet", "h100", 256, Precision::BF16, 1, 0, "pytorch-eager");
  const SimReport nchw = simtest::simulator().simulate(c);
  c.channelsLast = true;
  const SimReport last = simtest::simulator().simulate(c);
  EXPECT_GT(nchw.stepSeconds, 1.05 * last.stepSeconds);
  EXPECT_GT(nchw.breakdown.memorySeconds, last.breakdown.memorySeconds);
  EXPECT_NE(nchw.explanation.find("Activations in NCHW"), std::string::npos) << nchw.explanation;
  EXPECT_EQ(last.explanation.find("Activations in NCHW"), std::string::npos) << last.explanation;
  // torch.compile lays a CNN out channels_last by itself.
  c.channelsLast.reset();
  c.stackId = "pytorch-compile";
  EXPECT_EQ(simtest::simulator().simulate(c).explanation.find("Activations in NCHW"), std::string::npos);
  // fp32 on the CUDA cores, and a K80 without tensor cores: NCHW is their native layout.
  c.stackId = "pytorch-eager";
  c.precision = Precision::FP32;
  const SimReport fp32 = simtest::simulator().simulate(c);
  c.channelsLast = true;
  EXPECT_DOUBLE_EQ(simtest::simulator().simulate(c).stepSeconds, fp32.stepSeconds);
  auto k80 = simtest::config("resnet50", "synthetic-imagenet", "k80", 64, Precision::FP16, 1, 0, "pytorch-eager");
  EXPECT_EQ(simtest::simulator().simulate(k80).explanation.find("Activations in NCHW"), std::string::npos);
}

// One device model (core/sim/device_rates): the CNN unit and the transformer unit read the same
// rates, and a device's traits, not its kind, decide how it launches, fuses and replicates.
TEST(DeviceRates, TraitsDecideLaunchFusionAndReplicasForBothPaths) {
  using namespace core;
  hw::DeviceSpec d = simtest::catalog().at("h100");
  const hw::SoftwareFigures sw = hw::figuresFor(simtest::stacks().at("pytorch-eager"), d);
  const sim::DeviceRates gpu = sim::resolveDeviceRates(d, sw, util::Precision::BF16);
  EXPECT_GT(gpu.kernelLaunchSeconds, 0.0);
  EXPECT_GT(gpu.minKernelSeconds, 0.0);
  EXPECT_EQ(gpu.replicas, 1);
  EXPECT_FALSE(gpu.systolic);

  // The same silicon described as a compiled, systolic, per-core device.
  d.launchModel = hw::LaunchModel::CompiledProgram;
  d.fusion = hw::FusionRule::Compiler;
  d.replicaRule = hw::ReplicaRule::PerCore;
  d.matrixUnit = hw::MatrixUnit::Systolic;
  d.coresPerDevice = 2;
  const sim::DeviceRates npu = sim::resolveDeviceRates(d, sw, util::Precision::BF16);
  EXPECT_EQ(npu.kernelLaunchSeconds, 0.0);
  EXPECT_EQ(npu.minKernelSeconds, 0.0);
  EXPECT_TRUE(npu.fusesElementwise);
  EXPECT_TRUE(npu.fusesEpilogues);
  EXPECT_FALSE(npu.autocast);
  EXPECT_EQ(npu.replicas, 2);
  EXPECT_TRUE(npu.systolic);

  // Both views agree with the rates.
  sim::SimConfig c;
  c.precision = util::Precision::BF16;
  const sim::ExecutionUnit u = sim::resolveUnit(d, sw, c);
  const sim::LlmUnit l = sim::resolveLlmUnit(d, sw, util::Precision::BF16);
  EXPECT_EQ(u.replicas, 2);
  EXPECT_TRUE(u.systolic && l.systolic);
  EXPECT_TRUE(u.fusesElementwise && l.fusesElementwise);
  EXPECT_EQ(l.launchSeconds, 0.0);
  EXPECT_DOUBLE_EQ(u.gemmEfficiency, npu.gemmEfficiency);
  EXPECT_DOUBLE_EQ(l.matmulFlops, npu.peak.tflops * 1e12 * npu.matmulEfficiency);

  // matmul_efficiency_fp32 (SGEMM, TF32 off) is an fp32 run's only: tf32 that equals the fp32
  // peak (an RTX 4090's tensor cores) and bf16 falling back to a V100's fp32 peak keep the
  // stack's matmul figure; the CNN's gemm figure for the fp32 units follows the units.
  for (const auto& [id, p] : {std::pair{"rtx4090", util::Precision::TF32}, std::pair{"v100", util::Precision::BF16}}) {
    const hw::DeviceSpec& dev = simtest::catalog().at(id);
    const hw::SoftwareFigures f = hw::figuresFor(simtest::stacks().at("pytorch-eager"), dev);
    ASSERT_TRUE(f.matmulEfficiency && f.matmulEfficiencyFp32) << id;
    EXPECT_DOUBLE_EQ(sim::resolveDeviceRates(dev, f, p).matmulEfficiency, *f.matmulEfficiency) << id;
    EXPECT_DOUBLE_EQ(sim::resolveDeviceRates(dev, f, util::Precision::FP32).matmulEfficiency, *f.matmulEfficiencyFp32)
        << id;
  }
  // A GPU file without compute_units: one default for both paths.
  hw::DeviceSpec bare = simtest::catalog().at("h100");
  bare.computeUnits.reset();
  EXPECT_EQ(sim::resolveDeviceRates(bare, sw, util::Precision::BF16).computeUnits, sim::kDefaultComputeUnits);
  EXPECT_EQ(sim::resolveUnit(bare, sw, c).parallelUnits, sim::resolveLlmUnit(bare, sw, util::Precision::BF16).units);

  // fp32 on systolic units runs as bf16 passes, named in the note, whatever the kind.
  d.peakTflopsFp32.reset();
  d.peakTflopsTf32.reset();
  const sim::DeviceRates fp32 = sim::resolveDeviceRates(d, sw, util::Precision::FP32);
  EXPECT_DOUBLE_EQ(fp32.peak.tflops, *d.peakTflopsBf16);
  EXPECT_NE(fp32.peak.note.find("bf16"), std::string::npos) << fp32.peak.note;
}
