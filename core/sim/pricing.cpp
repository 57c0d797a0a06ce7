#include "core/sim/pricing.h"

namespace core::sim {

Price priceFor(const hw::DeviceSpec& d, int count, int vcpus, bool preemptible) {
  const std::optional<double>& rate = preemptible ? d.usdPerHourPreemptible : d.usdPerHourOnDemand;
  if (!rate) return {};
  const double units = d.kind == hw::DeviceKind::Cpu ? static_cast<double>(vcpus) * count : count;
  return {*rate * units, true};
}

double usdPerMillionImages(double usdPerHour, double imagesPerSecond) {
  if (imagesPerSecond <= 0) return 0.0;
  return usdPerHour / 3600.0 / imagesPerSecond * 1e6;
}

}  // namespace core::sim
