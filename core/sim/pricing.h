#pragma once
// Price of a configuration: a device file's USD/hour is per unit (GPU die, TPU board, vCPU),
// so the configuration pays it per device (or per vCPU) in use.
#include "core/hw/device_spec.h"

namespace core::sim {

struct Price {
  double usdPerHour = 0;
  bool known = false;
};

// Preemptible (spot) when asked and known; otherwise on-demand. Unknown = {0, false}.
Price priceFor(const hw::DeviceSpec& d, int count, int vcpus, bool preemptible);

double usdPerMillionImages(double usdPerHour, double imagesPerSecond);

}  // namespace core::sim
