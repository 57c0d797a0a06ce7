#pragma once
// Energy and CO2e of a configuration, as estimates beside its cost: the devices' power (the
// typical training draw where one is published, else the board power, an upper bound) times
// the time, times the data centre's PUE; CO2e = that energy x the grid's carbon intensity.
// The PUE and grid figures are data with sources (resources/energy/grid.json); the host CPUs,
// network and storage are not counted, which the label says.
#include <optional>
#include <string>
#include <vector>

#include <functional>

#include "core/hw/device_spec.h"
#include "core/util/json.h"

namespace core::sim {

struct EnergySettings {
  double pue = 1.0;                   // facility energy / IT energy
  double gridKgCo2ePerKwh = 0;        // 0 = no CO2e figure
  std::string pueId, regionId;        // what they were chosen as ("industry-average", "world")
};

struct Energy {
  bool known = false;        // false: the device file has no power figure (CPUs per vCPU, ...)
  bool typicalDraw = false;  // the figure was a measured training draw, not the board power
  double watts = 0;          // all devices, IT power (before PUE)
  double kwh = 0;            // over the seconds given, with PUE
  double co2eKg = 0;         // 0 when the settings carry no grid intensity
};

// `count` devices for `seconds`. Unknown power = {known: false}.
Energy energyFor(const hw::DeviceSpec& d, int count, double seconds, const EnergySettings& s);

// The "energy" object of a report's JSON (power, what it came from, PUE, grid; "estimate":
// true); `num` rounds figures as the report does. The report sets energy_kwh and co2e_kg
// beside it, null when unknown.
util::Json energyToJson(const Energy& e, const EnergySettings& s, const std::function<util::Json(double)>& num);

// One grid region or PUE choice of resources/energy/grid.json, with its source.
struct EnergyFigure {
  std::string id, name;
  double value = 0;          // kg CO2e per kWh (regions) or the PUE (pue)
  std::string ref, date;
};

struct EnergyCatalog {
  std::vector<EnergyFigure> regions, pues;
  std::string defaultRegion, defaultPue;
  const EnergyFigure* region(const std::string& id) const;
  const EnergyFigure* pue(const std::string& id) const;
  // The settings for a region and PUE id ("" = the file's defaults); throws core::util::Error
  // naming the unknown id and the known ones.
  EnergySettings settings(const std::string& regionId = "", const std::string& pueId = "") const;
};

// Reads and validates grid.json strictly (unknown keys, figures outside their range, missing
// sources and defaults that name nothing are errors naming the file and the key).
EnergyCatalog parseEnergyCatalog(const std::string& text, const std::string& path);
EnergyCatalog loadEnergyCatalog(const std::string& path);
EnergyCatalog loadDefaultEnergyCatalog();  // resources/energy/grid.json

}  // namespace core::sim
