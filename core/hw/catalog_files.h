#pragma once
// What the device and stack catalogs share about their files: the *.json files of a folder in
// load order, and the `sources` object that gives every figure its {"ref", "date"}.
#include <functional>
#include <string>
#include <vector>

#include "core/hw/device_spec.h"
#include "core/util/files.h"
#include "core/util/json.h"

namespace core::hw {

// The regular *.json files of `dir`, sorted by name; none when it is not a folder. Entries that
// cannot be read (symlink loops, FIFOs, no permission) are named in the listing's warnings.
util::FileListing jsonFilesIn(const std::string& dir);

// Parses root["sources"]: each entry names a key `isKnown` accepts and the file sets, and holds
// exactly a non-empty "ref" and "date". Throws core::util::Error naming `path` and the key.
std::vector<SourcedValue> parseSources(const std::string& path, const util::Json& root,
                                       const std::function<bool(const std::string&)>& isKnown);

// {"key": {"ref": ..., "date": ...}, ...}, the inverse of parseSources.
util::Json sourcesToJson(const std::vector<SourcedValue>& sources);

}  // namespace core::hw
