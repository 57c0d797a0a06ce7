#include "core/hw/stack_catalog.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>

#include "core/hw/catalog_files.h"
#include "core/util/error.h"
#include "core/util/files.h"

namespace fs = std::filesystem;

namespace core::hw {
namespace {

using util::Error;
using util::Json;

enum class Check { Fraction, Seconds, Factor, Positive, Bytes, Tile, Flag, Pipeline, AllReduce };

// One figure key: its check, its plausible range (outside it the file is refused, with the
// range named) and the field it fills.
struct FigureDef {
  const char* name;
  Check check;
  double min, max;
  std::function<void(SoftwareFigures&, double)> set;
  std::function<std::optional<double>(const SoftwareFigures&)> get;
};

#define ACCELLAB_FIG(key, member, check, lo, hi)                                                  \
  FigureDef {                                                                                     \
    key, check, lo, hi, [](SoftwareFigures& f, double v) { f.member = v; },                       \
        [](const SoftwareFigures& f) -> std::optional<double> {                                    \
          return f.member ? std::optional<double>(static_cast<double>(*f.member)) : std::nullopt; \
        }                                                                                         \
  }

// A true/false figure: stored as 1 or 0 in the table's number.
FigureDef flagFigure(const char* key, std::optional<bool> SoftwareFigures::*member) {
  return FigureDef{key, Check::Flag, 0, 1, [member](SoftwareFigures& f, double v) { f.*member = v != 0; },
                   [member](const SoftwareFigures& f) -> std::optional<double> {
                     return f.*member ? std::optional<double>(*(f.*member) ? 1.0 : 0.0) : std::nullopt;
                   }};
}

const std::vector<FigureDef>& figureTable() {
  static const std::vector<FigureDef> table = {
      ACCELLAB_FIG("gemm_efficiency", gemmEfficiency, Check::Fraction, 0.01, 1.0),
      ACCELLAB_FIG("gemm_efficiency_fp32", gemmEfficiencyFp32, Check::Fraction, 0.01, 1.0),
      ACCELLAB_FIG("depthwise_efficiency", depthwiseEfficiency, Check::Fraction, 0.001, 1.0),
      ACCELLAB_FIG("mem_efficiency", memEfficiency, Check::Fraction, 0.05, 1.0),
      ACCELLAB_FIG("kernel_launch_seconds", kernelLaunchSeconds, Check::Seconds, 0.0, 1e-2),
      ACCELLAB_FIG("step_overhead_seconds", stepOverheadSeconds, Check::Seconds, 0.0, 10.0),
      ACCELLAB_FIG("compile_seconds", compileSeconds, Check::Seconds, 0.0, 3600.0),
      ACCELLAB_FIG("compile_seconds_per_layer", compileSecondsPerLayer, Check::Seconds, 0.0, 60.0),
      ACCELLAB_FIG("sync_seconds_per_thread", syncSecondsPerThread, Check::Seconds, 0.0, 1e-2),
      ACCELLAB_FIG("cross_socket_sync_factor", crossSocketSyncFactor, Check::Factor, 1.0, 10.0),
      ACCELLAB_FIG("pip_build_factor", pipBuildFactor, Check::Fraction, 0.05, 1.0),
      ACCELLAB_FIG("framework_reserve_gib", frameworkReserveGib, Check::Positive, 0.0, 64.0),
      ACCELLAB_FIG("optimizer_bytes_per_param", optimizerBytesPerParam, Check::Bytes, 1.0, 1024.0),
      ACCELLAB_FIG("host_jpeg_mbps_per_vcpu", hostJpegMBpsPerVcpu, Check::Positive, 0.1, 1e4),
      ACCELLAB_FIG("device_jpeg_mbps", deviceJpegMBps, Check::Positive, 1.0, 1e6),
      ACCELLAB_FIG("matrix_tile_min", matrixTileMin, Check::Tile, 1.0, 4096.0),
      ACCELLAB_FIG("matmul_efficiency", matmulEfficiency, Check::Fraction, 0.01, 1.0),
      ACCELLAB_FIG("matmul_efficiency_fp32", matmulEfficiencyFp32, Check::Fraction, 0.01, 1.0),
      ACCELLAB_FIG("fp8_matmul_efficiency", fp8MatmulEfficiency, Check::Fraction, 0.01, 1.0),
      ACCELLAB_FIG("fp4_matmul_efficiency", fp4MatmulEfficiency, Check::Fraction, 0.01, 1.0),
      ACCELLAB_FIG("comm_efficiency", commEfficiency, Check::Fraction, 0.05, 1.0),
      flagFigure("fused_attention", &SoftwareFigures::fusedAttention),
      flagFigure("fuses_elementwise", &SoftwareFigures::fusesElementwise),
      flagFigure("autocast", &SoftwareFigures::autocast),
      flagFigure("fuses_epilogues", &SoftwareFigures::fusesEpilogues),
      flagFigure("channels_last", &SoftwareFigures::channelsLast),
      FigureDef{"input_pipeline", Check::Pipeline, 0, 1,
                [](SoftwareFigures& f, double v) {
                  f.inputPipeline = v != 0 ? InputPipeline::DeviceDecode : InputPipeline::HostDecode;
                },
                [](const SoftwareFigures& f) -> std::optional<double> {
                  if (!f.inputPipeline) return std::nullopt;
                  return *f.inputPipeline == InputPipeline::DeviceDecode ? 1.0 : 0.0;
                }},
      FigureDef{"allreduce", Check::AllReduce, 0, 1,
                [](SoftwareFigures& f, double v) {
                  f.allReduce = v != 0 ? AllReduceMode::AfterBackward : AllReduceMode::Bucketed;
                },
                [](const SoftwareFigures& f) -> std::optional<double> {
                  if (!f.allReduce) return std::nullopt;
                  return *f.allReduce == AllReduceMode::AfterBackward ? 1.0 : 0.0;
                }},
  };
  return table;
}

#undef ACCELLAB_FIG

const FigureDef* findFigure(const std::string& key) {
  for (const auto& f : figureTable())
    if (key == f.name) return &f;
  return nullptr;
}

const char* const kHeaderKeys[] = {"id", "name", "description", "era", "default_for", "sources"};

bool isHeaderKey(const std::string& k) {
  return std::find(std::begin(kHeaderKeys), std::end(kHeaderKeys), k) != std::end(kHeaderKeys);
}

using util::failKey;

bool isKindName(const std::string& s) { return s == "cpu" || s == "gpu" || s == "tpu"; }

// A figure's value as the number the table stores, checked.
double figureNumber(const std::string& path, const std::string& where, const FigureDef& def, const Json& v) {
  if (v.isNull()) failKey(path, where, "null is not allowed; leave the key out to mean \"not set\"");
  switch (def.check) {
    case Check::Flag:
      if (!v.isBool()) failKey(path, where, "must be true or false");
      return v.asBool() ? 1.0 : 0.0;
    case Check::Pipeline:
      if (!v.isString() || (v.asString() != "host-decode" && v.asString() != "device-decode"))
        failKey(path, where, "must be \"host-decode\" or \"device-decode\"");
      return v.asString() == "device-decode" ? 1.0 : 0.0;
    case Check::AllReduce:
      if (!v.isString() || (v.asString() != "bucketed" && v.asString() != "after-backward"))
        failKey(path, where, "must be \"bucketed\" or \"after-backward\"");
      return v.asString() == "after-backward" ? 1.0 : 0.0;
    default: break;
  }
  if (!v.isNumber()) failKey(path, where, "must be a number");
  const double x = v.asNumber();
  if (!std::isfinite(x)) failKey(path, where, "must be finite");
  const std::string range = "[" + util::formatNumber(def.min) + ", " + util::formatNumber(def.max) + "]";
  if (x < def.min || x > def.max)
    failKey(path, where, util::formatNumber(x) + " is outside the plausible range " + range);
  if (def.check == Check::Fraction && x <= 0) failKey(path, where, "must be a fraction in (0, 1]");
  if (def.check == Check::Tile && x != std::floor(x)) failKey(path, where, "must be a whole number");
  return x;
}

Json figureJson(const FigureDef& def, double x) {
  switch (def.check) {
    case Check::Flag: return Json(x != 0);
    case Check::Pipeline: return Json(x != 0 ? "device-decode" : "host-decode");
    case Check::AllReduce: return Json(x != 0 ? "after-backward" : "bucketed");
    default: return Json(x);
  }
}

std::string text(const std::string& path, const std::string& key, const Json& v) {
  if (!v.isString() || v.asString().empty()) failKey(path, key, "must be a non-empty string");
  return v.asString();
}

}  // namespace

const std::vector<std::string>& stackFigureKeys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k;
    for (const auto& d : figureTable()) k.emplace_back(d.name);
    return k;
  }();
  return keys;
}

std::optional<double> figureValue(const SoftwareFigures& f, const std::string& key) {
  const FigureDef* def = findFigure(key);
  if (!def) throw Error("unknown stack figure '" + key + "'");
  return def->get(f);
}

void setFigure(SoftwareFigures& f, const std::string& key, double value) {
  const FigureDef* def = findFigure(key);
  if (!def) throw Error("unknown stack figure '" + key + "'");
  def->set(f, value);
}

void readFigure(SoftwareFigures& f, const std::string& path, const std::string& where, const std::string& key,
                const Json& value) {
  const FigureDef* def = findFigure(key);
  if (!def) failKey(path, where, "unknown software figure (known: see resources/stacks/README.md)");
  def->set(f, figureNumber(path, where, *def, value));
}

const SourcedValue* StackSpec::sourceOf(const std::string& key) const {
  for (const auto& s : sources)
    if (s.key == key) return &s;
  return nullptr;
}

SoftwareFigures overlay(SoftwareFigures base, const SoftwareFigures& over) {
  for (const auto& def : figureTable())
    if (const auto v = def.get(over)) def.set(base, *v);
  return base;
}

SoftwareFigures figuresFor(const StackSpec& stack, const DeviceSpec& device) {
  SoftwareFigures f;
  auto apply = [&](const std::string& selector) {
    if (auto it = stack.bySelector.find(selector); it != stack.bySelector.end()) f = overlay(f, it->second);
  };
  apply("default");
  apply(deviceKindName(device.kind));
  if (!device.generation.empty()) apply(device.generation);
  return overlay(f, device.measuredSoftware);
}

StackSpec parseStackJson(const std::string& textIn, const std::string& path) {
  const Json root = Json::parse(textIn, path, util::kDataFileJsonLimits);
  if (!root.isObject()) throw Error(path + ": a stack file must hold one JSON object");
  StackSpec s;
  s.filePath = path;
  for (const char* k : {"id", "name", "description", "sources"})
    if (!root.contains(k)) failKey(path, k, "missing required key");
  for (const auto& [key, value] : root.asObject()) {
    if (key == "id") s.id = text(path, key, value);
    else if (key == "name") s.name = text(path, key, value);
    else if (key == "description") s.description = text(path, key, value);
    else if (key == "era") s.era = text(path, key, value);
    else if (key == "default_for") {
      if (!value.isArray()) failKey(path, key, "must be an array of device kinds (\"cpu\", \"gpu\", \"tpu\")");
      for (const auto& k : value.asArray()) {
        if (!k.isString() || !isKindName(k.asString()))
          failKey(path, key, "must list device kinds: \"cpu\", \"gpu\" or \"tpu\"");
        const std::string& n = k.asString();
        s.defaultFor.push_back(n == "cpu" ? DeviceKind::Cpu : n == "tpu" ? DeviceKind::Tpu : DeviceKind::Gpu);
      }
    } else if (key == "sources") {
      continue;
    } else {
      const FigureDef* def = findFigure(key);
      if (!def) failKey(path, key, "unknown key (known: see resources/stacks/README.md)");
      if (value.isObject()) {
        if (value.size() == 0) failKey(path, key, "an empty object sets nothing; leave the key out");
        for (const auto& [selector, v] : value.asObject()) {
          const std::string where = key + "." + selector;
          if (selector != "default" && !isKindName(selector) && !isHardwareGeneration(selector))
            failKey(path, where, "'" + selector + "' is not \"default\", a device kind (cpu, gpu, tpu) or a known "
                              "hardware generation (" + hardwareGenerationList() + ")");
          def->set(s.bySelector[selector], figureNumber(path, where, *def, v));
        }
      } else {
        def->set(s.bySelector["default"], figureNumber(path, key, *def, value));
      }
    }
  }
  if (s.id.empty()) failKey(path, "id", "must not be empty");
  for (const char c : s.id)
    if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '-'))
      failKey(path, "id", "may hold only a-z, 0-9 and '-' (got \"" + s.id + "\")");

  s.sources = parseSources(path, root, [](const std::string& key) { return findFigure(key) != nullptr; });
  const Json& sources = root.at("sources");
  for (const auto& [key, value] : root.asObject())
    if (!isHeaderKey(key) && !sources.contains(key))
      failKey(path, key, "has no source: add sources." + key + " = {\"ref\": ..., \"date\": ...}");

  const fs::path p(path);
  if (p.extension() == ".json" && p.stem().string() != s.id)
    failKey(path, "id", "\"" + s.id + "\" must match the file name (" + p.stem().string() + ".json)");
  return s;
}

StackSpec parseStackFile(const std::string& path) { return parseStackJson(util::readFile(path, util::kMaxDataFileBytes), path); }

Json stackToJson(const StackSpec& s) {
  Json j = Json::object();
  j.set("id", s.id);
  j.set("name", s.name);
  j.set("description", s.description);
  if (!s.era.empty()) j.set("era", s.era);
  if (!s.defaultFor.empty()) {
    Json kinds = Json::array();
    for (DeviceKind k : s.defaultFor) kinds.push(deviceKindName(k));
    j.set("default_for", kinds);
  }
  // Selectors in a fixed order: default, kinds, then generations as listed.
  std::vector<std::string> order = {"default", "cpu", "gpu", "tpu"};
  for (const auto& g : hardwareGenerations()) order.push_back(g);
  for (const auto& def : figureTable()) {
    Json byKey = Json::object();
    int n = 0;
    for (const auto& sel : order) {
      auto it = s.bySelector.find(sel);
      if (it == s.bySelector.end()) continue;
      if (const auto v = def.get(it->second)) {
        byKey.set(sel, figureJson(def, *v));
        ++n;
      }
    }
    if (n == 0) continue;
    if (n == 1 && byKey.asObject().front().first == "default") j.set(def.name, byKey.asObject().front().second);
    else j.set(def.name, byKey);
  }
  j.set("sources", sourcesToJson(s.sources));
  return j;
}

const StackSpec* StackCatalog::find(const std::string& id) const {
  for (const auto& s : m_stacks)
    if (s.id == id) return &s;
  return nullptr;
}

std::string StackCatalog::idList() const {
  std::string out;
  for (const auto& s : m_stacks) out += (out.empty() ? "" : ", ") + s.id;
  return out;
}

const StackSpec& StackCatalog::at(const std::string& id) const {
  if (const StackSpec* s = find(id)) return *s;
  throw Error("unknown software stack '" + id + "' (known: " + (m_stacks.empty() ? "none loaded" : idList()) + ")");
}

const StackSpec& StackCatalog::defaultFor(DeviceKind kind) const {
  for (const auto& s : m_stacks)
    if (std::find(s.defaultFor.begin(), s.defaultFor.end(), kind) != s.defaultFor.end()) return s;
  throw Error(std::string("no software stack is the default for ") + deviceKindName(kind) +
              " devices (a stack file's default_for names the kinds it serves)");
}

void StackCatalog::add(StackSpec spec) {
  auto same = std::find_if(m_stacks.begin(), m_stacks.end(), [&](const StackSpec& s) { return s.id == spec.id; });
  if (same != m_stacks.end()) *same = std::move(spec);
  else m_stacks.push_back(std::move(spec));
}

StackCatalog StackCatalog::loadDirs(const std::vector<std::string>& dirs) {
  StackCatalog cat;
  for (const auto& dir : dirs)
  {
    const util::FileListing listing = jsonFilesIn(dir);
    for (const auto& w : listing.warnings) cat.m_loadErrors.push_back(w);
    for (const auto& f : listing.files) {
      try {
        cat.add(parseStackFile(f));
      } catch (const std::exception& e) {
        cat.m_loadErrors.emplace_back(e.what());
      }
    }
  }
  return cat;
}

StackCatalog StackCatalog::loadDefault() {
  const std::string shipped = (fs::path(util::resourceDir()) / "stacks").string();
  StackCatalog cat = loadDirs({shipped, (fs::path(util::userDataDir()) / "stacks").string()});
  std::error_code ec;
  if (!fs::is_directory(shipped, ec)) cat.m_loadErrors.push_back(shipped + ": the shipped stack folder is missing");
  return cat;
}

}  // namespace core::hw
