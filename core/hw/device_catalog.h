#pragma once
// The hardware catalog: device files (one JSON object per file, units in the key names) parsed
// into DeviceSpec. This is the only code that knows the file format; the key table is in
// device_catalog.cpp and documented in resources/devices/README.md.
//
// A shipped device lives in resourceDir()/devices; a user adds one by dropping <id>.json into
// userDataDir()/devices (a user file with a shipped id replaces the shipped one). A file that
// fails validation is reported in loadErrors() and does not stop the others loading.
#include <string>
#include <vector>

#include "core/hw/catalog.h"
#include "core/hw/device_spec.h"
#include "core/hw/host_probe.h"
#include "core/util/json.h"

namespace core::hw {

class DeviceCatalog : public Catalog<DeviceSpec> {
public:
  DeviceCatalog() = default;
  // resourceDir()/devices + userDataDir()/devices, plus the measured `host` (cached in
  // userDataDir()/host.json: the micro-benchmark runs once per machine; `host` says when it runs
  // again: at a start, a cache taken under load is retaken; a reload uses the cache).
  static DeviceCatalog loadDefault(HostMeasure host = HostMeasure::RetakeUnderLoad);
  // Every *.json in each folder, in order (later folders override earlier ids). A missing
  // folder is skipped silently.
  static DeviceCatalog loadDirs(const std::vector<std::string>& dirs);

  const std::vector<DeviceSpec>& devices() const { return m_items; }
  // Throws core::util::Error naming the id and the known ones.
  const DeviceSpec& at(const std::string& id) const { return atOrThrow(id, "device"); }

  // Adds (or replaces, by id) a device; keeps the catalog's order (kind, year, id).
  void add(DeviceSpec spec);
};

// Parses and validates one device file. Throws core::util::Error naming the file and the key
// (unknown key, missing required key, wrong type, non-positive bandwidth, missing source...).
DeviceSpec parseDeviceFile(const std::string& path);
// Same, from text already read; `path` names it in errors and must end in <id>.json.
DeviceSpec parseDeviceJson(const std::string& text, const std::string& path);

// The keys a device file may hold, in the order a file is written.
const std::vector<std::string>& deviceFileKeys();

// One key of a device file as an editor shows it, read from the loader's own key table: the
// range shown is the one the loader enforces (no second copy of the ranges).
struct DeviceKeyInfo {
  std::string name;
  bool required = false;
  bool text = false;                 // a string; otherwise a figure: a number that needs a source
  bool whole = false;                // a count: a whole number
  double lo = 0, hi = 0;             // the plausible range, in `unit` (figures only)
  std::string unit;                  // from the key's name: "GB/s", "GiB", "TFLOP/s", "W", "$/h", "s", "year";
                                     // "" for counts
  std::vector<std::string> choices;  // the values a text key may take (kind, generation, price_seller); empty: free text
};
// Every key of deviceFileKeys() but "sources" (the figures' provenance, not a value), in order.
const std::vector<DeviceKeyInfo>& deviceKeyInfo();
// The entry for `name`; nullptr when a device file has no such key.
const DeviceKeyInfo* findDeviceKeyInfo(const std::string& name);

// The text of a device file: `values` (an object, key -> value, in any order) in the order of
// deviceFileKeys(), then keys the table does not know (a calibrated device's
// "calibrated_software", carried from the file it started from), then `sources`. Indented,
// ending in a newline. The one writer of device files an editor uses; it does not validate:
// the text must pass parseDeviceJson before it is written.
std::string deviceFileText(const util::Json& values, const std::vector<SourcedValue>& sources);

// The measured host as a device file's text (its hardware figures, sourced to the measurement;
// none of the engine's software figures): the datasheet a calibration on PyTorch runs of this
// machine starts from. Passes parseDeviceJson under the name host.json.
std::string hostDeviceFileText(const DeviceSpec& host);

}  // namespace core::hw
