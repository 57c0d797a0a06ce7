// simulateWorkload(): the configuration checks, the step model, epochs, memory, price, and the
// sentence that says what binds.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/hw/stack_catalog.h"
#include "core/sim/execution_unit.h"
#include "core/sim/memory_model.h"
#include "core/sim/pricing.h"
#include "core/sim/run_cost.h"
#include "core/sim/simulator.h"
#include "core/sim/step_model.h"
#include "core/util/error.h"
#include "core/util/json.h"
#include "core/util/numbers.h"
#include "core/util/units.h"

namespace core::sim {
namespace {

using util::Error;

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

std::string pct(double x) { return util::percentText(x); }
std::string num(double x, int digits = 3) { return util::explainedNumber(x, digits); }

std::string explain(const SimReport& r, const StepEstimate& s, const ExecutionUnit& u, const Workload& w) {
  const StepBreakdown& b = r.breakdown;
  const double device = s.deviceSeconds;
  std::string out;
  switch (r.bound) {
    case Bound::Compute:
      out = "Compute binds: " + pct(b.computeSeconds / device) + " of the " + num(r.stepSeconds) +
            " s step is arithmetic, at " + pct(r.utilization) + " of the " + num(r.peakTflops) + " TFLOP/s " +
            util::precisionName(r.config.precision) + " peak (per-device batch " + std::to_string(r.perDeviceBatch) +
            (u.systolic ? ": the 128x128 MXU idles on narrow layers and short per-core batches)."
                        : ": small or narrow GEMMs leave the units partly idle).");
      break;
    case Bound::Memory:
      out = "Memory bandwidth binds: " + pct(b.memorySeconds / device) + " of the " + num(r.stepSeconds) +
            " s step moves activations, weights and optimizer state at " +
            num(u.memBytesPerSecond / 1e9) + " GB/s effective.";
      break;
    case Bound::Overhead: {
      bool recurrent = false;
      for (const auto& l : w.layers) recurrent = recurrent || l.isRecurrent();
      out = "Fixed overheads bind: " + pct(b.overheadSeconds / device) + " of the " + num(r.stepSeconds) +
            " s step is per-step framework work and " + std::to_string(s.ops) + " op dispatches" +
            (recurrent ? " (recurrent layers serialise over their time steps, each step its own small ops)"
                       : "") +
            ", which the device cannot hide at per-device batch " + std::to_string(r.perDeviceBatch) + ".";
      break;
    }
    case Bound::Input:
      out = "The input pipeline binds: " + std::to_string(u.hostVcpus) + " host vCPUs per device need " +
            num(b.inputSeconds) + " s to prepare and send each batch, longer than the device's " + num(device) +
            " s step.";
      break;
    case Bound::Communication:
      out = "Communication binds: the ring all-reduce of " + num(4.0 * static_cast<double>(w.params) / 1e6) +
            " MB of gradients over " + std::to_string(r.config.count) + " devices leaves " +
            num(b.communicationSeconds) + " s per step not hidden behind the backward pass.";
      break;
  }
  if (!r.fitsInMemory)
    out += " It does not fit: it needs " + num(r.memoryBytesPerDevice / util::kBytesPerGib) + " GiB per device of " +
           num(r.memoryCapacityBytes / util::kBytesPerGib) + " GiB.";
  if (!r.precisionNote.empty()) out += " Note: " + r.precisionNote + ".";
  out += " Software: " + r.stackName + ".";
  if (u.nchwTransposes)
    out += " Activations in NCHW: each convolution's tensors are transposed to and from the NHWC layout the tensor "
           "cores want (channels_last would save that traffic).";
  return out;
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
  r.size.forwardFlopsPerSample = w.forwardFlops;
  r.peakTflops = u.peakTflopsNominal;
  r.achievedTflops = s.flopsPerDevice / s.stepSeconds / 1e12;
  r.utilization = r.peakTflops > 0 ? r.achievedTflops / r.peakTflops : 0.0;
  r.layers = s.layers;
  r.explanation = explain(r, s, u, w);
  return r;
}

}  // namespace core::sim
