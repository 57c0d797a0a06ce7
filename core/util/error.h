#pragma once
// Errors at core's API edges. Inside core, invalid input throws core::util::Error with a
// message that names the file, key or value and what is wrong; callers (CLI, GUI) show it.
#include <stdexcept>
#include <string>
#include <utility>

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

// An invalid setting, named by its field: the experiment file's key ("learning_rate",
// "steps_per_epoch"), so the CLI can name its own flag (--steps-per-epoch) and the GUI its own
// widget; what() reads "learning_rate: must be ...".
class FieldError : public Error {
public:
  FieldError(std::string field, const std::string& what) : Error(field + ": " + what), m_field(std::move(field)) {}
  const std::string& field() const { return m_field; }
  // The message without the leading "field: ".
  std::string problem() const { return std::string(what()).substr(m_field.size() + 2); }

private:
  std::string m_field;
};

}  // namespace core::util
