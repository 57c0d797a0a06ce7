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

const char* const kHeaderKeys[] = {"id", "name", "description", "era", "default_for", "sources"};

bool isHeaderKey(const std::string& k) {
  return std::find(std::begin(kHeaderKeys), std::end(kHeaderKeys), k) != std::end(kHeaderKeys);
}

using util::failKey;

bool isKindName(const std::string& s) { return kDeviceKinds.parse(s).has_value(); }

std::string text(const std::string& path, const std::string& key, const Json& v) {
  if (!v.isString() || v.asString().empty()) failKey(path, key, "must be a non-empty string");
  return v.asString();
}

}  // namespace

const SourcedValue* StackSpec::sourceOf(const std::string& key) const {
  for (const auto& s : sources)
    if (s.key == key) return &s;
  return nullptr;
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

bool stackCovers(const StackSpec& stack, const DeviceSpec& d) {
  return d.measured || stack.bySelector.count(deviceKindName(d.kind)) ||
         (!d.generation.empty() && stack.bySelector.count(d.generation));
}

void requireStackCovers(const StackSpec& stack, const DeviceSpec& d) {
  if (!stackCovers(stack, d)) {
    std::string kinds;
    for (const auto& k : kDeviceKinds.names())
      if (stack.bySelector.count(k)) kinds += (kinds.empty() ? "" : ", ") + k;
    throw Error("stack '" + stack.id + "' has no figures for " + deviceKindName(d.kind) + " devices like '" + d.id +
                "' (it describes " + (kinds.empty() ? std::string("none") : kinds) + "); pick another stack");
  }
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
        s.defaultFor.push_back(*kDeviceKinds.parse(k.asString()));
      }
    } else if (key == "sources") {
      continue;
    } else {
      if (!isStackFigure(key)) failKey(path, key, "unknown key (known: see resources/stacks/README.md)");
      if (value.isObject()) {
        if (value.size() == 0) failKey(path, key, "an empty object sets nothing; leave the key out");
        for (const auto& [selector, v] : value.asObject()) {
          const std::string where = key + "." + selector;
          if (selector != "default" && !isKindName(selector) && !isHardwareGeneration(selector))
            failKey(path, where, "'" + selector + "' is not \"default\", a device kind (cpu, gpu, tpu) or a known "
                              "hardware generation (" + hardwareGenerationList() + ")");
          readFigure(s.bySelector[selector], path, where, key, v);
        }
      } else {
        readFigure(s.bySelector["default"], path, key, key, value);
      }
    }
  }
  if (s.id.empty()) failKey(path, "id", "must not be empty");
  for (const char c : s.id)
    if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '-'))
      failKey(path, "id", "may hold only a-z, 0-9 and '-' (got \"" + s.id + "\")");

  s.sources = parseSources(path, root, [](const std::string& key) { return isStackFigure(key); });
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
  std::vector<std::string> order = {"default"};
  for (const auto& kind : kDeviceKinds.names()) order.push_back(kind);
  for (const auto& g : hardwareGenerations()) order.push_back(g);
  for (const auto& key : stackFigureKeys()) {
    Json byKey = Json::object();
    int n = 0;
    for (const auto& sel : order) {
      auto it = s.bySelector.find(sel);
      if (it == s.bySelector.end()) continue;
      if (const auto v = figureValue(it->second, key)) {
        byKey.set(sel, figureToJson(key, *v));
        ++n;
      }
    }
    if (n == 0) continue;
    if (n == 1 && byKey.asObject().front().first == "default") j.set(key, byKey.asObject().front().second);
    else j.set(key, byKey);
  }
  j.set("sources", sourcesToJson(s.sources));
  return j;
}

const StackSpec& StackCatalog::defaultFor(DeviceKind kind) const {
  for (const auto& s : m_items)
    if (std::find(s.defaultFor.begin(), s.defaultFor.end(), kind) != s.defaultFor.end()) return s;
  throw Error(std::string("no software stack is the default for ") + deviceKindName(kind) +
              " devices (a stack file's default_for names the kinds it serves)");
}

StackCatalog StackCatalog::loadDirs(const std::vector<std::string>& dirs) {
  StackCatalog cat;
  cat.loadFolders(dirs, parseStackFile, [&cat](StackSpec s) { cat.add(std::move(s)); });
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
