#include "core/sim/transformer_run.h"

#include <algorithm>
#include <cmath>

#include "core/data/dataset_info.h"
#include "core/sim/execution_unit.h"
#include "core/sim/llm_simulator.h"
#include "core/sim/pricing.h"
#include "core/util/error.h"

namespace core::sim {

namespace {

void checkDataset(const nn::TransformerSpec& spec, const data::DatasetInfo& info) {
  const bool tokens = info.format == data::SampleFormat::TokenIds;
  if (spec.kind == nn::TransformerKind::Vision ? tokens : !tokens)
    throw util::Error("dataset: " + spec.id + " reads " +
                      (spec.kind == nn::TransformerKind::Vision ? "images" : "token sequences (a text dataset)") +
                      ", not '" + info.id + "'");
}

// Operations the compiler sees: one block's ops once per layer, the rest once.
std::int64_t compiledOps(const LlmReport& r, int layers) {
  std::int64_t block = 0, other = 0;
  for (const auto& op : r.ops) (op.name.rfind("block/", 0) == 0 ? block : other) += 1;
  return block * layers + other;
}

}  // namespace

void requireTransformerDataset(const nn::TransformerSpec& spec, const std::string& datasetId) {
  checkDataset(spec, data::datasetInfo(datasetId));
}

SimReport simulateTransformerRun(const nn::TransformerSpec& spec, const hw::DeviceSpec& device,
                                 const hw::StackSpec& stack, const SimConfig& c) {
  const data::DatasetInfo& info = data::datasetInfo(c.datasetId);
  checkDataset(spec, info);
  if (c.epochs < 1) throw util::Error("epochs: must be at least 1, not " + std::to_string(c.epochs));
  LlmConfig lc;
  lc.modelId = spec.id;
  lc.deviceId = device.id;
  lc.stackId = stack.id;
  lc.count = c.vcpus > 0 ? 1 : c.count;
  lc.batch = c.batch;
  lc.precision = c.precision;
  lc.preemptible = c.preemptible;
  lc.userUsdPerHour = c.userUsdPerHour;
  lc.energy = c.energy;
  lc.perOp = true;  // the op list also counts what a compiler compiles
  LlmReport l;
  try {
    l = simulateLlm(lc, device, stack);
  } catch (const util::Error& e) {
    // The LLM simulator speaks the CLI's flags ("--device: ..."); a run names its fields.
    const std::string what = e.what();
    throw util::Error(what.rfind("--", 0) == 0 ? what.substr(2) : what);
  }

  SimReport r;
  r.config = c;
  r.config.stackId = stack.id;
  r.deviceName = l.deviceName;
  r.stackName = device.measured ? "AccelLab engine (measured)" : l.stackName;
  r.precisionNote = l.precisionNote;
  r.tokensPerSample = spec.tokensPerSample(l.seqLen);
  r.size = l.size;
  r.perDeviceBatch = c.batch / std::max(1, lc.count);
  r.stepSeconds = l.stepSeconds;
  r.breakdown = l.breakdown;
  r.bound = l.bound;
  r.imagesPerSecond = l.samplesPerSecond;
  r.stepsPerEpoch = c.stepsPerEpoch > 0 ? c.stepsPerEpoch : (std::max<std::int64_t>(1, info.trainSize) + c.batch - 1) / c.batch;
  r.epochSeconds = static_cast<double>(r.stepsPerEpoch) * r.stepSeconds;
  // The first epoch's extra (graph build, XLA compile, warm-up): the stack's figures, per
  // operation the model's layers make, as for every other model.
  const ExecutionUnit u = resolveUnit(device, hw::figuresFor(stack, device), c);
  r.compileSeconds = u.compileSeconds + u.compileSecondsPerLayer * static_cast<double>(compiledOps(l, spec.layers));
  r.firstEpochSeconds = r.epochSeconds + r.compileSeconds;
  r.runSeconds = r.firstEpochSeconds + (c.epochs - 1) * r.epochSeconds;
  r.memoryBytesPerDevice = l.memory.total();
  r.memoryCapacityBytes = l.memoryCapacityBytes;
  r.fitsInMemory = l.fitsInMemory;
  r.priceKnown = l.priceKnown;
  r.priceKind = l.priceKind;
  r.priceSeller = l.priceSeller;
  r.priceDate = l.priceDate;
  r.usdPerHour = l.usdPerHour;
  r.usdPerMillionImages = usdPerMillionImages(l.usdPerHour, r.imagesPerSecond);
  r.usdPerRun = l.usdPerHour * r.runSeconds / 3600.0;
  r.energy = energyFor(device, lc.count, r.runSeconds, c.energy);
  r.peakTflops = l.peakTflopsPerChip;
  r.utilization = l.mfu;
  r.achievedTflops = l.mfu * l.peakTflopsPerChip;
  r.layers = l.ops;
  r.explanation = l.explanation;
  return r;
}

}  // namespace core::sim
