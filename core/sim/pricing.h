#pragma once
// Price of a configuration: a device file's USD/hour is per unit (GPU die, TPU board, vCPU),
// so the configuration pays it per device (or per vCPU) in use. The user may type the rate
// they actually pay (a reservation, a negotiated rate, their own cluster's cost); it replaces
// the file's and is labelled as theirs everywhere it is shown.
#include <optional>
#include <string>

#include "core/hw/device_spec.h"
#include "core/util/name_table.h"

namespace core::sim {

enum class PriceKind { OnDemand, Preemptible, User };
inline constexpr util::NameTable<PriceKind, 3> kPriceKindLabels{
    {{{PriceKind::OnDemand, "on-demand"}, {PriceKind::Preemptible, "preemptible"}, {PriceKind::User, "user"}}}};

struct Price {
  double usdPerHour = 0;      // the whole configuration; 0 when not known
  bool known = false;
  PriceKind kind = PriceKind::OnDemand;
  // Of a catalog price ("neocloud", "2025-06"); empty for the user's. No on-demand price: the
  // date the device file says none was public (the date, no seller).
  std::string seller, date;
};

// The user's own rate when given (per device, per vCPU on a scalable CPU); otherwise
// preemptible (spot) when asked and known, else on-demand. Unknown = {0, false}.
Price priceFor(const hw::DeviceSpec& d, int count, int vcpus, bool preemptible,
               std::optional<double> userUsdPerHour = std::nullopt);

// The range of a price the user gives, $/h per device: typed (checkUserPrice) and read back from
// an experiment, a study or a report (the same bounds, so what is written reads back).
inline constexpr double kMinUserUsdPerHour = 1e-4, kMaxUserUsdPerHour = 1e5;
// Throws core::util::Error naming `what` when a typed rate is not finite and in that range.
void checkUserPrice(double usdPerHour, const std::string& what);

double usdPerMillionImages(double usdPerHour, double imagesPerSecond);

// A price that is not known, in words: "no price (none found as of 2026-11)" where the device
// file dates the search (Price::date of an unknown price), else "no price".
std::string noPriceText(const std::string& priceDate);

}  // namespace core::sim
