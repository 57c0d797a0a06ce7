// A transformer's run read through the LLM step: the app's char-gpt and vit-tiny runs on an
// accelerator, and LLM runs on CPUs (processes sharing one machine, bf16 without units, dispatch).
#include <gtest/gtest.h>

#include "core/nn/transformer_spec.h"
#include "core/sim/llm_simulator.h"
#include "core/util/error.h"
#include "sim_test_support.h"

using namespace core::sim;
using core::nn::transformerSpec;
using core::util::Precision;
using simtest::device;
using simtest::plan;
using simtest::stack;

// The app's runs of a transformer (char-gpt on fortunes, vit-tiny on Fashion-MNIST) go through
// the same LLM step, read as a training run: samples per second, epochs, the first epoch's
// compilation and a price per sample.
TEST(TransformerRun, SimulatorReadsTheLlmStepAsARun) {
  core::sim::SimConfig c = simtest::config("char-gpt", "fortunes", "a100", 32, Precision::BF16);
  c.epochs = 3;
  c.stepsPerEpoch = 250;
  const SimReport r = simtest::simulator().simulate(c);
  SimConfig lc = simtest::llmConfig();
  lc.modelId = "char-gpt";
  lc.deviceId = "a100";
  lc.batch = 32;
  lc.precision = Precision::BF16;
  const SimReport l = simulateLlm(lc, device("a100"), simtest::stacks().defaultFor(device("a100").kind));
  EXPECT_DOUBLE_EQ(r.stepSeconds, l.stepSeconds);
  EXPECT_EQ(r.tokensPerSample, 128);
  EXPECT_NEAR(r.imagesPerSecond * r.tokensPerSample, l.llm->tokensPerSecond, 1e-6 * l.llm->tokensPerSecond);
  EXPECT_EQ(r.stepsPerEpoch, 250);
  EXPECT_DOUBLE_EQ(r.epochSeconds, 250 * r.stepSeconds);
  EXPECT_DOUBLE_EQ(r.runSeconds, r.firstEpochSeconds + 2 * r.epochSeconds);
  EXPECT_TRUE(r.priceKnown);
  EXPECT_NEAR(r.usdPerMillionImages, r.usdPerHour / 3600.0 / r.imagesPerSecond * 1e6, 1e-9 * r.usdPerMillionImages);
  EXPECT_FALSE(r.layers.empty());
  EXPECT_FALSE(r.explanation.empty());

  // A TPU compiles: its first epoch is longer by the stack's compile figures.
  const SimReport tpu = simtest::simulator().simulate(simtest::config("char-gpt", "fortunes", "tpu-v3-8", 32, Precision::BF16));
  EXPECT_GT(tpu.compileSeconds, 0.0);
  EXPECT_DOUBLE_EQ(tpu.firstEpochSeconds, tpu.epochSeconds + tpu.compileSeconds);

  // A ViT reads images: 7x7 patches of 4x4 and a class token.
  const SimReport vit = simtest::simulator().simulate(simtest::config("vit-tiny", "fashion-mnist", "t4", 128, Precision::FP16));
  EXPECT_EQ(vit.tokensPerSample, 50);
  EXPECT_EQ(vit.stepsPerEpoch, (60000 + 127) / 128);
}

// A transformer run evaluates like any other run (core/sim/run_cost): with evaluation each
// epoch, a forward pass over the test split joins every epoch; without it, none does.
TEST(TransformerRun, EvaluationPassJoinsTheEpochLikeAnyOtherRun) {
  core::sim::SimConfig c = simtest::config("vit-tiny", "fashion-mnist", "a100", 128, Precision::BF16);
  const SimReport plain = simtest::simulator().simulate(c);
  c.evalEachEpoch = true;
  const SimReport eval = simtest::simulator().simulate(c);
  // 10,000 test images in 79 batches, each a forward pass alone: more than none, less than
  // the training steps' forward and backward (this small model is launch-bound: its forward
  // launches about half the step's kernels).
  EXPECT_GT(eval.evalSecondsPerEpoch, 0.0);
  EXPECT_LT(eval.evalSecondsPerEpoch, 79 * eval.stepSeconds * 0.8);
  EXPECT_GT(eval.evalSecondsPerEpoch, 79 * eval.stepSeconds * 0.15);
  EXPECT_DOUBLE_EQ(plain.evalSecondsPerEpoch, eval.evalSecondsPerEpoch);  // reported either way
  EXPECT_DOUBLE_EQ(plain.epochSeconds, plain.stepsPerEpoch * plain.stepSeconds);
  EXPECT_DOUBLE_EQ(eval.epochSeconds, plain.epochSeconds + eval.evalSecondsPerEpoch);
  EXPECT_GT(eval.usdPerRun, plain.usdPerRun);
  // The CNN path follows the same rule.
  core::sim::SimConfig cnn = simtest::config("lenet5", "fashion-mnist", "a100", 128, Precision::BF16);
  const SimReport cnnPlain = simtest::simulator().simulate(cnn);
  cnn.evalEachEpoch = true;
  const SimReport cnnEval = simtest::simulator().simulate(cnn);
  EXPECT_DOUBLE_EQ(cnnEval.epochSeconds, cnnPlain.epochSeconds + cnnEval.evalSecondsPerEpoch);
}

TEST(TransformerRun, WrongKindOfDatasetNamesIt) {
  try {
    simtest::simulator().simulate(simtest::config("char-gpt", "fashion-mnist", "a100", 32, Precision::BF16));
    FAIL() << "a language model on images was simulated";
  } catch (const core::util::Error& e) {
    EXPECT_NE(std::string(e.what()).find("fashion-mnist"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("token sequences"), std::string::npos) << e.what();
  }
  EXPECT_THROW(simtest::simulator().simulate(simtest::config("vit-tiny", "fortunes", "a100", 32)), core::util::Error);
}

// A transformer on a CPU: the same step model, with the CPU's ranks sharing one machine.
namespace {

SimConfig onCpu(const std::string& model, int batch, int count, int vcpus) {
  SimConfig c = simtest::llmConfig();
  c.modelId = model;
  c.deviceId = "cpu-skylake";
  c.precision = Precision::FP32;
  c.batch = batch;
  c.count = count;
  c.vcpus = vcpus;
  c.llm.plan = plan(count, 1, 1, 0, Recompute::None, batch / count);
  return c;
}

SimReport eagerOnCpu(const SimConfig& c) { return simulateLlm(c, device("cpu-skylake"), stack("pytorch-eager")); }

}  // namespace

// torchrun's processes on one CPU split its vCPUs, bandwidth and RAM; the machine is priced once.
TEST(LlmCpu, ProcessesShareOneMachine) {
  const auto& d = device("cpu-skylake");
  const auto sw = core::hw::figuresFor(stack("pytorch-eager"), d);
  CpuRanks one, two;
  one.vcpus = two.vcpus = 8;
  two.ranks = 2;
  const LlmUnit a = resolveLlmUnit(d, sw, Precision::FP32, one), b = resolveLlmUnit(d, sw, Precision::FP32, two);
  EXPECT_EQ(a.vcpus, 8);
  EXPECT_EQ(b.vcpus, 4);
  EXPECT_DOUBLE_EQ(a.peakFlops, 2 * b.peakFlops);
  EXPECT_DOUBLE_EQ(a.memBytesPerSecond, 2 * b.memBytesPerSecond);
  EXPECT_DOUBLE_EQ(a.capacityBytes, 2 * b.capacityBytes);
  EXPECT_NEAR(a.peakFlops, 8 * 0.064e12, 1e3);  // the file's per-vCPU peak
  EXPECT_TRUE(a.inlineDispatch);
  EXPECT_GT(b.intraBytesPerSecond, 0.0);  // they reduce through the machine's memory

  const SimReport r1 = eagerOnCpu(onCpu("char-gpt", 16, 1, 8)), r2 = eagerOnCpu(onCpu("char-gpt", 16, 2, 8));
  EXPECT_EQ(r1.vcpus, 8);
  EXPECT_EQ(r2.vcpus, 8);
  EXPECT_DOUBLE_EQ(r1.usdPerHour, r2.usdPerHour);  // one machine either way
  EXPECT_NEAR(r1.usdPerHour, 8 * 0.0398, 1e-9);
  EXPECT_EQ(r1.llm->dpCommSeconds, 0.0);
  EXPECT_GT(r2.llm->dpCommSeconds, 0.0);
  // Half the work each on half the machine: about the same arithmetic time; each process
  // dispatches its own ops with fewer threads to wake, so the step is no slower than one
  // process's beyond the gradients' reduction.
  EXPECT_NEAR(r2.breakdown.computeSeconds, r1.breakdown.computeSeconds, 0.25 * r1.breakdown.computeSeconds);
  EXPECT_LT(r2.stepSeconds, r1.stepSeconds + r2.llm->dpCommSeconds);
  EXPECT_GT(r2.stepSeconds, 0.4 * r1.stepSeconds);

  // More processes than vCPUs (a run that was oversubscribed): each gets its fraction.
  CpuRanks crowded = two;
  crowded.ranks = 16;
  const LlmUnit c = resolveLlmUnit(d, sw, Precision::FP32, crowded);
  EXPECT_EQ(c.vcpus, 1);
  EXPECT_DOUBLE_EQ(c.peakFlops * 16, a.peakFlops);
  EXPECT_GT(eagerOnCpu(onCpu("char-gpt", 16, 16, 8)).stepSeconds, 0.0);
}

// bf16 on a CPU without bf16 units runs fp32 (the exported job drops to it): the same step and
// memory as fp32, never a faster one, and the report says so.
TEST(LlmCpu, Bf16WithoutUnitsIsAnFp32Run) {
  SimConfig fp32 = onCpu("char-gpt", 16, 1, 8), bf16 = fp32;
  bf16.precision = Precision::BF16;
  const SimReport a = eagerOnCpu(fp32), b = eagerOnCpu(bf16);
  EXPECT_DOUBLE_EQ(b.stepSeconds, a.stepSeconds);
  EXPECT_DOUBLE_EQ(b.memoryBytesPerDevice, a.memoryBytesPerDevice);
  EXPECT_EQ(b.peakPrecision, Precision::FP32);
  EXPECT_FALSE(b.precisionNote.empty());
}

// On a CPU the framework's per-op dispatch runs on the cores that compute: it adds to the step
// (a GPU's host queues kernels ahead and hides it behind long ones).
TEST(LlmCpu, DispatchAddsToTheStep) {
  const auto& d = device("cpu-skylake");
  CpuRanks r;
  r.vcpus = 8;
  LlmUnit u = resolveLlmUnit(d, core::hw::figuresFor(stack("pytorch-eager"), d), Precision::FP32, r);
  const TransformerWork w = makeTransformerWork(transformerSpec("gpt2-small"), 256, Finetune::Full, 0);
  const PlanCost inlineCost = costPlan(w, u, plan(1, 1, 1, 0), 4, false);
  EXPECT_GT(inlineCost.hostSeconds, 0.0);
  EXPECT_DOUBLE_EQ(inlineCost.exposedHostSeconds, inlineCost.hostSeconds);
  u.inlineDispatch = false;
  const PlanCost queued = costPlan(w, u, plan(1, 1, 1, 0), 4, false);
  EXPECT_NEAR(inlineCost.stepSeconds - queued.stepSeconds, inlineCost.hostSeconds - queued.exposedHostSeconds,
              1e-9 * inlineCost.stepSeconds);
}

// More vCPUs make a compute-bound model faster (not linearly: bandwidth per core, barriers).
TEST(LlmCpu, MoreVcpusTrainFasterAndTheRunReadsLikeAnyOther) {
  SimConfig c8 = onCpu("gpt2-small", 8, 1, 8), c32 = onCpu("gpt2-small", 8, 1, 32);
  c8.llm.seqLen = c32.llm.seqLen = 256;
  const SimReport small = eagerOnCpu(c8), big = eagerOnCpu(c32);
  EXPECT_LT(big.stepSeconds, small.stepSeconds);
  EXPECT_GT(big.stepSeconds, small.stepSeconds / 4.5);
  EXPECT_GT(small.utilization, 0.05);
  EXPECT_LT(small.utilization, 0.6);
  EXPECT_TRUE(small.fitsInMemory);  // in the 7.2 GiB of 8 vCPUs' RAM at 256 tokens
  c8.llm.seqLen = 1024;  // not at 1,024: the eager attention's scores and the fp32 logits
  EXPECT_FALSE(eagerOnCpu(c8).fitsInMemory);

  // The app's run of char-gpt on a CPU: epochs and a price, like the GPUs'.
  core::sim::SimConfig c = simtest::config("char-gpt", "fortunes", "cpu-skylake", 32, Precision::FP32);
  c.vcpus = 16;
  const SimReport run = simtest::simulator().simulate(c);
  EXPECT_GT(run.epochSeconds, 0.0);
  EXPECT_TRUE(run.priceKnown);
  EXPECT_NEAR(run.usdPerHour, 16 * 0.0398, 1e-9);
  EXPECT_FALSE(run.explanation.empty());
}
