#pragma once
// Errors at core's API edges. Inside core, invalid input throws core::util::Error with a
// message that names the file, key or value and what is wrong; callers (CLI, GUI) show it.
#include <stdexcept>
#include <string>

#include "core/util/printable.h"

namespace core::util {

// The message is made printable on construction (core/util/printable.h): an error quotes
// file names, keys and values from files, and none of their bytes may steer a terminal.
class Error : public std::runtime_error {
public:
  explicit Error(const std::string& what) : std::runtime_error(printable(what)) {}
  explicit Error(const char* what) : Error(std::string(what)) {}
};

// How every data file (device, stack, fit spec, readings) reports a bad key:
// "FILE: key 'KEY': WHAT".
[[noreturn]] inline void failKey(const std::string& path, const std::string& key, const std::string& what) {
  throw Error(path + ": key '" + key + "': " + what);
}

}  // namespace core::util
