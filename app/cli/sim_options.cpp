#include "app/cli/sim_options.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <sstream>

#include "core/util/numbers.h"
#include "core/data/dataset_info.h"
#include "core/hw/host_probe.h"
#include "core/nn/graph_model_file.h"
#include "core/nn/onnx_model.h"
#include "core/nn/transformer_spec.h"
#include "core/nn/zoo.h"
#include "core/util/error.h"
#include "core/util/files.h"

namespace app::cli {

using core::util::Error;

core::hw::DeviceCatalog loadSimCatalog(bool withHost, std::ostream& err, bool remeasureHost) {
  namespace fs = std::filesystem;
  core::hw::DeviceCatalog cat = core::hw::DeviceCatalog::loadDirs(
      {(fs::path(core::util::resourceDir()) / "devices").string(),
       (fs::path(core::util::userDataDir()) / "devices").string()});
  if (withHost)
    cat.add(core::hw::hostDeviceSpec(remeasureHost ? core::hw::HostMeasure::Now : core::hw::HostMeasure::RetakeUnderLoad));
  for (const auto& e : cat.loadErrors()) err << "accellab-cli: warning: device file skipped: " << e << "\n";
  return cat;
}

core::hw::StackCatalog loadSimStacks(std::ostream& err) {
  core::hw::StackCatalog stacks = core::hw::StackCatalog::loadDefault();
  for (const auto& e : stacks.loadErrors()) err << "accellab-cli: warning: stack file skipped: " << e << "\n";
  return stacks;
}

std::optional<core::sim::HeldOutErrors> shippedHeldOutErrors(const core::hw::DeviceCatalog& cat, std::ostream& err) {
  try {
    return core::sim::readHeldOutErrors(core::sim::shippedHeldOutErrorsPath(), cat);
  } catch (const std::exception& e) {
    err << "accellab-cli: warning: no error band: " << e.what() << "\n";
    return std::nullopt;
  }
}

core::sim::ErrorBand shippedErrorBand(const core::hw::DeviceCatalog& cat, const std::string& modelId,
                                      const std::string& stackId, const std::string& deviceId, std::ostream& err) {
  const core::hw::DeviceSpec* d = cat.find(deviceId);
  if (!d) return {};
  const auto errors = shippedHeldOutErrors(cat, err);
  return errors ? core::sim::errorBandFor(*errors, modelId, stackId, *d) : core::sim::ErrorBand{};
}

std::string stackIdOption(const std::string& option, const std::string& id, const core::hw::StackCatalog& stacks) {
  if (!stacks.find(id)) throw Error(option + ": unknown software stack '" + id + "' (known: " + stacks.idList() + ")");
  return id;
}

std::string stackIdOption(const Args& a, const core::hw::StackCatalog& stacks) {
  return a.has("stack") ? stackIdOption("--stack", a.str("stack", ""), stacks) : std::string();
}

namespace {
// `id` as a person may misspell it: letters and digits only, lower case ("Llama3.1-405B" ->
// "llama31405b").
std::string looseId(const std::string& id) {
  std::string out;
  for (const char c : id) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u)) out += static_cast<char>(std::tolower(u));
  }
  return out;
}
}  // namespace

std::string simModelOption(const Args& a) {
  const std::string id = a.required("model");
  if (core::nn::isGraphModelPath(id)) {  // a CNN or RNN described as a layer graph
    try {
      return core::nn::importGraphModel(id).id;
    } catch (const Error& e) {
      throw Error(std::string("--model: ") + e.what());
    }
  }
  if (core::nn::isOnnxPath(id)) {  // an ONNX graph joins the zoo under its file's name
    try {
      return core::nn::importOnnxModel(id).id;
    } catch (const Error& e) {
      throw Error(std::string("--model: ") + e.what());
    }
  }
  if (core::nn::findTransformer(id))
    throw Error("--model: '" + id + "' is a transformer: `accellab-cli simulate --model " + id +
                "` simulates it at LLM scale (sweep and the training commands cover the CNN/RNN zoo)");
  try {
    core::nn::modelInfo(id);
  } catch (const Error& e) {
    // The zoo's error lists the CNN/RNN models; simulate also takes the transformers.
    std::string guess;
    for (const auto& t : core::nn::referenceTransformers())
      if (looseId(t.id) == looseId(id)) guess = " Did you mean '" + t.id + "'?";
    throw Error(std::string("--model: ") + e.what() + "; transformers, simulated at LLM scale: " +
                core::nn::transformerIdList() + " (`accellab-cli models` describes each)." + guess);
  }
  return id;
}

std::string simDatasetOption(const Args& a, const std::string& modelId) {
  const std::string fallback = core::nn::modelInfo(modelId).defaultDataset;
  const std::string id = a.str("dataset", fallback);
  if (id.empty()) throw Error("missing required option --dataset");
  try {
    core::data::datasetInfo(id);
  } catch (const Error& e) {
    throw Error(std::string("--dataset: ") + e.what());
  }
  return id;
}

std::string deviceIdOption(const std::string& option, const std::string& id, const core::hw::DeviceCatalog& cat) {
  if (!cat.find(id)) throw Error(option + ": unknown device '" + id + "' (known: " + cat.idList() + ")");
  return id;
}

core::util::Precision parsePrecisionOption(const std::string& option, const std::string& value) {
  const auto p = core::util::parsePrecision(value);
  if (!p) throw Error(option + ": '" + value + "' is not one of fp32, tf32, fp16, bf16, fp8, fp4");
  return *p;
}

CostOptions costOptions(const Args& a, std::ostream& err) {
  CostOptions o;
  if (a.has("usd-per-hour")) {
    o.userUsdPerHour = a.real("usd-per-hour", 0);
    core::sim::checkUserPrice(*o.userUsdPerHour, "--usd-per-hour");
  }
  core::sim::EnergyCatalog grid;
  try {
    grid = core::sim::loadDefaultEnergyCatalog();
  } catch (const std::exception& e) {
    if (a.has("grid") || a.has("pue")) throw;
    err << "accellab-cli: warning: no grid or PUE figures (" << e.what() << "): energy without PUE, no CO2e\n";
    return o;
  }
  // A number is taken as it is; anything else names a choice of grid.json.
  auto number = [](const std::string& v) -> std::optional<double> {
    char* end = nullptr;
    const double x = std::strtod(v.c_str(), &end);
    if (v.empty() || end != v.c_str() + v.size()) return std::nullopt;
    return x;
  };
  const std::string region = a.str("grid", ""), pue = a.str("pue", "");
  const auto regionValue = number(region), pueValue = number(pue);
  o.energy = grid.settings(regionValue ? "" : region, pueValue ? "" : pue);
  if (regionValue) {
    if (!(*regionValue >= 0 && *regionValue <= 2))
      throw Error("--grid: " + region + " kg CO2e per kWh is outside [0, 2] (coal-heavy grids are about 1)");
    o.energy.gridKgCo2ePerKwh = *regionValue;
    o.energy.regionId = "";
  }
  if (pueValue) {
    if (!(*pueValue >= 1 && *pueValue <= 3)) throw Error("--pue: " + pue + " is outside [1, 3]");
    o.energy.pue = *pueValue;
    o.energy.pueId = "";
  }
  return o;
}

std::string priceLabel(core::sim::PriceKind kind, const std::string& seller, const std::string& date) {
  if (kind == core::sim::PriceKind::User) return "your price";
  std::string s = kind == core::sim::PriceKind::Preemptible ? "preemptible" : "on-demand";
  if (!seller.empty() && kind != core::sim::PriceKind::Preemptible) s += ", " + seller;
  if (!date.empty()) s += ", " + date;
  return s;
}

std::string energyText(const core::sim::Energy& e, const core::sim::EnergySettings& s, const std::string& basis) {
  if (!e.known) return "no power figure in the device file";
  std::string t = fmt(e.kwh) + " kWh";
  if (s.gridKgCo2ePerKwh > 0) t += ", " + fmt(e.co2eKg) + " kg CO2e";
  t += " " + basis + " (estimate: " + fmt(e.watts, 4) + " W " +
       (e.typicalDraw ? "typical training draw" : "board power, an upper bound") + " x PUE " + fmt(s.pue);
  if (s.gridKgCo2ePerKwh > 0)
    t += ", " + (s.regionId.empty() ? std::string("grid") : s.regionId + " grid") + " " + fmt(s.gridKgCo2ePerKwh) + " kg/kWh";
  return t + ")";
}

core::sim::CpuBuild cpuBuildOption(const Args& a) {
  const std::string v = a.str("cpu-build", core::sim::cpuBuildName(core::sim::CpuBuild::Compiled));
  if (const auto b = core::sim::kCpuBuildNames.parse(v)) return *b;
  throw Error("--cpu-build: '" + v + "' is not one of " + core::sim::kCpuBuildNames.list());
}

std::string fmt(double v, int precision) {
  std::ostringstream os;
  // Plain digits up to 10^15; beyond, a power of ten (never a 309-digit number in full).
  if (std::isfinite(v) && std::abs(v) >= std::pow(10.0, precision) && std::abs(v) < 1e15)
    os << std::fixed << std::setprecision(0) << v;
  else os << std::setprecision(precision) << v;
  return os.str();
}

std::string duration(double s) { return core::util::readableDuration(s); }

}  // namespace app::cli
