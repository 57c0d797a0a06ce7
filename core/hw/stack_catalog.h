#pragma once
// The software-stack catalog: resources/stacks/<id>.json, one stack per file, parsed into
// StackSpec. A stack holds the figures of core/hw/software_figures.h, each either one value
// for every device or an object keyed by selector: a hardware generation ("volta", "tpu-v3",
// see hardwareGenerations()), a device kind ("gpu", "tpu", "cpu") or "default". For a device
// the most specific selector wins: its generation, then its kind, then "default". Units are
// in the key names, every figure names its source, unknown keys are an error naming the file
// and the key. The format is documented in resources/stacks/README.md.
//
// Shipped stacks live in resourceDir()/stacks; a user adds or replaces one by dropping
// <id>.json into userDataDir()/stacks.
#include <map>
#include <string>
#include <vector>

#include "core/hw/catalog.h"
#include "core/hw/device_spec.h"
#include "core/hw/software_figures.h"
#include "core/util/json.h"

namespace core::hw {

struct StackSpec {
  std::string id;           // "tuned", "keras-2017", ...
  std::string name;         // "Vendor-tuned containers (NGC, DALI, XLA)"
  std::string description;  // one line for the GUI
  std::string era;          // "2017-2018"
  std::vector<DeviceKind> defaultFor;  // the kinds for which this is a new experiment's stack
  std::map<std::string, SoftwareFigures> bySelector;  // "default", "gpu", "volta", ...
  std::vector<SourcedValue> sources;  // one per figure key
  std::string filePath;

  const SourcedValue* sourceOf(const std::string& key) const;
};

// The figures `device` runs with under `stack`: the stack's "default", overlaid by the device's
// kind, then by its generation, then by what the device measured itself (host: the engine).
SoftwareFigures figuresFor(const StackSpec& stack, const DeviceSpec& device);

class StackCatalog : public Catalog<StackSpec> {
public:
  StackCatalog() = default;
  static StackCatalog loadDefault();  // resourceDir()/stacks + userDataDir()/stacks
  static StackCatalog loadDirs(const std::vector<std::string>& dirs);

  const std::vector<StackSpec>& stacks() const { return m_items; }
  // Throws core::util::Error naming the id and the known ones.
  const StackSpec& at(const std::string& id) const { return atOrThrow(id, "software stack"); }
  // The stack a new experiment on a device of `kind` starts with; throws when no stack says.
  const StackSpec& defaultFor(DeviceKind kind) const;
  void add(StackSpec spec) { put(std::move(spec)); }  // adds or replaces by id; keeps file order
};

// Whether `stack` has figures for `d` (its kind or its generation; a measured device brings its
// own). requireStackCovers throws core::util::Error naming the stack, the device and the kinds
// the stack describes.
bool stackCovers(const StackSpec& stack, const DeviceSpec& d);
void requireStackCovers(const StackSpec& stack, const DeviceSpec& d);

// Throws core::util::Error naming the file and the key.
StackSpec parseStackJson(const std::string& text, const std::string& path);
StackSpec parseStackFile(const std::string& path);
// The stack as a file (the inverse of parseStackJson, sources included).
util::Json stackToJson(const StackSpec& spec);

}  // namespace core::hw
