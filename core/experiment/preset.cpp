#include "core/experiment/preset.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <regex>

#include "core/experiment/experiment_json.h"
#include "core/experiment/limits.h"
#include "core/util/error.h"
#include "core/util/files.h"

namespace core::experiment {

using util::Error;
using util::Json;
using util::JsonReader;

namespace {

ComparisonSide readSide(const JsonReader& in, const std::string& prefix) {
  ComparisonSide s;
  s.deviceId = in.string(prefix + "device");
  if (in.has(prefix + "batch")) s.batch = static_cast<int>(in.integer(prefix + "batch", 1, kMaxBatch));
  if (in.has(prefix + "count")) s.count = static_cast<int>(in.integer(prefix + "count", 1, kMaxDeviceCount));
  if (in.has(prefix + "vcpus")) s.vcpus = static_cast<int>(in.integer(prefix + "vcpus", 1, kMaxVcpus));
  if (in.has(prefix + "dataset")) s.datasetId = in.string(prefix + "dataset");
  return s;
}

void writeSide(Json& j, const ComparisonSide& s, const std::string& prefix) {
  j.set(prefix + "device", s.deviceId);
  if (s.batch) j.set(prefix + "batch", *s.batch);
  if (s.count) j.set(prefix + "count", *s.count);
  if (s.vcpus) j.set(prefix + "vcpus", *s.vcpus);
  if (s.datasetId) j.set(prefix + "dataset", *s.datasetId);
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool startsWithNoCase(const std::string& s, const std::string& prefix) {
  return s.size() >= prefix.size() && lower(s.substr(0, prefix.size())) == lower(prefix);
}

}  // namespace

Json publishedFigureToJson(const PublishedFigure& m) {
  Json r = Json::object();
  r.set("chart", m.chart);
  r.set("device", m.deviceId);
  if (std::isfinite(m.x)) r.set("x", m.x);
  r.set("value", m.value);
  r.set("label", m.label);
  if (!m.measures.empty()) {
    r.set("measures", m.measures);
    r.set("run_images", m.runImages);
  }
  if (!m.source.empty()) r.set("source", m.source);
  return r;
}

PublishedFigure publishedFigureFromJson(const JsonReader& in) {
  PublishedFigure m;
  m.chart = in.choice("chart", {"epoch_time", "throughput", "cost", "cost_per_million", "time_to_accuracy", "sweep"});
  m.deviceId = in.string("device");
  m.x = in.has("x") ? in.number("x", -1e15, 1e15) : std::nan("");
  m.value = in.number("value", 0, 1e15);
  m.label = in.string("label");
  if (in.has("measures")) {
    const std::string what = in.choice("measures", {"steady", "whole_run"});
    if (what == "whole_run") {
      if (m.chart != "throughput") in.fail("measures", "\"whole_run\" is for a throughput figure (chart \"throughput\")");
      if (!in.has("run_images")) in.fail("run_images", "is missing: a whole run's average needs the images the run trained on");
      m.measures = "whole_run";
      m.runImages = in.number("run_images", 1, 1e15);
    }
  }
  m.source = in.string("source", "");
  in.finish();
  return m;
}

bool isValidPresetId(const std::string& id) {
  static const std::regex re("^[a-z0-9][a-z0-9-]{0,63}$");
  return std::regex_match(id, re);
}

std::vector<std::string> guidePlaceholderErrors(const std::string& text, int rows) {
  static const std::regex re("\\{([a-z_]+):(\\d+)\\}");
  std::vector<std::string> errors;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it) {
    const std::string whole = (*it)[0].str(), kind = (*it)[1].str(), digits = (*it)[2].str();
    const long long row = digits.size() > 9 ? -1 : std::stoll(digits);
    if (kind != "published" && kind != "accellab")
      errors.push_back(whole + ": unknown figure \"" + kind + "\" (use published or accellab)");
    else if (row < 1 || row > rows)
      errors.push_back(whole + ": there is no comparison " + digits + " (the preset has " + std::to_string(rows) + ")");
  }
  return errors;
}

Preset parsePreset(const std::string& text, const std::string& source) {
  const Json root = Json::parse(text, source, util::kDataFileJsonLimits);
  const JsonReader in(root, source);
  Preset p;
  p.filePath = source;
  p.id = in.string("id");
  if (!isValidPresetId(p.id)) in.fail("id", "\"" + p.id + "\" must be lowercase letters, digits and '-'");
  p.title = in.string("title");
  p.source = in.string("source", "");
  if (!in.has("mode")) in.fail("mode", "is missing: \"train\" (trains here for real) or \"simulate\"");
  p.experiment = readExperimentKeys(in);
  if (!p.experiment.presetId.empty()) in.fail("preset", "belongs in a saved experiment, not in a preset (its id is \"id\")");
  p.modeNote = in.string("mode_note", "");
  p.explanation = in.string("explanation", "");
  p.targetAccuracy = in.number("target_accuracy", 0, 0, 1);
  for (const JsonReader& r : in.objects("references")) p.references.push_back(publishedFigureFromJson(r));
  for (const JsonReader& c : in.objects("comparisons")) {
    Comparison cmp;
    cmp.label = c.string("label");
    cmp.metric = c.choice("metric", {"speedup", "fits"}) == "fits" ? Comparison::Metric::Fits : Comparison::Metric::Speedup;
    cmp.device = readSide(c, "");
    if (cmp.metric == Comparison::Metric::Speedup) {
      cmp.versus = readSide(c, "vs_");
      cmp.published = c.number("published", 1e-6, 1e6);
    } else {
      cmp.published = static_cast<double>(c.integer("published", 0, 1));
    }
    cmp.epochs = static_cast<int>(c.integer("epochs", p.experiment.train.epochs, 1, kMaxEpochs));
    cmp.stepsPerEpoch = c.integer("steps_per_epoch", 0, 1, 1'000'000'000);
    cmp.approximate = c.boolean("approximate", false);
    cmp.source = c.string("source", "");
    cmp.tolerance = c.number("tolerance", 0, 0.001, 10);
    cmp.explanation = c.string("explanation", "");
    c.finish();
    p.comparisons.push_back(std::move(cmp));
  }
  if (const auto bad = guidePlaceholderErrors(p.explanation, static_cast<int>(p.comparisons.size())); !bad.empty()) {
    std::string all;
    for (const auto& b : bad) all += (all.empty() ? "" : "; ") + b;
    in.fail("explanation", all);
  }
  in.finish();
  return p;
}

Preset loadPresetFile(const std::string& path) { return parsePreset(util::readFile(path), path); }

std::string presetToJson(const Preset& p) {
  Json j = Json::object();
  j.set("id", p.id);
  j.set("title", p.title);
  if (!p.source.empty()) j.set("source", p.source);
  if (!p.modeNote.empty()) j.set("mode_note", p.modeNote);
  if (!p.explanation.empty()) j.set("explanation", p.explanation);
  Experiment e = p.experiment;
  e.presetId.clear();  // a preset is named by its id
  Json keys = experimentToJson(e);  // a named object: the loop must not outlive it
  for (auto& [key, value] : keys.asObject()) j.set(key, std::move(value));
  if (p.targetAccuracy > 0) j.set("target_accuracy", p.targetAccuracy);
  Json refs = Json::array();
  for (const auto& r : p.references) refs.push(publishedFigureToJson(r));
  j.set("references", std::move(refs));
  Json comparisons = Json::array();
  for (const auto& c : p.comparisons) {
    Json o = Json::object();
    o.set("label", c.label);
    o.set("metric", c.metric == Comparison::Metric::Fits ? "fits" : "speedup");
    writeSide(o, c.device, "");
    if (c.metric == Comparison::Metric::Speedup) {
      writeSide(o, c.versus, "vs_");
      o.set("published", c.published);
    } else {
      o.set("published", static_cast<int>(c.published));
    }
    if (c.epochs > 0 && c.epochs != p.experiment.train.epochs) o.set("epochs", c.epochs);
    if (c.stepsPerEpoch > 0) o.set("steps_per_epoch", static_cast<long long>(c.stepsPerEpoch));
    if (c.approximate) o.set("approximate", true);
    if (!c.source.empty()) o.set("source", c.source);
    if (c.tolerance > 0) o.set("tolerance", c.tolerance);
    if (!c.explanation.empty()) o.set("explanation", c.explanation);
    comparisons.push(std::move(o));
  }
  j.set("comparisons", std::move(comparisons));
  return j.dump(2) + "\n";
}

std::vector<DeviceChoice> comparisonDevices(const Preset& p) {
  std::vector<DeviceChoice> devices = p.experiment.devices;
  for (const Comparison& c : p.comparisons)
    for (const std::string& id : {c.device.deviceId, c.versus.deviceId}) {
      if (id.empty()) continue;
      const bool chosen = std::any_of(devices.begin(), devices.end(), [&](const DeviceChoice& d) { return d.deviceId == id; });
      if (!chosen) {
        DeviceChoice d;
        d.deviceId = id;
        devices.push_back(d);
      }
    }
  for (auto& d : devices) d.stackId = stackFor(p.experiment, d);
  return devices;
}

std::string PresetLibrary::builtinFolder() { return (std::filesystem::path(util::resourceDir()) / "presets").string(); }

std::string PresetLibrary::userFolder() { return (std::filesystem::path(util::userDataDir()) / "presets").string(); }

void PresetLibrary::load(const std::string& builtinDir, const std::string& userDir) {
  namespace fs = std::filesystem;
  m_presets.clear();
  m_errors.clear();
  m_failed.clear();
  auto loadFolder = [this](const std::string& dir, bool user) {
    // The one listing: an entry that cannot be read (a dangling or looping symlink, a FIFO, no
    // permission) is named in a warning, not skipped in silence.
    const util::FileListing listing = util::listFiles(dir, {".json"});
    for (const std::string& w : listing.warnings) {
      m_errors.push_back(w);
      // The warning starts with the entry's path: "<dir>/<id>.json: why".
      const std::size_t end = w.find(".json: ");
      if (end != std::string::npos && end > 0) m_failed.emplace_back(fs::path(w.substr(0, end + 5)).stem().string(), w);
    }
    for (const std::string& file : listing.files) {
      std::error_code ec;
      const fs::path abs = fs::absolute(fs::path(file), ec);
      const std::string path = ec ? file : abs.string();
      const std::string stem = fs::path(file).stem().string();
      try {
        Preset p = loadPresetFile(path);
        p.user = user;
        if (p.id != stem)
          throw Error(path + ": id: \"" + p.id + "\" differs from the file name; name the file " + p.id + ".json");
        auto same = std::find_if(m_presets.begin(), m_presets.end(), [&](const Preset& q) { return q.id == p.id; });
        if (same != m_presets.end()) *same = std::move(p);
        else m_presets.push_back(std::move(p));
      } catch (const std::exception& e) {
        m_errors.emplace_back(e.what());
        m_failed.emplace_back(stem, e.what());
      }
    }
  };
  loadFolder(builtinDir, false);
  std::error_code ec;
  const bool sameFolder = !userDir.empty() && fs::equivalent(fs::path(userDir), fs::path(builtinDir), ec);
  if (!userDir.empty() && !sameFolder) loadFolder(userDir, true);
}

std::string PresetLibrary::errorFor(const std::string& idOrPrefix) const {
  if (idOrPrefix.empty()) return {};
  for (const auto& [id, error] : m_failed)
    if (id == idOrPrefix) return error;
  std::string found;
  for (const auto& [id, error] : m_failed) {
    if (!startsWithNoCase(id, idOrPrefix)) continue;
    if (!found.empty()) return {};
    found = error;
  }
  return found;
}

const Preset* PresetLibrary::find(const std::string& idOrPrefix) const {
  if (idOrPrefix.empty()) return nullptr;
  for (const auto& p : m_presets)
    if (p.id == idOrPrefix) return &p;
  const Preset* found = nullptr;
  for (const auto& p : m_presets) {
    if (startsWithNoCase(p.id, idOrPrefix)) {
      if (found) return nullptr;
      found = &p;
    }
  }
  return found;
}

}  // namespace core::experiment
