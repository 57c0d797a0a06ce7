#pragma once
// CONTRACT: an experiment as the user set it up: what to train (TrainConfig), on which
// devices and under which software, and whether this machine trains for real. The app owns
// one; panels overlay the fields they show, controllers observe it, and presets, settings,
// run history, the CLI and exports read and write it through experiment_json.h.
#include <optional>
#include <string>
#include <vector>

#include "core/experiment/train_config.h"
#include "core/util/precision.h"

namespace core::experiment {

// One chosen device as the simulator needs it.
struct DeviceChoice {
  std::string deviceId;
  int count = 1;          // devices in synchronous data parallel (GPUs, TPU boards)
  int vcpus = 0;          // scalable CPUs only: vCPUs (0 = the device's default)
  double memoryGib = 0;   // scalable CPUs only: the VM's RAM, GiB (0 = the device's per-vCPU figure x vCPUs)
  bool preemptible = false;
  std::optional<double> userUsdPerHour;     // the user's own $/h per device (per vCPU on a CPU); nullopt = the catalog's
  std::optional<util::Precision> precision;  // nullopt = the run's precision
  std::string stackId;    // software stack (resources/stacks); empty = the experiment's
  friend bool operator==(const DeviceChoice&, const DeviceChoice&) = default;
};

struct Experiment {
  TrainConfig train;
  std::vector<DeviceChoice> devices;
  bool trainHere = true;        // false = simulate only
  std::string stackId;          // empty = each device kind's modern default
  std::string compareStackId;   // empty = no second stack
  std::string presetId;         // the preset it came from, if any
  friend bool operator==(const Experiment&, const Experiment&) = default;
};

// The stack a device runs under in this experiment: its own choice, else the experiment's
// (empty = the device kind's default, resolved by the stack catalog).
inline std::string stackFor(const Experiment& e, const DeviceChoice& d) {
  return d.stackId.empty() ? e.stackId : d.stackId;
}

}  // namespace core::experiment
