// The whole simulation of one configuration: step, epochs, memory outcome, price, errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "core/hw/host_probe.h"
#include "core/nn/zoo.h"
#include "core/util/error.h"
#include "sim_test_support.h"

using namespace core::sim;
using core::util::Precision;

namespace {
std::string errorOf(const SimConfig& c) {
  try {
    simtest::simulator().simulate(c);
  } catch (const core::util::Error& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(Simulator, HandMadeNetworkScalesWithTheBatch) {
  const Workload w = simtest::workloadOf({simtest::dense("a", 784, 512), simtest::dense("b", 512, 10)});
  const auto& v100 = simtest::catalog().at("v100");
  const auto& stack = simtest::stacks().at("tuned");
  SimConfig c = simtest::config("hand", "hand", "v100", 32);
  const SimReport small = simulateWorkload(w, v100, stack, c);
  c.batch = 1024;
  const SimReport large = simulateWorkload(w, v100, stack, c);
  EXPECT_GT(large.imagesPerSecond, 5 * small.imagesPerSecond);  // fixed costs amortised
  EXPECT_EQ(small.bound, Bound::Overhead);
  EXPECT_EQ(large.stepsPerEpoch, 10);  // ceil(10000 / 1024)
  EXPECT_NEAR(large.epochSeconds, 10 * large.stepSeconds, 1e-12);
  EXPECT_GT(large.firstEpochSeconds, large.epochSeconds);
  const StepBreakdown& b = large.breakdown;
  EXPECT_NEAR(b.computeSeconds + b.memorySeconds + b.overheadSeconds + b.communicationSeconds, large.stepSeconds,
              1e-9 + 1e-9 * large.stepSeconds);
  EXPECT_FALSE(large.explanation.empty());
}

TEST(Simulator, DataParallelSplitsTheBatchAndPaysTheAllReduce) {
  const Workload w = simtest::workloadOf({simtest::dense("a", 4096, 4096), simtest::dense("b", 4096, 4096)});
  const auto& v100 = simtest::catalog().at("v100");
  const auto& stack = simtest::stacks().at("tuned");
  SimConfig one = simtest::config("hand", "hand", "v100", 256);
  SimConfig four = one;
  four.count = 4;
  const SimReport r1 = simulateWorkload(w, v100, stack, one), r4 = simulateWorkload(w, v100, stack, four);
  EXPECT_EQ(r4.perDeviceBatch, 64);
  EXPECT_GT(r4.breakdown.communicationSeconds, 0);
  EXPECT_EQ(r1.breakdown.communicationSeconds, 0);
  EXPECT_GT(r4.imagesPerSecond, r1.imagesPerSecond);
  EXPECT_LT(r4.imagesPerSecond, 4 * r1.imagesPerSecond);
  EXPECT_DOUBLE_EQ(r4.usdPerHour, 4 * r1.usdPerHour);
}

TEST(Simulator, OutOfMemoryIsAReportNotAnError) {
  const SimReport r = simtest::simulator().simulate(simtest::config("vgg16", "imagenet", "k80", 512));
  EXPECT_FALSE(r.fitsInMemory);
  EXPECT_GT(r.memoryBytesPerDevice, r.memoryCapacityBytes);
  EXPECT_NE(r.explanation.find("does not fit"), std::string::npos);
  EXPECT_GT(r.stepSeconds, 0);
}

TEST(Simulator, BadConfigurationsNameTheArgument) {
  EXPECT_NE(errorOf(simtest::config("resnet50", "imagenet", "v100", 0)).find("batch: "), std::string::npos);
  EXPECT_NE(errorOf(simtest::config("resnet50", "imagenet", "v100", 100, Precision::FP32, 3)).find("batch: "),
            std::string::npos);
  EXPECT_NE(errorOf(simtest::config("resnet50", "imagenet", "cpu-skylake", 64, Precision::FP32, 2)).find("count: "),
            std::string::npos);
  EXPECT_NE(errorOf(simtest::config("resnet50", "imagenet", "cpu-skylake", 64, Precision::FP32, 1, 500)).find("vcpus: "),
            std::string::npos);
  // A setting's error names its field (the experiment file's key); the CLI says its flag.
  try {
    simtest::simulator().simulate(simtest::config("resnet50", "imagenet", "v100", 0));
    FAIL() << "batch 0 was simulated";
  } catch (const core::util::FieldError& e) {
    EXPECT_EQ(e.field(), "batch");
    EXPECT_EQ(e.problem(), "0 must be at least 1");
  }
  EXPECT_NE(errorOf(simtest::config("resnet51", "imagenet", "v100", 64)).find("resnet51"), std::string::npos);
  EXPECT_NE(errorOf(simtest::config("resnet50", "imagenet2", "v100", 64)).find("imagenet2"), std::string::npos);
  EXPECT_NE(errorOf(simtest::config("resnet50", "imagenet", "v200", 64)).find("v200"), std::string::npos);
}

TEST(Simulator, PricesPerHourPerImageAndPerRun) {
  SimConfig c = simtest::config("resnet50", "imagenet", "v100", 256, Precision::FP16);
  c.epochs = 3;
  const SimReport r = simtest::simulator().simulate(c);
  ASSERT_TRUE(r.priceKnown);
  EXPECT_DOUBLE_EQ(r.usdPerHour, 3.06);
  EXPECT_NEAR(r.usdPerMillionImages, 3.06 / 3600 / r.imagesPerSecond * 1e6, 1e-9);
  EXPECT_NEAR(r.runSeconds, r.firstEpochSeconds + 2 * r.epochSeconds, 1e-6);
  EXPECT_NEAR(r.usdPerRun, 3.06 * r.runSeconds / 3600, 1e-9);
  c.deviceId = "cpu-skylake";
  c.vcpus = 16;
  c.preemptible = true;
  c.precision = Precision::FP32;
  EXPECT_NEAR(simtest::simulator().simulate(c).usdPerHour, 16 * 0.00795, 1e-12);
}

TEST(Simulator, ValidationPassAndStepsPerEpochOverride) {
  SimConfig c = simtest::config("mlp", "mnist", "k80", 128);
  const SimReport plain = simtest::simulator().simulate(c);
  c.evalEachEpoch = true;
  const SimReport eval = simtest::simulator().simulate(c);
  EXPECT_GT(eval.evalSecondsPerEpoch, 0);
  EXPECT_NEAR(eval.epochSeconds, plain.epochSeconds + eval.evalSecondsPerEpoch, 1e-9);
  c.stepsPerEpoch = 100;
  EXPECT_EQ(simtest::simulator().simulate(c).stepsPerEpoch, 100);
}

TEST(Simulator, PrecisionMattersWhereTheUnitsExist) {
  const auto run = [](const std::string& dev, Precision p) {
    return simtest::simulator().simulate(simtest::config("resnet50", "synthetic-imagenet", dev, 256, p)).imagesPerSecond;
  };
  EXPECT_GT(run("v100", Precision::FP16), 1.5 * run("v100", Precision::FP32));  // tensor cores
  EXPECT_NEAR(run("k80", Precision::FP16), run("k80", Precision::FP32), 0.25 * run("k80", Precision::FP32));
  const SimReport r = simtest::simulator().simulate(simtest::config("resnet50", "imagenet", "k80", 64, Precision::FP16));
  EXPECT_FALSE(r.precisionNote.empty());
}

TEST(Simulator, HostPredictionForTheEnginesModels) {
  // The GUI shows the host's predicted step beside the engine's measured one.
  core::hw::HostMeasurement m;
  m.cpuModel = "Test";
  m.vcpus = 2;
  m.cores = 2;
  m.vectorIsa = m.buildIsa = "avx512";
  m.gemmGflopsPerThread = 150;
  m.gemmGflopsAll = 300;
  m.memBandwidthGBps = 15;
  m.memGib = 24;
  m.measuredAt = "2025-01-01";
  core::hw::DeviceCatalog cat = simtest::catalog();
  cat.add(core::hw::hostSpecFromMeasurement(m));
  const Simulator sim(cat, simtest::stacks());
  const SimReport mlp = sim.simulate(simtest::config("mlp", "fashion-mnist", "host", 128));
  const SimReport cnn = sim.simulate(simtest::config("colab-cnn", "fashion-mnist", "host", 128));
  EXPECT_GT(mlp.imagesPerSecond, 5 * cnn.imagesPerSecond);
  EXPECT_GT(cnn.stepSeconds, 0.05);   // ~64 GFLOP per step on ~300 GFLOP/s
  EXPECT_LT(cnn.stepSeconds, 2.0);
}

TEST(Simulator, ImageNetFeedsTheReferenceModelsAtTheirOwnResolution) {
  // tf_cnn_benchmarks and Keras train Inception-v3 on 299x299 ImageNet crops, ResNet-50 on
  // 224x224: the simulated work must be the model's at that size, not at the dataset's 224.
  const auto inception = simtest::simulator().workload("inception-v3", "synthetic-imagenet");
  const auto native = core::nn::modelStats("inception-v3", {{3, 299, 299}, 1000, 0});
  EXPECT_NEAR(inception->forwardFlops, native.forwardFlops(), 1e-6 * native.forwardFlops());
  EXPECT_GT(inception->forwardFlops, 10e9);  // ~5.7 G multiply-adds at 299x299
  const auto resnet = simtest::simulator().workload("resnet50", "imagenet");
  const auto at224 = core::nn::modelStats("resnet50", {{3, 224, 224}, 1000, 0});
  EXPECT_NEAR(resnet->forwardFlops, at224.forwardFlops(), 1e-6 * at224.forwardFlops());
  // Small models and datasets of fixed size keep the dataset's shape.
  EXPECT_EQ(core::nn::inputShapeFor("cifar-cnn", {3, 224, 224}, true), (core::nn::Shape{3, 224, 224}));
  EXPECT_EQ(core::nn::inputShapeFor("xception", {3, 331, 331}, false), (core::nn::Shape{3, 331, 331}));
  EXPECT_EQ(core::nn::inputShapeFor("xception", {3, 224, 224}, true), (core::nn::Shape{3, 299, 299}));
}

TEST(Simulator, YourImageFolderIsTheEpochAtTheModelsOwnInput) {
  // Listing only: the files need not decode for the simulator.
  const auto dir = std::filesystem::temp_directory_path() / ("accellab-sim-folder-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  for (int c = 0; c < 3; ++c) {
    std::filesystem::create_directories(dir / ("class" + std::to_string(c)));
    for (int i = 0; i < 50; ++i)
      std::ofstream(dir / ("class" + std::to_string(c)) / ("img" + std::to_string(i) + ".jpg")) << std::string(2000, 'x');
  }
  SimConfig c = simtest::config("lenet5", "image-folder", "v100", 32);
  c.dataDir = dir.string();
  const SimReport r = simtest::simulator().simulate(c);
  EXPECT_EQ(r.stepsPerEpoch, 4);  // 120 training images (40 of each class's 50) in batches of 32
  const auto w = simtest::simulator().workload("lenet5", "image-folder", dir.string());
  EXPECT_EQ(w->feed.trainSize, 120);
  EXPECT_EQ(w->feed.testSize, 30);
  EXPECT_DOUBLE_EQ(w->feed.storedBytesPerSample, 2000.0);
  const auto native = core::nn::modelStats("lenet5", {{1, 28, 28}, 3, 0});
  EXPECT_NEAR(w->forwardFlops, native.forwardFlops(), 1e-6 * native.forwardFlops());
  // Without a folder the model's own input still holds (resnet20: 3x32x32, not 224x224).
  const auto resnet = simtest::simulator().workload("resnet20", "image-folder");
  const auto at32 = core::nn::modelStats("resnet20", {{3, 32, 32}, 2, 0});
  EXPECT_NEAR(resnet->forwardFlops, at32.forwardFlops(), 1e-6 * at32.forwardFlops());
  c.dataDir = (dir / "missing").string();
  EXPECT_THROW(simtest::simulator().simulate(c), core::util::Error);
  std::filesystem::remove_all(dir);
}

TEST(Simulator, Fp32OnATensorCoreGpuRunsOnItsFp32Units) {
  // V100's stack figure is fitted on fp16 tensor-core rows; at fp32 it runs cuDNN's CUDA-core
  // kernels like a P100, so the two differ by about their fp32 peaks (15.7 / 9.3 TFLOP/s;
  // tf_cnn_benchmarks ResNet-50: ~1.6x).
  SimConfig c = simtest::config("resnet50", "synthetic-imagenet", "v100", 64, Precision::FP32, 1, 0, "tf-tuned-2018");
  const double v100 = simtest::simulator().simulate(c).imagesPerSecond;
  c.deviceId = "p100";
  const double p100 = simtest::simulator().simulate(c).imagesPerSecond;
  EXPECT_GT(v100 / p100, 1.4);
  EXPECT_LT(v100 / p100, 2.0);
  // Mixed precision still uses the tensor cores' own figure: several times the fp32 rate.
  c.deviceId = "v100";
  c.precision = Precision::FP16;
  EXPECT_GT(simtest::simulator().simulate(c).imagesPerSecond, 2.0 * v100);
}

TEST(Simulator, ATpuV3RunsResNet50FasterThanAV2AndDepthwiseLayersOffTheMxu) {
  // Same XLA and MXU design, 2.7x the peak and 1.5x the bandwidth: ResNet-50 must gain from a
  // v3-8 (it did not while one efficiency also carried Xception's depthwise layers).
  SimConfig c = simtest::config("resnet50", "synthetic-imagenet", "tpu-v2-8", 1024, Precision::BF16);
  const double v2 = simtest::simulator().simulate(c).imagesPerSecond;
  c.deviceId = "tpu-v3-8";
  const double v3 = simtest::simulator().simulate(c).imagesPerSecond;
  EXPECT_GT(v3 / v2, 1.4);
  EXPECT_LT(v3 / v2, 2.7);
  // Xception's depthwise convolutions are a few percent of its FLOPs, but XLA runs them on the
  // vector units, so on a TPU they take a large share of the step.
  c = simtest::config("xception", "tf-flowers", "tpu-v3-8", 128, Precision::BF16);
  const SimReport x = simtest::simulator().simulate(c);
  double depthwise = 0, total = 0;
  for (const auto& l : x.layers) {
    total += l.forwardSeconds + l.backwardSeconds;
    if (l.kind == "depthwise_conv2d") depthwise += l.forwardSeconds + l.backwardSeconds;
  }
  ASSERT_GT(total, 0);
  EXPECT_GT(depthwise / total, 0.3);
}

// A cloud CPU's memory is the VM's RAM when the set-up states it (a Kaggle session: 13 GB
// whatever its vCPUs), else the device's per-vCPU figure times the vCPUs.
TEST(Simulator, AVmsRamIsItsOwnSetting) {
  auto c = simtest::config("xception", "tf-flowers", "cpu-skylake", 16, core::util::Precision::FP32, 1, 2);
  const auto perVcpu = simtest::simulator().simulate(c);
  EXPECT_NEAR(perVcpu.memoryCapacityBytes, 2 * 0.9 * 1024.0 * 1024 * 1024, 1e6);
  EXPECT_FALSE(perVcpu.fitsInMemory);
  c.memoryGib = 12.1;
  const auto vm = simtest::simulator().simulate(c);
  EXPECT_NEAR(vm.memoryCapacityBytes, 12.1 * 1024.0 * 1024 * 1024, 1e6);
  EXPECT_TRUE(vm.fitsInMemory);
  EXPECT_DOUBLE_EQ(vm.stepSeconds, perVcpu.stepSeconds);  // RAM changes what fits, not the speed
}
