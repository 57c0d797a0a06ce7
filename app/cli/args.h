#pragma once
// Command-line arguments of one accellab-cli subcommand: `--key value` pairs and `--flag`s.
// Typed getters validate and throw core::util::Error naming the argument and the bad value,
// so every subcommand reports bad input the same way.
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace app::cli {

class Args {
public:
  // `flags` are the option names that take no value (e.g. "help").
  Args(const std::vector<std::string>& argv, const std::set<std::string>& flags = {"help"});

  bool has(const std::string& key) const;
  bool flag(const std::string& key) const { return has(key); }
  std::string str(const std::string& key, const std::string& fallback) const;
  std::string required(const std::string& key) const;
  // Integers and reals: the whole value must parse and lie in [min, max].
  std::int64_t integer(const std::string& key, std::int64_t fallback, std::int64_t min = INT64_MIN,
                       std::int64_t max = INT64_MAX) const;
  double real(const std::string& key, double fallback, double min = -1e300, double max = 1e300) const;
  // Comma-separated lists: "a,b,c".
  std::vector<std::string> list(const std::string& key, const std::vector<std::string>& fallback) const;
  std::vector<std::int64_t> integerList(const std::string& key, const std::vector<std::int64_t>& fallback,
                                        std::int64_t min = INT64_MIN, std::int64_t max = INT64_MAX) const;
  // Throws naming the first option not in `known` (catches typos such as --bach).
  void allowOnly(const std::set<std::string>& known) const;
  const std::vector<std::string>& positional() const { return m_positional; }

private:
  std::map<std::string, std::string> m_values;
  std::vector<std::string> m_positional;
};

std::int64_t parseInteger(const std::string& what, const std::string& text, std::int64_t min, std::int64_t max);
double parseReal(const std::string& what, const std::string& text, double min, double max);

// The file an option names, read through core::util::readFile (regular files only, at most
// `maxBytes`): a FIFO, a device or a missing file is refused at once with the option named.
std::string readOptionFile(const std::string& option, const std::string& path, std::uint64_t maxBytes);

// The flag that sets a field of core's settings (core::util::FieldError::field(): the
// experiment file's key): "steps_per_epoch" -> "--steps-per-epoch", "learning_rate" -> "--lr".
std::string flagOf(const std::string& field);
// An error as the CLI says it: a FieldError names the flag ("--batch: must be ..."); any
// other its own message.
std::string cliMessage(const std::exception& e);
// The flag that replaces an existing output file (core::util::checkOutputPath).
inline constexpr const char* kForceFlag = "--force";

}  // namespace app::cli
