// simulateWorkload(): the configuration checks, the step model, epochs, memory, price, and the
// facts the sentence that says what binds is written from (core/sim/explanation).
#include <algorithm>
#include <cmath>

#include "core/hw/stack_catalog.h"
#include "core/sim/execution_unit.h"
#include "core/sim/explanation.h"
#include "core/sim/memory_model.h"
#include "core/sim/pricing.h"
#include "core/sim/run_cost.h"
#include "core/sim/simulator.h"
#include "core/sim/step_model.h"
#include "core/util/error.h"

namespace core::sim {
namespace {

void checkConfig(const SimConfig& c, const hw::DeviceSpec& d) {
  auto bad = [](const std::string& field, const std::string& what) { throw util::FieldError(field, what); };
  if (c.batch < 1) bad("batch", std::to_string(c.batch) + " must be at least 1");
  if (c.count < 1) bad("count", std::to_string(c.count) + " must be at least 1");
  if (c.epochs < 1) bad("epochs", std::to_string(c.epochs) + " must be at least 1");
  if (c.vcpus < 0) bad("vcpus", std::to_string(c.vcpus) + " must not be negative");
  if (c.stepsPerEpoch < 0) bad("steps_per_epoch", "must not be negative");
  if (c.batch % c.count != 0)
    bad("batch", std::to_string(c.batch) + " is not divisible by the device count " + std::to_string(c.count) +
                     " (synchronous data parallel splits the global batch evenly)");
  if (c.count > 1 && !d.interconnectGBps)
    bad("count", "device '" + d.id + "' has no interconnect_gbps, so it cannot run data parallel over " +
                       std::to_string(c.count) + " devices");
}

}  // namespace

SimReport simulateWorkload(const Workload& w, const hw::DeviceSpec& d, const hw::StackSpec& stack, const SimConfig& c) {
  checkConfig(c, d);
  hw::requireStackCovers(stack, d);
  const ExecutionUnit u = resolveUnit(d, hw::figuresFor(stack, d), c);
  SimReport r;
  r.config = c;
  r.config.stackId = stack.id;
  r.stackName = d.measured ? "AccelLab engine (measured)" : stack.name;
  r.deviceName = d.name;
  r.vcpus = u.vcpus;
  r.precisionNote = u.precisionNote;
  r.peakPrecision = u.peakPrecision;
  r.perDeviceBatch = c.batch / c.count;
  const int replicas = std::max(1, u.replicas);
  // A replica's share rounds up: XLA pads the per-core batch.
  const double perReplica = std::ceil(static_cast<double>(r.perDeviceBatch) / replicas);
  const StepEstimate s = estimateStep(w, u, perReplica * replicas, c.count, c.perLayer);

  r.stepSeconds = s.stepSeconds;
  r.breakdown = s.breakdown();
  r.bound = s.bound();
  r.imagesPerSecond = c.batch / s.stepSeconds;

  const MemoryEstimate mem = replicaMemory(w, perReplica, u.activationBytes, 0.0, u.fusesElementwise);
  r.memoryBytesPerDevice = mem.total() * replicas + u.reserveBytes;
  r.memoryCapacityBytes = u.memCapacityBytes;
  r.fitsInMemory = r.memoryBytesPerDevice <= r.memoryCapacityBytes;

  const Price price = priceFor(d, c.count, u.vcpus, c.preemptible, c.userUsdPerHour);
  r.priceKnown = price.known;
  r.priceKind = price.kind;
  r.priceSeller = price.seller;
  r.priceDate = price.date;
  r.usdPerHour = price.usdPerHour;
  applyRunCost(r, {w.feed.trainSize, w.feed.testSize, s.evalStepSeconds, firstEpochExtraSeconds(w, u)}, d, c.count);

  r.size.params = w.params + w.nonTrainableParams;
  r.size.trainableParams = w.params;
  r.size.forwardFlopsPerSample = w.productFlops;
  r.peakTflops = u.peakTflopsNominal;
  r.achievedTflops = s.flopsPerDevice / s.stepSeconds / 1e12;
  r.utilization = r.peakTflops > 0 ? r.achievedTflops / r.peakTflops : 0.0;
  r.layers = s.layers;
  StepFacts facts;
  facts.deviceSeconds = s.deviceSeconds;
  facts.memBytesPerSecond = u.memBytesPerSecond;
  facts.systolic = u.systolic;
  facts.dispatches = s.ops;
  for (const auto& l : w.layers) facts.recurrent = facts.recurrent || l.isRecurrent();
  facts.hostVcpus = u.hostVcpus;
  facts.gradientBytes = 4.0 * static_cast<double>(w.params);
  facts.nchwTransposes = u.nchwTransposes;
  r.explanation = explainStep(r, facts);
  return r;
}

}  // namespace core::sim
