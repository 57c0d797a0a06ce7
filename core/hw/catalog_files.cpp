#include "core/hw/catalog_files.h"


#include "core/util/error.h"

namespace core::hw {

util::FileListing jsonFilesIn(const std::string& dir) { return util::listFiles(dir, {".json"}); }

std::vector<SourcedValue> parseSources(const std::string& path, const util::Json& root,
                                       const std::function<bool(const std::string&)>& isKnown) {
  const auto fail = [&](const std::string& key, const std::string& what) { util::failKey(path, key, what); };
  const util::Json& sources = root.at("sources");
  if (!sources.isObject()) fail("sources", "must be an object mapping each figure's key to {\"ref\", \"date\"}");
  std::vector<SourcedValue> out;
  for (const auto& [key, value] : sources.asObject()) {
    if (!isKnown(key)) fail("sources." + key, "names an unknown key");
    if (!root.contains(key)) fail("sources." + key, "gives a source for a key the file does not set");
    if (!value.isObject()) fail("sources." + key, "must be an object {\"ref\": ..., \"date\": ...}");
    SourcedValue sv;
    sv.key = key;
    for (const auto& [field, fv] : value.asObject()) {
      if (field != "ref" && field != "date") fail("sources." + key + "." + field, "unknown key (use ref, date)");
      if (!fv.isString() || fv.asString().empty()) fail("sources." + key + "." + field, "must be a non-empty string");
      (field == "ref" ? sv.ref : sv.date) = fv.asString();
    }
    if (sv.ref.empty()) fail("sources." + key + ".ref", "missing required key");
    if (sv.date.empty()) fail("sources." + key + ".date", "missing required key");
    out.push_back(std::move(sv));
  }
  return out;
}

util::Json sourcesToJson(const std::vector<SourcedValue>& sources) {
  util::Json out = util::Json::object();
  for (const auto& s : sources) {
    util::Json one = util::Json::object();
    one.set("ref", s.ref);
    one.set("date", s.date);
    out.set(s.key, one);
  }
  return out;
}

}  // namespace core::hw
