#pragma once
// Option parsing shared by the simulator subcommands (simulate, sweep, validate, devices).
#include <optional>
#include <ostream>
#include <string>

#include "app/cli/args.h"
#include "core/hw/device_catalog.h"
#include "core/hw/stack_catalog.h"
#include "core/sim/error_band.h"
#include "core/sim/sim_report.h"
#include "core/util/json.h"

namespace app::cli {

// The shipped and user device files; `withHost` adds the measured host (the micro-benchmark
// runs once per machine, then its cache is read). Files that failed go to `err` as warnings.
core::hw::DeviceCatalog loadSimCatalog(bool withHost, std::ostream& err, bool remeasureHost = false);

// The shipped and user stack files (resources/stacks); failures go to `err` as warnings.
core::hw::StackCatalog loadSimStacks(std::ostream& err);
// A stack id checked against the catalog, like deviceIdOption.
std::string stackIdOption(const std::string& option, const std::string& id, const core::hw::StackCatalog& stacks);
// --stack ID checked, or "" when absent (the device kind's default).
std::string stackIdOption(const Args& a, const core::hw::StackCatalog& stacks);

// Each throws core::util::Error naming the option. simModelOption reads a --model ending in
// .onnx as a graph file and returns the id it joined the zoo under.
std::string simModelOption(const Args& a);
std::string simDatasetOption(const Args& a, const std::string& modelId);
std::string deviceIdOption(const std::string& option, const std::string& id, const core::hw::DeviceCatalog& cat);
core::util::Precision parsePrecisionOption(const std::string& option, const std::string& value);
core::sim::CpuBuild cpuBuildOption(const Args& a);

// The options simulate, plan and export-script share for a transformer (cmd_llm.cpp): --model (an
// id, a model file or a config.json), --dataset, --seq-len, --precision (default bf16),
// --finetune, --lora-rank, --parallel ("auto": none), price and energy.
core::sim::SimConfig llmConfigOptions(const Args& a, std::ostream& err);

// What a configuration pays and emits: --usd-per-hour (the user's own $/h per device),
// --grid REGION|KG_PER_KWH and --pue CHOICE|NUMBER (resources/energy/grid.json; defaults: its
// defaults). A missing or broken grid.json is a warning on `err` and leaves PUE 1, no CO2e.
struct CostOptions {
  std::optional<double> userUsdPerHour;
  core::sim::EnergySettings energy;
};
// A string literal (a macro) so that each command's usage text can splice it in.
#define ACCELLAB_COST_OPTIONS_USAGE \
    "  --usd-per-hour X   the price you pay per device-hour (per vCPU-hour on a scalable CPU):\n" \
    "                     a reservation, a negotiated rate, your own cluster's cost; replaces\n" \
    "                     the catalog price and is labelled price_kind \"user\"\n" \
    "  --grid R           grid for the CO2e estimate: a region id (world, us, eu, france, ...;\n" \
    "                     resources/energy/grid.json) or kg CO2e per kWh (default: world)\n" \
    "  --pue P            data-centre PUE: a choice of grid.json (industry-average, hyperscale,\n" \
    "                     none) or a number from 1 to 3\n"
CostOptions costOptions(const Args& a, std::ostream& err);
// "user price", "on-demand, neocloud, 2025-06", "preemptible (spot), 2025": what a cost is.
std::string priceLabel(core::sim::PriceKind kind, const std::string& seller, const std::string& date);
// "2.1 kWh, 0.99 kg CO2e per run (estimate: 5600 W board power x PUE 1.56, world grid 0.473
// kg/kWh)", or why there is none.
std::string energyText(const core::sim::Energy& e, const core::sim::EnergySettings& s, const std::string& basis);

// The held-out error band of a stack on a device (core/sim/error_band.h) from the shipped
// resources/calibration/held-out-errors.csv; unknown, with a warning on `err`, when the file
// cannot be read.
core::sim::ErrorBand shippedErrorBand(const core::hw::DeviceCatalog& cat, const std::string& modelId,
                                      const std::string& stackId, const std::string& deviceId, std::ostream& err);
// The same file, read once (nullopt, with the warning, when it cannot be read).
std::optional<core::sim::HeldOutErrors> shippedHeldOutErrors(const core::hw::DeviceCatalog& cat, std::ostream& err);

// Text output of simulate: `precision` significant digits, large values in plain digits
// (1380, not 1.38e+03) up to 10^15, then as a power of ten (1e+308, not 309 digits); a duration in the unit a person reads it in (38.2 ms, 17.5 s,
// 12.3 min, 1.9 h, 2.4 days; "-" when not finite).
std::string fmt(double v, int precision = 3);
std::string duration(double seconds);

}  // namespace app::cli
