#include "core/sim/pricing.h"

#include "core/util/error.h"
#include "core/util/json.h"

namespace core::sim {

Price priceFor(const hw::DeviceSpec& d, int count, int vcpus, bool preemptible, std::optional<double> userUsdPerHour) {
  const double units = d.kind == hw::DeviceKind::Cpu ? static_cast<double>(vcpus) * count : count;
  if (userUsdPerHour) return {*userUsdPerHour * units, true, PriceKind::User, "", ""};
  const std::optional<double>& rate = preemptible ? d.usdPerHourPreemptible : d.usdPerHourOnDemand;
  if (!rate)  // a spot price missing beside an on-demand one is not "none found"
    return {0, false, preemptible ? PriceKind::Preemptible : PriceKind::OnDemand, "",
            d.usdPerHourOnDemand ? std::string() : d.priceDate};
  return {*rate * units, true, preemptible ? PriceKind::Preemptible : PriceKind::OnDemand,
          preemptible ? std::string("spot") : d.priceSeller, d.priceDate};
}

void checkUserPrice(double usdPerHour, const std::string& what) {
  if (!(usdPerHour >= kMinUserUsdPerHour && usdPerHour <= kMaxUserUsdPerHour))  // NaN fails too
    throw util::Error(what + ": " + util::formatNumber(usdPerHour) + " is not a price per device-hour in USD (from " +
                      util::formatNumber(kMinUserUsdPerHour) + " to " + util::formatNumber(kMaxUserUsdPerHour) + ")");
}

std::string noPriceText(const std::string& priceDate) {
  return priceDate.empty() ? "no price" : "no price (none found as of " + priceDate + ")";
}

double usdPerMillionImages(double usdPerHour, double imagesPerSecond) {
  if (imagesPerSecond <= 0) return 0.0;
  return usdPerHour / 3600.0 / imagesPerSecond * 1e6;
}

}  // namespace core::sim
