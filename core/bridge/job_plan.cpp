#include "core/bridge/job_plan.h"

#include <cmath>
#include <sstream>

#include "core/experiment/sim_config.h"
#include "core/sim/simulator.h"
#include "core/util/units.h"

namespace core::bridge {
namespace {

std::string gib(double bytes) {
  std::ostringstream s;
  s.precision(3);
  s << bytes / util::kBytesPerGib << " GiB";
  return s.str();
}

}  // namespace

void chooseStrategy(ExportRequest& r, const hw::DeviceCatalog& devices, const hw::StackCatalog& stacks) {
  const sim::Simulator sim(devices, stacks);
  // The one mapping; the exported job runs at the experiment's precision (a choice: PyTorch
  // does what the script says), with whole-dataset epochs.
  experiment::TrainConfig train = r.train;
  train.limit = 0;
  experiment::DeviceChoice choice;
  choice.deviceId = r.deviceId;
  choice.count = r.count;
  choice.precision = r.train.precision;
  sim::SimConfig c = experiment::simConfigFor(train, choice, devices.find(r.deviceId));
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
