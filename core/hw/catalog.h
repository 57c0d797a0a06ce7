#pragma once
// What the device and the stack catalogs share: specs kept by id, found by id, named in errors
// with the ids that are known, and loaded from folders of *.json files where a file that fails
// is named in the load errors while the others load.
#include <algorithm>
#include <exception>
#include <string>
#include <vector>

#include "core/hw/catalog_files.h"
#include "core/util/error.h"

namespace core::hw {

template <class Spec>
class Catalog {
public:
  const Spec* find(const std::string& id) const {
    for (const auto& s : m_items)
      if (s.id == id) return &s;
    return nullptr;
  }
  // Comma-separated ids, for error messages.
  std::string idList() const {
    std::string out;
    for (const auto& s : m_items) out += (out.empty() ? "" : ", ") + s.id;
    return out;
  }
  const std::vector<std::string>& loadErrors() const { return m_loadErrors; }

protected:
  // Throws core::util::Error "unknown <what> '<id>' (known: ...)".
  const Spec& atOrThrow(const std::string& id, const char* what) const {
    if (const Spec* s = find(id)) return *s;
    throw util::Error("unknown " + std::string(what) + " '" + id + "' (known: " +
                      (m_items.empty() ? std::string("none loaded") : idList()) + ")");
  }
  // Replaces the spec of the same id where it stands, else appends.
  void put(Spec spec) {
    auto same = std::find_if(m_items.begin(), m_items.end(), [&](const Spec& s) { return s.id == spec.id; });
    if (same != m_items.end()) *same = std::move(spec);
    else m_items.push_back(std::move(spec));
  }
  // Every *.json of each folder, in order (later folders override earlier ids), parsed by
  // `parse` and added by `add`; a file that fails is named in the load errors.
  template <class Parse, class Add>
  void loadFolders(const std::vector<std::string>& dirs, Parse parse, Add add) {
    for (const auto& dir : dirs) {
      const util::FileListing listing = jsonFilesIn(dir);
      for (const auto& w : listing.warnings) m_loadErrors.push_back(w);
      for (const auto& f : listing.files) {
        try {
          add(parse(f));
        } catch (const std::exception& e) {
          m_loadErrors.emplace_back(e.what());
        }
      }
    }
  }

  std::vector<Spec> m_items;
  std::vector<std::string> m_loadErrors;
};

}  // namespace core::hw
