#pragma once
// JSON for the simulator's answers and the catalog, as the CLI prints them (the key names are
// the contract of `accellab-cli simulate`, `sweep` and `devices`).
#include "core/hw/device_spec.h"
#include "core/sim/sim_report.h"
#include "core/util/json.h"

namespace app::cli {

core::util::Json reportJson(const core::sim::SimReport& r);
core::util::Json deviceJson(const core::hw::DeviceSpec& d);

}  // namespace app::cli
