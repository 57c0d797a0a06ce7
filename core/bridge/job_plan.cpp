#include "core/bridge/job_plan.h"

#include <cmath>
#include <sstream>

#include "core/sim/simulator.h"

namespace core::bridge {
namespace {

std::string gib(double bytes) {
  std::ostringstream s;
  s.precision(3);
  s << bytes / (1024.0 * 1024.0 * 1024.0) << " GiB";
  return s.str();
}

}  // namespace

void chooseStrategy(ExportRequest& r, const hw::DeviceCatalog& devices, const hw::StackCatalog& stacks) {
  const sim::Simulator sim(devices, stacks);
  sim::SimConfig c;
  c.modelId = r.train.modelId;
  c.datasetId = r.train.datasetId;
  c.deviceId = r.deviceId;
  c.count = r.count;
  c.batch = r.train.batch;
  c.precision = r.train.precision;
  c.perLayer = false;
  const sim::SimReport report = sim.simulate(c);
  const std::string use = gib(report.memoryBytesPerDevice) + " of " + gib(report.memoryCapacityBytes);
  if (report.fitsInMemory) {
    r.strategy = "ddp";
    r.strategyReason = "the simulator's plan: DDP, the model fits one " + r.deviceId + " (" + use + " per device)";
  } else {
    r.strategy = "fsdp";
    r.strategyReason = "the simulator's plan: FSDP, data parallel does not fit one " + r.deviceId + " (" + use +
                       " per device), so weights, gradients and optimizer state are sharded";
  }
}

}  // namespace core::bridge
