#include "core/hw/device_catalog.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <tuple>

#include "core/hw/catalog_files.h"
#include "core/hw/host_probe.h"
#include "core/hw/software_figures.h"
#include "core/util/error.h"
#include "core/util/files.h"
#include "core/util/json.h"

namespace fs = std::filesystem;

namespace core::hw {
namespace {

using util::Error;
using util::Json;

enum class Check { Positive, NonNegative, Fraction, Factor, Count, Text, Choice, Generation, Seller };

// One device-file key: how to check it, its plausible range in the key's own unit (what a
// datasheet can say, from a single slow vCPU to a rack-scale device; hi 0 = text, no range)
// and where it goes. Figures (numbers) need a source.
struct KeyDef {
  const char* name;
  Check check;
  bool required;
  double lo, hi;
  std::function<void(DeviceSpec&, const Json&)> set;
  std::vector<std::string> (*choices)() = nullptr;  // Check::Choice: the names it may take
};

// A traits key: one name of its table.
template <class E, std::size_t N>
KeyDef traitKey(const char* name, const util::NameTable<E, N>& table, std::optional<E> DeviceSpec::*member) {
  return KeyDef{name, Check::Choice, false, 0, 0,
                [&table, member](DeviceSpec& s, const Json& v) { s.*member = table.parse(v.asString()); },
                nullptr};
}

double num(const Json& v) { return v.asNumber(); }
int integer(const Json& v) { return static_cast<int>(std::lround(v.asNumber())); }

KeyDef withChoices(KeyDef def, std::vector<std::string> (*choices)()) {
  def.choices = choices;
  return def;
}

bool isTextCheck(Check check) {
  return check == Check::Text || check == Check::Choice || check == Check::Generation || check == Check::Seller;
}

std::vector<std::string> choicesOf(const KeyDef& def) {
  switch (def.check) {
    case Check::Choice: return def.choices();
    case Check::Generation: return hardwareGenerations();
    case Check::Seller: return priceSellers();
    default: return {};
  }
}

// "\"cpu\", \"gpu\" or \"tpu\"": the names a choice key takes, for its error message.
std::string quotedChoices(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + ("\"" + names[i] + "\"");
  return out;
}

#define ACCELLAB_OPT(member) [](DeviceSpec& s, const Json& v) { s.member = num(v); }
#define ACCELLAB_OPT_INT(member) [](DeviceSpec& s, const Json& v) { s.member = integer(v); }

const std::vector<KeyDef>& keyTable() {
  static const std::vector<KeyDef> table = {
      {"id", Check::Text, true, 0, 0, [](DeviceSpec& s, const Json& v) { s.id = v.asString(); }},
      {"name", Check::Text, true, 0, 0, [](DeviceSpec& s, const Json& v) { s.name = v.asString(); }},
      {"kind", Check::Choice, true, 0, 0,
       [](DeviceSpec& s, const Json& v) { s.kind = kDeviceKinds.parse(v.asString()).value_or(DeviceKind::Gpu); },
       [] { return kDeviceKinds.names(); }},
      withChoices(traitKey("matrix_unit", kMatrixUnits, &DeviceSpec::matrixUnit), [] { return kMatrixUnits.names(); }),
      withChoices(traitKey("launch_model", kLaunchModels, &DeviceSpec::launchModel),
                  [] { return kLaunchModels.names(); }),
      withChoices(traitKey("fusion", kFusionRules, &DeviceSpec::fusion), [] { return kFusionRules.names(); }),
      withChoices(traitKey("replicas", kReplicaRules, &DeviceSpec::replicaRule), [] { return kReplicaRules.names(); }),
      {"generation", Check::Generation, false, 0, 0,
       [](DeviceSpec& s, const Json& v) { s.generation = v.asString(); }},
      {"release_year", Check::Count, false, 1990, 2100,
       [](DeviceSpec& s, const Json& v) { s.releaseYear = integer(v); }},
      {"peak_tflops_fp32", Check::Positive, false, 1e-3, 1e5, ACCELLAB_OPT(peakTflopsFp32)},
      {"peak_tflops_tf32", Check::Positive, false, 1e-3, 1e5, ACCELLAB_OPT(peakTflopsTf32)},
      {"peak_tflops_fp16", Check::Positive, false, 1e-3, 1e5, ACCELLAB_OPT(peakTflopsFp16)},
      {"peak_tflops_bf16", Check::Positive, false, 1e-3, 1e5, ACCELLAB_OPT(peakTflopsBf16)},
      {"peak_tflops_fp8", Check::Positive, false, 1e-3, 1e5, ACCELLAB_OPT(peakTflopsFp8)},
      {"peak_tflops_fp4", Check::Positive, false, 1e-3, 1e5, ACCELLAB_OPT(peakTflopsFp4)},
      {"vector_tflops_fp32", Check::Positive, false, 1e-3, 1e5, ACCELLAB_OPT(vectorTflopsFp32)},
      {"mem_gib", Check::Positive, true, 0.01, 1e5, [](DeviceSpec& s, const Json& v) { s.memGib = num(v); }},
      {"mem_bandwidth_gbps", Check::Positive, true, 0.1, 1e6,
       [](DeviceSpec& s, const Json& v) { s.memBandwidthGBps = num(v); }},
      {"mem_bandwidth_per_core_gbps", Check::Positive, false, 0.1, 1e4,
       ACCELLAB_OPT(memBandwidthPerCoreGBps)},
      {"interconnect_gbps", Check::Positive, false, 0.01, 1e6, ACCELLAB_OPT(interconnectGBps)},
      {"host_link_gbps", Check::Positive, false, 0.01, 1e5, ACCELLAB_OPT(hostLinkGBps)},
      {"allreduce_latency_seconds", Check::NonNegative, false, 0, 1, ACCELLAB_OPT(allreduceLatencySeconds)},
      {"devices_per_node", Check::Count, false, 1, 16384, ACCELLAB_OPT_INT(devicesPerNode)},
      {"internode_gbps", Check::Positive, false, 0.01, 1e5, ACCELLAB_OPT(internodeGBps)},
      {"cores_per_device", Check::Count, false, 1, 1e5,
       [](DeviceSpec& s, const Json& v) { s.coresPerDevice = integer(v); }},
      {"chips_per_device", Check::Count, false, 1, 4096,
       [](DeviceSpec& s, const Json& v) { s.chipsPerDevice = integer(v); }},
      {"compute_units", Check::Count, false, 1, 1e5, ACCELLAB_OPT_INT(computeUnits)},
      {"matrix_tile", Check::Count, false, 1, 4096, ACCELLAB_OPT_INT(matrixTile)},
      {"vcpus_default", Check::Count, false, 1, 1e5,
       [](DeviceSpec& s, const Json& v) { s.vcpusDefault = integer(v); }},
      {"vcpus_max", Check::Count, false, 1, 1e5,
       [](DeviceSpec& s, const Json& v) { s.vcpusMax = integer(v); }},
      {"vcpus_per_core", Check::Count, false, 1, 16,
       [](DeviceSpec& s, const Json& v) { s.vcpusPerCore = integer(v); }},
      {"cores_per_socket", Check::Count, false, 1, 1e4,
       [](DeviceSpec& s, const Json& v) { s.coresPerSocket = integer(v); }},
      {"host_vcpus", Check::Count, false, 1, 1e5, ACCELLAB_OPT_INT(hostVcpus)},
      {"usd_per_hour_on_demand", Check::Positive, false, 1e-4, 1e5, ACCELLAB_OPT(usdPerHourOnDemand)},
      {"usd_per_hour_preemptible", Check::Positive, false, 1e-4, 1e5, ACCELLAB_OPT(usdPerHourPreemptible)},
      {"price_date", Check::Text, false, 0, 0,
       [](DeviceSpec& s, const Json& v) { s.priceDate = v.asString(); }},
      {"price_seller", Check::Seller, false, 0, 0,
       [](DeviceSpec& s, const Json& v) { s.priceSeller = v.asString(); }},
      {"board_power_watts", Check::Positive, false, 1, 1e6, ACCELLAB_OPT(boardPowerWatts)},
      {"training_power_watts", Check::Positive, false, 1, 1e6, ACCELLAB_OPT(trainingPowerWatts)},
      {"notes", Check::Text, false, 0, 0, [](DeviceSpec& s, const Json& v) { s.notes = v.asString(); }},
      {"sources", Check::Text, true, 0, 0, [](DeviceSpec&, const Json&) {}},  // handled apart
  };
  return table;
}

#undef ACCELLAB_OPT
#undef ACCELLAB_OPT_INT

using util::failKey;

void checkValue(const std::string& path, const KeyDef& def, const Json& v) {
  const std::string key = def.name;
  if (v.isNull()) failKey(path, key, "null is not allowed; leave the key out to mean \"not set\"");
  if (isTextCheck(def.check)) {
    if (!v.isString()) failKey(path, key, "must be a string");
    if (v.asString().empty()) failKey(path, key, "must not be empty");
    // Names and notes are printed by the CLI and shown in the GUI: no terminal escapes, no
    // NUL (a line break is allowed in notes).
    for (const char c : v.asString())
      if ((static_cast<unsigned char>(c) < 0x20 && !(key == "notes" && c == '\n')) || c == 0x7f)
        failKey(path, key,
             "holds a control character (code " + std::to_string(static_cast<unsigned char>(c)) +
                 "); use plain text");
    if (def.check == Check::Choice) {
      const std::vector<std::string> names = def.choices();
      if (std::find(names.begin(), names.end(), v.asString()) == names.end())
        failKey(path, key, "must be " + quotedChoices(names) + ", not \"" + v.asString() + "\"");
    }
    if (def.check == Check::Seller && !isPriceSeller(v.asString()))
      failKey(path, key, "\"" + v.asString() + "\" is not a kind of seller (" + priceSellerList() + ")");
    // A generation outside the list is a new kind's own (validate() asks for its traits): a
    // plain lower-case name, as ids are.
    if (def.check == Check::Generation && v.asString().empty()) failKey(path, key, "must not be empty");
    if (def.check == Check::Generation)
      for (const char c : v.asString())
        if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '-'))
          failKey(path, key, "may hold only a-z, 0-9 and '-' (got \"" + v.asString() + "\")");
    return;
  }
  if (!v.isNumber()) failKey(path, key, "must be a number");
  const double x = v.asNumber();
  if (!std::isfinite(x)) failKey(path, key, "must be finite");
  // The plausible range, where the key has one, said with every refusal.
  const std::string range = def.hi > 0 ? ", in [" + util::formatNumber(def.lo) + ", " + util::formatNumber(def.hi) + "]" : "";
  switch (def.check) {
    case Check::Positive:
      if (x <= 0) failKey(path, key, "must be positive" + range + " (got " + util::formatNumber(x) + ")");
      break;
    case Check::NonNegative:
      if (x < 0) failKey(path, key, "must not be negative" + range + " (got " + util::formatNumber(x) + ")");
      break;
    case Check::Fraction:
      if (x <= 0 || x > 1) failKey(path, key, "must be a fraction in (0, 1] (got " + util::formatNumber(x) + ")");
      break;
    case Check::Factor:
      if (x <= 0) failKey(path, key, "must be a positive factor (got " + util::formatNumber(x) + ")");
      break;
    case Check::Count:
      if (x < 1 || x != std::floor(x) || x > 1e9)
        failKey(path, key, "must be a whole number of at least 1" + range + " (got " + util::formatNumber(x) + ")");
      break;
    default: break;
  }
  // A figure outside its range is a typo or an attack (a bandwidth of 1e-308 GB/s made every
  // time infinite): refused with the range named.
  if (def.hi > 0 && (x < def.lo || x > def.hi))
    failKey(path, key, util::formatNumber(x) + " is outside the plausible range [" + util::formatNumber(def.lo) + ", " +
                        util::formatNumber(def.hi) + "] for this key (units as its name says)");
}

// Software figures moved to the stack files (resources/stacks) in 2026-11: a device file that
// still sets one is told where it belongs.
bool isSoftwareKey(const std::string& name) {
  for (const auto& k : stackFigureKeys())
    if (k == name) return true;
  return false;
}

const KeyDef* findKey(const std::string& name) {
  for (const auto& k : keyTable())
    if (name == k.name) return &k;
  return nullptr;
}

int kindOrder(DeviceKind k) { return static_cast<int>(k); }  // cpu, gpu, tpu

}  // namespace

const std::vector<std::string>& deviceFileKeys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k;
    for (const auto& d : keyTable()) k.emplace_back(d.name);
    return k;
  }();
  return keys;
}

void validate(const DeviceSpec& s) {
  const std::string where = s.filePath.empty() ? "device '" + s.id + "'" : s.filePath;
  if (s.id.empty()) failKey(where, "id", "must not be empty");
  for (const char c : s.id)
    if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '-'))
      failKey(where, "id", "may hold only a-z, 0-9 and '-' (got \"" + s.id + "\")");
  if (!s.peakTflopsFp32 && !s.peakTflopsTf32 && !s.peakTflopsFp16 && !s.peakTflopsBf16)
    failKey(where, "peak_tflops_fp32", "missing: a device needs at least one peak_tflops_<precision>");
  if (!(s.memGib > 0)) failKey(where, "mem_gib", "must be positive");
  if (!(s.memBandwidthGBps > 0)) failKey(where, "mem_bandwidth_gbps", "must be positive");
  if (s.interconnectGBps && !(*s.interconnectGBps > 0)) failKey(where, "interconnect_gbps", "must be positive");
  if (s.hostLinkGBps && !(*s.hostLinkGBps > 0)) failKey(where, "host_link_gbps", "must be positive");
  if (s.coresPerDevice < 1) failKey(where, "cores_per_device", "must be at least 1");
  if (s.kind == DeviceKind::Cpu) {
    if (s.vcpusDefault < 1) failKey(where, "vcpus_default", "missing: a scalable CPU needs a default vCPU count");
    if (s.vcpusMax < s.vcpusDefault) failKey(where, "vcpus_max", "missing or smaller than vcpus_default");
    if (s.coresPerSocket < 1) failKey(where, "cores_per_socket", "missing: a CPU needs its socket size");
  }
  if ((s.usdPerHourOnDemand || s.usdPerHourPreemptible) && s.priceDate.empty())
    failKey(where, "price_date", "missing: a price needs its date");
  if (!s.priceSeller.empty() && !s.usdPerHourOnDemand)
    failKey(where, "price_seller", "names the seller of usd_per_hour_on_demand, which the file does not set");
  if (s.trainingPowerWatts && s.boardPowerWatts && *s.trainingPowerWatts > *s.boardPowerWatts * 1.25)
    failKey(where, "training_power_watts",
            util::formatNumber(*s.trainingPowerWatts) + " W is more than the board power (" +
                util::formatNumber(*s.boardPowerWatts) + " W) allows");
  // The stacks key their figures by generation, so a misspelt one would silently get none. A
  // generation of its own is a new kind of device, which says how it computes, launches, fuses
  // and replicates (it then takes the stacks' figures for its kind, marked uncalibrated).
  if (!s.generation.empty() && !isHardwareGeneration(s.generation) &&
      !(s.matrixUnit && s.launchModel && s.fusion && s.replicaRule))
    failKey(where, "generation",
            "\"" + s.generation + "\" is not a known hardware generation (" + hardwareGenerationList() +
                "); a new kind of device may name its own only when it states its traits (matrix_unit, launch_model, "
                "fusion, replicas)");
}

DeviceSpec parseDeviceJson(const std::string& text, const std::string& path) {
  const Json root = Json::parse(text, path, util::kDataFileJsonLimits);
  if (!root.isObject()) throw Error(path + ": a device file must hold one JSON object");
  DeviceSpec spec;
  spec.filePath = path;
  for (const auto& [key, value] : root.asObject()) {
    if (key == kCalibratedSoftware) {  // a device calibrated on the user's runs carries its software figures
      if (!value.isObject() || value.size() == 0) failKey(path, key, "must be an object of software figures");
      for (const auto& [figure, v] : value.asObject())
        readFigure(spec.measuredSoftware, path, key + "." + figure, figure, v);
      continue;
    }
    const KeyDef* def = findKey(key);
    if (!def && isSoftwareKey(key))
      failKey(path, key, "describes the software, not the hardware: it belongs in a software stack file "
                      "(resources/stacks/README.md), keyed by this device's generation");
    if (!def) failKey(path, key, "unknown key (known: see resources/devices/README.md)");
    if (key == "sources") continue;
    checkValue(path, *def, value);
    def->set(spec, value);
  }
  for (const auto& def : keyTable())
    if (def.required && !root.contains(def.name)) failKey(path, def.name, "missing required key");

  // Provenance: every figure (number) needs {"ref", "date"}; every source names a figure.
  spec.sources = parseSources(path, root, [](const std::string& key) {
    return findKey(key) != nullptr || key == kCalibratedSoftware;
  });
  const Json& sources = root.at("sources");
  if (root.contains(kCalibratedSoftware) && !sources.contains(kCalibratedSoftware))
    failKey(path, kCalibratedSoftware, "has no source: say which runs it was fitted on (sources.calibrated_software)");
  for (const auto& [key, value] : root.asObject())
    if (value.isNumber() && !sources.contains(key))
      failKey(path, key, "has no source: add sources." + key + " = {\"ref\": ..., \"date\": ...}");
  if (const auto* p = spec.sourceOf("usd_per_hour_on_demand")) spec.source = p->ref;
  else if (const auto* q = spec.sourceOf("peak_tflops_fp32")) spec.source = q->ref;
  else if (!spec.sources.empty()) spec.source = spec.sources.front().ref;

  const std::string stem = fs::path(path).stem().string();
  if (fs::path(path).extension() == ".json" && stem != spec.id)
    failKey(path, "id", "\"" + spec.id + "\" must match the file name (" + stem + ".json)");
  validate(spec);
  return spec;
}

DeviceSpec parseDeviceFile(const std::string& path) { return parseDeviceJson(util::readFile(path, util::kMaxDataFileBytes), path); }

void DeviceCatalog::add(DeviceSpec spec) {
  put(std::move(spec));
  auto year = [](const DeviceSpec& d) { return d.measured ? -1 : d.releaseYear; };
  std::stable_sort(m_items.begin(), m_items.end(), [&](const DeviceSpec& a, const DeviceSpec& b) {
    return std::make_tuple(!a.measured, kindOrder(a.kind), year(a), a.id) <
           std::make_tuple(!b.measured, kindOrder(b.kind), year(b), b.id);
  });
}

DeviceCatalog DeviceCatalog::loadDirs(const std::vector<std::string>& dirs) {
  DeviceCatalog cat;
  cat.loadFolders(dirs, parseDeviceFile, [&cat](DeviceSpec d) { cat.add(std::move(d)); });
  return cat;
}

namespace {

// The unit a key's name carries (units live in key names, one key per quantity).
std::string unitOfKey(const std::string& key) {
  auto endsWith = [&](const std::string& suffix) {
    return key.size() >= suffix.size() && key.compare(key.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (endsWith("_gbps")) return "GB/s";
  if (endsWith("_gib")) return "GiB";
  if (key.find("_tflops_") != std::string::npos) return "TFLOP/s";
  if (endsWith("_watts")) return "W";
  if (key.rfind("usd_per_hour", 0) == 0) return "$/h";
  if (endsWith("_seconds")) return "s";
  if (endsWith("_year")) return "year";
  return "";
}

}  // namespace

const std::vector<DeviceKeyInfo>& deviceKeyInfo() {
  static const std::vector<DeviceKeyInfo> info = [] {
    std::vector<DeviceKeyInfo> out;
    for (const KeyDef& d : keyTable()) {
      if (std::string(d.name) == "sources") continue;
      const bool text = isTextCheck(d.check);
      out.push_back({d.name, d.required, text, d.check == Check::Count, d.lo, d.hi,
                     text ? std::string() : unitOfKey(d.name), choicesOf(d)});
    }
    return out;
  }();
  return info;
}

const DeviceKeyInfo* findDeviceKeyInfo(const std::string& name) {
  for (const auto& k : deviceKeyInfo())
    if (k.name == name) return &k;
  return nullptr;
}

std::string deviceFileText(const Json& values, const std::vector<SourcedValue>& sources) {
  Json out = Json::object();
  for (const auto& key : deviceFileKeys())
    if (const Json* v = values.find(key); v && key != "sources") out.set(key, *v);
  for (const auto& [key, value] : values.asObject())
    if (!findKey(key)) out.set(key, value);
  out.set("sources", sourcesToJson(sources));
  return out.dump(2) + "\n";
}

DeviceCatalog DeviceCatalog::loadDefault(HostMeasure host) {
  const std::string shipped = (fs::path(util::resourceDir()) / "devices").string();
  DeviceCatalog cat = loadDirs({shipped, (fs::path(util::userDataDir()) / "devices").string()});
  std::error_code ec;
  if (!fs::is_directory(shipped, ec)) cat.m_loadErrors.push_back(shipped + ": the shipped device folder is missing");
  try {
    cat.add(hostDeviceSpec(host));
  } catch (const std::exception& e) {
    cat.m_loadErrors.push_back(std::string("host: ") + e.what());
  }
  return cat;
}

std::string hostDeviceFileText(const DeviceSpec& host) {
  util::Json v = util::Json::object();
  v.set("id", host.id);
  v.set("name", host.name);
  v.set("kind", std::string(deviceKindName(host.kind)));
  if (host.peakTflopsFp32) v.set("peak_tflops_fp32", *host.peakTflopsFp32);
  if (host.peakTflopsBf16) v.set("peak_tflops_bf16", *host.peakTflopsBf16);
  v.set("mem_gib", host.memGib);
  v.set("mem_bandwidth_gbps", host.memBandwidthGBps);
  if (host.memBandwidthPerCoreGBps) v.set("mem_bandwidth_per_core_gbps", *host.memBandwidthPerCoreGBps);
  v.set("vcpus_default", host.vcpusDefault);
  v.set("vcpus_max", host.vcpusMax);
  v.set("vcpus_per_core", host.vcpusPerCore);
  v.set("cores_per_socket", host.coresPerSocket);
  if (host.hostVcpus) v.set("host_vcpus", *host.hostVcpus);
  v.set("notes", "This machine as AccelLab's probe measured it (figures per vCPU): " + host.notes);
  std::vector<SourcedValue> sources;
  for (const auto& src : host.sources)
    if (v.contains(src.key)) sources.push_back(src);
  return deviceFileText(v, sources);
}

}  // namespace core::hw
