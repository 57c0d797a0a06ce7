#include "core/sim/transformer_run.h"

#include <algorithm>
#include <cmath>

#include "core/data/dataset_info.h"
#include "core/sim/device_rates.h"
#include "core/sim/run_cost.h"
#include "core/sim/llm_simulator.h"
#include "core/util/error.h"

namespace core::sim {

namespace {

void checkDataset(const nn::TransformerSpec& spec, const data::DatasetInfo& info) {
  const bool tokens = info.format == data::SampleFormat::TokenIds;
  if (spec.kind == nn::TransformerKind::Vision ? tokens : !tokens)
    throw util::FieldError("dataset", spec.id + " reads " +
                                          (spec.kind == nn::TransformerKind::Vision ? "images"
                                                                                    : "token sequences (a text dataset)") +
                                          ", not '" + info.id + "'");
}

// Operations the compiler sees: one block's ops once per layer, the rest once.
std::int64_t compiledOps(const SimReport& r, int layers) {
  std::int64_t block = 0, other = 0;
  for (const auto& op : r.layers) (op.name.rfind("block/", 0) == 0 ? block : other) += 1;
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
  if (c.epochs < 1) throw util::FieldError("epochs", "must be at least 1, not " + std::to_string(c.epochs));
  SimConfig lc = c;
  lc.modelId = spec.id;
  lc.count = c.count;  // on a CPU: its processes (the app's set-ups run one)
  lc.perLayer = true;  // the op list also counts what a compiler compiles
  SimReport r = simulateLlm(lc, device, stack);
  r.config = c;
  r.config.stackId = stack.id;
  if (device.measured) r.stackName = "AccelLab engine (measured)";
  // The first epoch's extra (graph build, XLA compile, warm-up): the stack's figures, per
  // operation the model's layers make, as for every other model.
  const DeviceRates rates = resolveDeviceRates(device, hw::figuresFor(stack, device), c.precision);
  const double compile =
      rates.compileSeconds + rates.compileSecondsPerLayer * static_cast<double>(compiledOps(r, spec.layers));
  applyRunCost(r, {info.trainSize, info.testSize, r.llm->evalStepSeconds, compile}, device,
               machinesOf(device, lc.count));
  r.llm->energyBasis = EnergyBasis::Run;
  return r;
}

}  // namespace core::sim
