#include "core/sim/row_readings.h"

#include <filesystem>
#include <set>

#include "core/util/error.h"
#include "core/util/files.h"
#include "core/util/json.h"

namespace core::sim {
namespace {

using util::Error;
using util::Json;

using util::failKey;

std::string text(const std::string& path, const std::string& where, const Json& o, const char* key) {
  const Json* v = o.find(key);
  if (!v || !v->isString() || v->asString().empty()) failKey(path, where + "." + key, "missing or not a string");
  return v->asString();
}

// Whether the configuration is the reading's device (and so took its hardware).
bool apply(RowConfig& c, const RowReading& r) {
  if (c.device != r.device) return false;
  if (r.vcpus > 0) c.vcpus = r.vcpus;
  return true;
}

}  // namespace

std::vector<RowReading> parseRowReadings(const std::string& body, const std::string& path) {
  const Json root = Json::parse(body, path, util::kDataFileJsonLimits);
  if (!root.isObject()) failKey(path, "(root)", "must be one JSON object {about, readings}");
  for (const auto& [key, value] : root.asObject())
    if (key != "about" && key != "readings") failKey(path, key, "unknown key (known: about, readings)");
  const Json* list = root.find("readings");
  if (!list || !list->isArray()) failKey(path, "readings", "missing or not an array");
  static const std::set<std::string> known = {"note_contains", "device", "vcpus", "why", "source"};
  std::vector<RowReading> out;
  for (std::size_t i = 0; i < list->size(); ++i) {
    const std::string where = "readings[" + std::to_string(i) + "]";
    const Json& o = list->asArray()[i];
    if (!o.isObject()) failKey(path, where, "must be an object");
    for (const auto& [key, value] : o.asObject())
      if (!known.count(key)) failKey(path, where + "." + key, "unknown key");
    RowReading r;
    r.noteContains = text(path, where, o, "note_contains");
    r.device = text(path, where, o, "device");
    r.why = text(path, where, o, "why");
    const Json* v = o.find("vcpus");
    if (!v) failKey(path, where + ".vcpus", "missing: a reading says what the hardware was");
    if (!v->isNumber() || v->asNumber() < 1 || v->asNumber() > 1024 || v->asNumber() != static_cast<int>(v->asNumber()))
      failKey(path, where + ".vcpus", "must be a whole number from 1 to 1024");
    r.vcpus = static_cast<int>(v->asNumber());
    const Json* s = o.find("source");
    if (!s || !s->isObject()) failKey(path, where + ".source", "missing: every reading names its source {ref, date}");
    r.ref = text(path, where + ".source", *s, "ref");
    r.date = text(path, where + ".source", *s, "date");
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<RowReading> readRowReadings(const std::string& path) { return parseRowReadings(util::readFile(path, util::kMaxDataFileBytes), path); }

std::string shippedRowReadingsPath() {
  return (std::filesystem::path(util::resourceDir()) / "calibration" / "readings.json").string();
}

void applyReadings(std::vector<ReferenceRow>& rows, const std::vector<RowReading>& readings) {
  for (auto& row : rows)
    for (const auto& r : readings) {
      if (row.note.find(r.noteContains) == std::string::npos) continue;
      const bool a = apply(row.a, r);
      const bool b = row.b && apply(*row.b, r);
      if (a || b) row.reading = r.why + " (" + r.ref + ", " + r.date + ")";
    }
}

std::vector<ReferenceRow> shippedReferenceRows() {
  std::vector<ReferenceRow> rows = readReferenceCsv(shippedCalibrationCsv());
  applyReadings(rows, readRowReadings(shippedRowReadingsPath()));
  return rows;
}

}  // namespace core::sim
