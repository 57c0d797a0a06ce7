#pragma once
// Option parsing shared by the simulator subcommands (simulate, sweep, validate, devices).
#include <ostream>
#include <string>

#include "app/cli/args.h"
#include "core/hw/device_catalog.h"
#include "core/hw/stack_catalog.h"
#include "core/sim/sim_report.h"

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

// Each throws core::util::Error naming the option.
std::string simModelOption(const Args& a);
std::string simDatasetOption(const Args& a, const std::string& modelId);
std::string deviceIdOption(const std::string& option, const std::string& id, const core::hw::DeviceCatalog& cat);
core::util::Precision parsePrecisionOption(const std::string& option, const std::string& value);
core::sim::CpuBuild cpuBuildOption(const Args& a);

// Text output of simulate: `precision` significant digits, large values in plain digits
// (1380, not 1.38e+03) up to 10^15, then as a power of ten (1e+308, not 309 digits); a duration in the unit a person reads it in (38.2 ms, 17.5 s,
// 12.3 min, 1.9 h, 2.4 days; "-" when not finite).
std::string fmt(double v, int precision = 3);
std::string duration(double seconds);

}  // namespace app::cli
