// Each cost effect on its own: utilisation of matrix units, CPU scaling, precision, roofline
// and dispatch, recurrence, input pipeline, all-reduce, memory and price.
#include <gtest/gtest.h>

#include <cmath>

#include "core/sim/cpu_scaling.h"
#include "core/sim/data_parallel.h"
#include "core/sim/energy.h"
#include "core/sim/input_pipeline.h"
#include "core/sim/layer_cost.h"
#include "core/sim/memory_model.h"
#include "core/sim/precision_model.h"
#include "core/sim/pricing.h"
#include "core/sim/recurrent_cost.h"
#include "core/sim/step_model.h"
#include "core/sim/utilization.h"
#include "core/util/error.h"
#include "sim_test_support.h"

using namespace core::sim;
using core::util::Precision;

TEST(Utilization, SystolicArrayWastesPaddingAndShortStreams) {
  // A 128x128 weight block streamed by a long batch: nearly full.
  EXPECT_GT(systolicUtilization({128, 100000, 128}, 128), 0.99);
  // 32 output channels fill a quarter of the array's columns.
  EXPECT_NEAR(systolicUtilization({32, 100000, 128}, 128), 0.25, 0.01);
  // A dense layer at per-core batch 4: the array's fill and drain dominate.
  EXPECT_LT(systolicUtilization({128, 4, 128}, 128), 0.05);
  EXPECT_GT(systolicUtilization({128, 512, 128}, 128), 0.75);
}

TEST(Utilization, TiledGemmRunsInWavesAndAmortisesItsBlocks) {
  // 81 blocks on 80 SMs: a second wave with one block in it.
  const double twoWaves = tiledUtilization({9 * 128, 9 * 128, 4096}, 128, 80);
  const double oneWave = tiledUtilization({8 * 128, 10 * 128, 4096}, 128, 80);
  EXPECT_LT(twoWaves, 0.6 * oneWave);
  // A short contraction cannot amortise the block's fixed cost.
  EXPECT_LT(tiledUtilization({1024, 1024, 16}, 128, 8), 0.1);
  // A narrow output uses a narrow tile (when the stack has one), not a padded wide one.
  EXPECT_GT(tiledUtilization({32, 100000, 4096}, 128, 80, 16), 0.9);
  EXPECT_LT(tiledUtilization({32, 100000, 4096}, 128, 80, 128), 0.3);
  // Few output blocks: the long contraction is split to keep every unit busy.
  EXPECT_GT(tiledUtilization({64, 64, 1 << 20}, 128, 80), 0.9);
}

TEST(CpuScaling, VcpusShareCoresAndSocketsAddBarrierCost) {
  const auto& d = simtest::catalog().at("cpu-skylake");
  const auto sw = core::hw::figuresFor(simtest::stacks().at("keras-2017"), d);
  const CpuResources r32 = cpuResources(d, sw, 0.064, 32, CpuBuild::Compiled);
  const CpuResources r64 = cpuResources(d, sw, 0.064, 64, CpuBuild::Compiled);
  EXPECT_EQ(r32.cores, 16);
  EXPECT_EQ(r32.sockets, 1);
  EXPECT_EQ(r64.sockets, 2);
  EXPECT_DOUBLE_EQ(r64.flops, 2 * r32.flops);
  EXPECT_GT(r64.syncSecondsPerThread, r32.syncSecondsPerThread);  // cross-socket barriers
  const CpuResources pip = cpuResources(d, sw, 0.064, 32, CpuBuild::Pip);
  EXPECT_LT(pip.flops, r32.flops);
  EXPECT_EQ(threadsForBlocks(3.2, 64), 4);
  EXPECT_EQ(threadsForBlocks(1e9, 64), 64);
  try {
    cpuResources(d, sw, 0.064, 1000, CpuBuild::Compiled);
    FAIL();
  } catch (const core::util::Error& e) {
    EXPECT_NE(std::string(e.what()).find("vcpus: "), std::string::npos);
  }
}

TEST(Precision, PeaksAndTheirFallbacks) {
  const auto& cat = simtest::catalog();
  EXPECT_DOUBLE_EQ(peakFor(cat.at("v100"), Precision::FP16).tflops, 125);
  EXPECT_TRUE(peakFor(cat.at("v100"), Precision::FP16).note.empty());
  const PeakChoice k80 = peakFor(cat.at("k80"), Precision::FP16);  // no fp16 units
  EXPECT_DOUBLE_EQ(k80.tflops, 4.37);
  EXPECT_NE(k80.note.find("fp32"), std::string::npos);
  EXPECT_DOUBLE_EQ(peakFor(cat.at("tpu-v3-8"), Precision::FP32).tflops, 492);  // bf16 passes
  EXPECT_DOUBLE_EQ(peakFor(cat.at("a100"), Precision::TF32).tflops, 156);
  EXPECT_DOUBLE_EQ(peakFor(cat.at("v100"), Precision::TF32).tflops, 15.7);  // no TF32 before Ampere
  EXPECT_DOUBLE_EQ(activationBytes(Precision::BF16), 2);
  EXPECT_DOUBLE_EQ(activationBytes(Precision::FP32), 4);
  // Mixed precision halves activation memory.
  const Workload w = simtest::workloadOf({simtest::conv("c", 64, 64, 56, 56)});
  EXPECT_NEAR(replicaMemory(w, 64, 2, 0).activationBytes, 0.5 * replicaMemory(w, 64, 4, 0).activationBytes, 1);
}

TEST(Roofline, TheSlowerOfComputeAndBytesBinds) {
  const LayerTime c = roofline(1e12, 1e12, 1e9, 1e12);
  EXPECT_DOUBLE_EQ(c.compute, 1.0);
  EXPECT_DOUBLE_EQ(c.memory, 0.0);
  const LayerTime m = roofline(1e9, 1e12, 1e12, 1e11);
  EXPECT_DOUBLE_EQ(m.memory, 10.0);
  // Launches overlap work on a GPU; they add on a CPU.
  EXPECT_DOUBLE_EQ(withDispatch(c, 10, 1e-3, true).seconds(), 1.0);
  EXPECT_DOUBLE_EQ(withDispatch(c, 10, 1e-3, false).seconds(), 1.01);
  EXPECT_DOUBLE_EQ(withDispatch(roofline(1e6, 1e12, 0, 1), 10, 1e-3, true).overhead, 0.01);
}

TEST(LayerCost, NarrowLayersGetLessOfThePeakThanWideOnes) {
  const ExecutionUnit k80 = simtest::unit("k80", Precision::FP32, 0, "keras-2017");
  const LayerWork narrow = simtest::workloadOf({simtest::conv("a", 32, 32, 28, 28)}).layers[0];
  const LayerWork wide = simtest::workloadOf({simtest::conv("b", 256, 256, 28, 28)}).layers[0];
  const auto perFlop = [&](const LayerWork& l) { return layerTime(l, Pass::Forward, 256, k80).seconds() / l.forwardFlops; };
  EXPECT_GT(perFlop(narrow), 2 * perFlop(wide));
  // A first layer needs no input gradient: its backward pass is the weight gradient alone.
  const Workload two = simtest::workloadOf({simtest::conv("a", 64, 64, 28, 28), simtest::conv("b", 64, 64, 28, 28)});
  EXPECT_FALSE(two.layers[0].inputGradient);
  EXPECT_TRUE(two.layers[1].inputGradient);
  EXPECT_LT(layerTime(two.layers[0], Pass::Backward, 64, k80).seconds(),
            layerTime(two.layers[1], Pass::Backward, 64, k80).seconds());
}

TEST(LayerCost, TpuUtilisationGrowsWithThePerCoreBatch) {
  const ExecutionUnit tpu = simtest::unit("tpu-v3-8", Precision::BF16, 0, "keras-2020");
  const LayerWork fc = simtest::workloadOf({simtest::dense("fc", 1024, 1024)}).layers[0];
  EXPECT_LT(gemmUtilization(fc, Pass::Forward, 4, tpu), 0.05);
  EXPECT_GT(gemmUtilization(fc, Pass::Forward, 512, tpu), 0.75);
  // Eight cores each take an eighth of the batch: 32 samples per board is 4 per core.
  EXPECT_GT(layerTime(fc, Pass::Forward, 32, tpu).seconds() / 32, 10 * layerTime(fc, Pass::Forward, 4096, tpu).seconds() / 4096);
}

TEST(Recurrent, StepsSerialiseAndEachPaysItsLaunches) {
  core::nn::LayerStats lstm;
  lstm.name = "lstm";
  lstm.kind = core::nn::LayerKind::LSTM;
  lstm.inShape = {64, 100, 1};
  lstm.outShape = {64, 1, 1};
  lstm.params = 4 * 64 * 129;
  lstm.gemmM = 256;
  lstm.gemmK = 128;
  lstm.gemmN = 1;
  lstm.sequentialSteps = 100;
  lstm.forwardFlops = 100 * 2.0 * 256 * 128;
  lstm.backwardFlops = 2 * lstm.forwardFlops;
  lstm.forwardBytes = 4.0 * 100 * 64;
  lstm.weightBytes = 4.0 * lstm.params;
  LayerWork l = simtest::workloadOf({lstm}).layers[0];
  const ExecutionUnit k80 = simtest::unit("k80", Precision::FP32, 0, "keras-2017");
  const double t100 = recurrentLayerTime(l, Pass::Forward, 32, k80).seconds();
  l.sequentialSteps = 200;
  l.forwardFlops *= 2;
  EXPECT_NEAR(recurrentLayerTime(l, Pass::Forward, 32, k80).seconds(), 2 * t100, 0.05 * t100);
  // At batch 32 a step is far shorter than its launches: the GPU waits on them.
  const LayerTime t = recurrentLayerTime(l, Pass::Forward, 32, k80);
  EXPECT_GT(t.overhead, 10 * (t.compute + t.memory));
  EXPECT_GE(t.overhead, 200 * opsPerRecurrentStep(Pass::Forward) * k80.opSeconds);
}

TEST(InputPipeline, JpegDecodeScalesWithHostVcpusSyntheticIsFree) {
  ExecutionUnit u = simtest::unit("v100", Precision::FP32, 0, "tf-tuned-2018");
  DataFeed jpeg;
  jpeg.format = core::data::SampleFormat::Jpeg;
  jpeg.storedBytesPerSample = 110e3;
  jpeg.inputBytesPerSample = 4.0 * 3 * 224 * 224;
  const double eight = inputSecondsPerStep(jpeg, u, 256);
  u.hostVcpus *= 2;
  EXPECT_NEAR(inputSecondsPerStep(jpeg, u, 256), eight / 2, eight * 0.01);
  DataFeed raw = jpeg;
  raw.format = core::data::SampleFormat::RawPixels;
  raw.storedBytesPerSample = 784;
  raw.inputBytesPerSample = 4 * 784;
  EXPECT_LT(inputSecondsPerStep(raw, u, 256), eight / 50);
  DataFeed synthetic = jpeg;
  synthetic.format = core::data::SampleFormat::Synthetic;
  EXPECT_EQ(inputSecondsPerStep(synthetic, u, 256), 0.0);
}

TEST(DataParallel, RingAllReduceAndItsOverlap) {
  EXPECT_EQ(ringAllReduceSeconds(1e9, 1, 1e9, 1e-5), 0.0);
  EXPECT_NEAR(ringAllReduceSeconds(1e9, 4, 1e9, 0), 1.5, 1e-12);  // 2 (N-1)/N
  EXPECT_NEAR(ringAllReduceSeconds(1e9, 4, 1e9, 1e-3), 1.5 + 6e-3, 1e-12);
  EXPECT_NEAR(exposedCommunicationSeconds(1.0, 10.0), kNonOverlappableShare, 1e-12);
  EXPECT_NEAR(exposedCommunicationSeconds(1.0, 0.5), 0.5, 1e-12);
}

TEST(Memory, WeightsGradientsOptimizerAndActivations) {
  const Workload w = simtest::workloadOf({simtest::dense("a", 1000, 1000), simtest::dense("b", 1000, 10)});
  const MemoryEstimate m = replicaMemory(w, 100, 4, 1e6);
  const double params = 1001000 + 10010;
  EXPECT_DOUBLE_EQ(m.weightBytes, 4 * params);
  EXPECT_DOUBLE_EQ(m.gradientBytes, 4 * params);
  EXPECT_DOUBLE_EQ(m.optimizerBytes, 8 * params);
  EXPECT_DOUBLE_EQ(m.activationBytes, 100 * (4000 + 4000));
  EXPECT_DOUBLE_EQ(m.reserveBytes, 1e6);
  EXPECT_GT(replicaMemory(w, 1000, 4, 0).total(), replicaMemory(w, 10, 4, 0).total());
}

TEST(Pricing, PerDevicePerVcpuAndUnknown) {
  const auto& cat = simtest::catalog();
  EXPECT_DOUBLE_EQ(priceFor(cat.at("v100"), 4, 0, false).usdPerHour, 4 * 3.06);
  EXPECT_NEAR(priceFor(cat.at("cpu-skylake"), 1, 64, true).usdPerHour, 64 * 0.00795, 1e-12);
  EXPECT_FALSE(priceFor(cat.at("v100"), 1, 0, true).known);  // no preemptible V100 price
  EXPECT_FALSE(priceFor(cat.at("h20"), 1, 0, false).known);  // sold in China only: no public rental price
  EXPECT_NEAR(usdPerMillionImages(3.6, 1000), 1.0, 1e-12);
}

// The price a user types replaces the catalog's (known or not) and is labelled as theirs; a
// catalog price carries its seller and date.
TEST(Pricing, TheUsersOwnPriceReplacesTheCatalogsAndIsMarked) {
  const auto& cat = simtest::catalog();
  const Price tpu = priceFor(cat.at("h20"), 2, 0, false, 3.5);
  EXPECT_TRUE(tpu.known);
  EXPECT_EQ(tpu.kind, PriceKind::User);
  EXPECT_DOUBLE_EQ(tpu.usdPerHour, 7.0);
  EXPECT_DOUBLE_EQ(priceFor(cat.at("cpu-skylake"), 1, 8, true, 0.05).usdPerHour, 0.4);  // per vCPU
  const Price listed = priceFor(cat.at("h100"), 1, 0, false);
  EXPECT_EQ(listed.kind, PriceKind::OnDemand);
  EXPECT_FALSE(listed.seller.empty());
  EXPECT_FALSE(listed.date.empty());
  for (double bad : {0.0, -1.0, 2e5, std::nan("")}) EXPECT_THROW(checkUserPrice(bad, "--usd-per-hour"), core::util::Error);
  EXPECT_NO_THROW(checkUserPrice(2.49, "--usd-per-hour"));
}

// Energy: power x devices x time x PUE; CO2e: that x the grid. The training draw is preferred
// to the board power where the file has one; no power figure means no estimate, not zero.
TEST(Energy, PowerTimesTimeTimesPueAndTheGridGivesCo2e) {
  core::hw::DeviceSpec d;
  d.id = "lab";
  EXPECT_FALSE(energyFor(d, 1, 3600, {}).known);
  d.boardPowerWatts = 700;
  const Energy board = energyFor(d, 8, 3600, {1.5, 0.4, "", ""});
  EXPECT_TRUE(board.known);
  EXPECT_FALSE(board.typicalDraw);
  EXPECT_DOUBLE_EQ(board.watts, 5600);
  EXPECT_DOUBLE_EQ(board.kwh, 5.6 * 1.5);
  EXPECT_DOUBLE_EQ(board.co2eKg, 5.6 * 1.5 * 0.4);
  d.trainingPowerWatts = 600;
  EXPECT_TRUE(energyFor(d, 1, 3600, {}).typicalDraw);
  EXPECT_DOUBLE_EQ(energyFor(d, 1, 3600, {}).kwh, 0.6);
}

// The grid and PUE figures are data: strict, sourced, and every default names an entry.
TEST(Energy, TheGridFileIsReadStrictlyAndItsDefaultsResolve) {
  const EnergyCatalog shipped = loadEnergyCatalog(std::string(ACCELLAB_SOURCE_RESOURCES) + "/energy/grid.json");
  const EnergySettings s = shipped.settings();
  EXPECT_GE(s.pue, 1.0);
  EXPECT_GT(s.gridKgCo2ePerKwh, 0.0);
  for (const auto& r : shipped.regions) {
    EXPECT_FALSE(r.ref.empty()) << r.id;
    EXPECT_FALSE(r.date.empty()) << r.id;
  }
  EXPECT_NE(shipped.region("france"), nullptr);
  EXPECT_LT(shipped.region("france")->value, shipped.region("world")->value);
  try {
    shipped.settings("atlantis");
    FAIL() << "accepted";
  } catch (const core::util::Error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown region 'atlantis' (known: world"), std::string::npos) << e.what();
  }
  auto errorOf = [](const std::string& text) {
    try {
      parseEnergyCatalog(text, "/x/grid.json");
    } catch (const core::util::Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const std::string region = R"({"id": "x", "name": "X", "kg_co2e_per_kwh": 0.3, "source": {"ref": "r", "date": "2024"}})";
  const std::string pue = R"({"id": "p", "name": "P", "value": 1.2, "source": {"ref": "r", "date": "2024"}})";
  auto file = [&](const std::string& r, const std::string& p, const std::string& def = "x") {
    return R"({"default_region": ")" + def + R"(", "default_pue": "p", "regions": [)" + r + R"(], "pue": [)" + p + "]}";
  };
  EXPECT_EQ(errorOf(file(region, pue)), "");
  EXPECT_NE(errorOf(file(region, pue, "y")).find("default_region"), std::string::npos);
  std::string hot = region;
  hot.replace(hot.find("0.3"), 3, "30");
  EXPECT_NE(errorOf(file(hot, pue)).find("kg_co2e_per_kwh"), std::string::npos) << errorOf(file(hot, pue));
  std::string unsourced = pue;
  unsourced.replace(unsourced.find(R"("ref": "r")"), 10, R"("ref": "")");
  EXPECT_NE(errorOf(file(region, unsourced)).find("source"), std::string::npos) << errorOf(file(region, unsourced));
  std::string typo = region;
  typo.replace(typo.find("\"name\""), 6, "\"nmae\"");
  EXPECT_NE(errorOf(file(typo, pue)).find("regions[0].name: missing"), std::string::npos) << errorOf(file(typo, pue));
  std::string extra = region;
  extra.replace(extra.find("\"name\""), 6, "\"note\": \"n\", \"name\"");
  EXPECT_NE(errorOf(file(extra, pue)).find("note"), std::string::npos) << errorOf(file(extra, pue));
}

TEST(Optimizer, UpdateTrafficScalesWithParametersAndTheStacksFusion) {
  core::sim::Workload w;
  w.params = 60'000'000;
  w.paramTensors = 2;
  // V100 (TF 1.7 tf.train): one fused Adam kernel, 28 bytes per parameter at the effective bandwidth.
  const ExecutionUnit v100 = simtest::unit("v100", Precision::FP32, 0, "tf-tuned-2018");
  const LayerTime fused = optimizerTime(w, v100);
  EXPECT_GT(fused.memory, 0);
  EXPECT_NEAR(fused.memory, kFusedAdamBytesPerParam * 60e6 / v100.memBytesPerSecond, 1e-6);
  // Twice the parameters: twice the traffic (a memory-bound sweep over the whole table).
  core::sim::Workload w2 = w;
  w2.params *= 2;
  EXPECT_NEAR(optimizerTime(w2, v100).memory, 2 * fused.memory, 1e-9);
  // K80 (Keras 2 on TF 1.2): the update is separate elementwise ops, several times the bytes.
  const ExecutionUnit k80 = simtest::unit("k80", Precision::FP32, 0, "keras-2017");
  EXPECT_GT(k80.optimizerBytesPerParam, 3 * kFusedAdamBytesPerParam);
  EXPECT_NEAR(optimizerTime(w, k80).memory, k80.optimizerBytesPerParam * 60e6 / k80.memBytesPerSecond, 1e-6);
  // XLA on a TPU fuses the update whatever the framework wrote.
  const ExecutionUnit tpu = simtest::unit("tpu-v2-8", Precision::BF16, 0, "keras-2017");
  const LayerTime t = optimizerTime(w, tpu);
  EXPECT_NEAR(t.memory + t.compute, kFusedAdamBytesPerParam * 60e6 / (tpu.memBytesPerSecond / tpu.replicas), 1e-3);
}

TEST(Optimizer, BigramFasttextIsMemoryBoundOnItsEmbeddingTable) {
  // minimaxir's imdb_fasttext (ngram_range 2): ~61 M parameters, almost no arithmetic.
  const auto w = simtest::simulator().workload("fasttext", "imdb");
  EXPECT_GT(w->params, 50'000'000);
  const SimReport r = simtest::simulator().simulate(simtest::config("fasttext", "imdb", "k80", 32));
  EXPECT_EQ(r.bound, Bound::Memory);
  EXPECT_GT(r.breakdown.memorySeconds, 10 * r.breakdown.computeSeconds);
}
