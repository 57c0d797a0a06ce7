#pragma once
// JSON for the catalog as `accellab-cli devices` prints it (its key names are that command's
// contract). A simulator's answer is core::sim::simReportToJson, shared with the run history.
#include "core/hw/device_spec.h"
#include "core/sim/sim_report.h"
#include "core/util/json.h"

namespace app::cli {

core::util::Json deviceJson(const core::hw::DeviceSpec& d);

}  // namespace app::cli
