#pragma once
// Errors at core's API edges. Inside core, invalid input throws core::util::Error with a
// message that names the file, key or value and what is wrong; callers (CLI, GUI) show it.
#include <stdexcept>
#include <string>

namespace core::util {

class Error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// How every data file (device, stack, fit spec, readings) reports a bad key:
// "FILE: key 'KEY': WHAT".
[[noreturn]] inline void failKey(const std::string& path, const std::string& key, const std::string& what) {
  throw Error(path + ": key '" + key + "': " + what);
}

}  // namespace core::util
