#include "app/cli/args.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <sstream>

#include "core/util/error.h"
#include "core/util/files.h"

namespace app::cli {
using core::util::Error;

Args::Args(const std::vector<std::string>& argv, const std::set<std::string>& flags) {
  for (std::size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (a.rfind("--", 0) != 0 || a.size() == 2) {
      m_positional.push_back(a);
      continue;
    }
    std::string key = a.substr(2), value;
    if (const auto eq = key.find('='); eq != std::string::npos) {
      value = key.substr(eq + 1);
      key = key.substr(0, eq);
    } else if (flags.count(key)) {
      value = "1";
    } else {
      if (i + 1 >= argv.size()) throw Error("option --" + key + " needs a value");
      value = argv[++i];
    }
    if (m_values.count(key)) throw Error("option --" + key + " given twice");
    m_values[key] = value;
  }
}

bool Args::has(const std::string& key) const { return m_values.count(key) > 0; }

std::string Args::str(const std::string& key, const std::string& fallback) const {
  const auto it = m_values.find(key);
  return it == m_values.end() ? fallback : it->second;
}

std::string Args::required(const std::string& key) const {
  const auto it = m_values.find(key);
  if (it == m_values.end() || it->second.empty()) throw Error("missing required option --" + key);
  return it->second;
}

namespace {
// A value as a message quotes it: a number typed with hundreds of digits is not echoed whole.
std::string quoted(const std::string& text) {
  if (text.size() <= 24) return text;
  return text.substr(0, 12) + "... (" + std::to_string(text.size()) + " characters)";
}
}  // namespace

std::int64_t parseInteger(const std::string& what, const std::string& text, std::int64_t min, std::int64_t max) {
  std::int64_t v = 0;
  const auto res = std::from_chars(text.data(), text.data() + text.size(), v);
  const bool whole = res.ptr == text.data() + text.size();
  const bool tooLarge = res.ec == std::errc::result_out_of_range;  // whole, beyond 64 bits
  if (!whole || (res.ec != std::errc() && !tooLarge))
    throw Error(what + ": '" + quoted(text) + "' is not a whole number");
  if (tooLarge || v < min || v > max) {
    std::ostringstream os;
    os << what << ": " << (tooLarge ? quoted(text) : std::to_string(v)) << " is out of range";
    if (min != INT64_MIN && max != INT64_MAX) os << " [" << min << ", " << max << "]";
    else if (min != INT64_MIN) os << " (must be at least " << min << ")";
    else if (max != INT64_MAX) os << " (must be at most " << max << ")";
    else os << " (a 64-bit whole number)";
    throw Error(os.str());
  }
  return v;
}

double parseReal(const std::string& what, const std::string& text, double min, double max) {
  double v = 0;
  const auto res = std::from_chars(text.data(), text.data() + text.size(), v);
  const bool tooLarge = res.ec == std::errc::result_out_of_range;  // 1e400, or 1e-400
  if ((res.ec != std::errc() && !tooLarge) || res.ptr != text.data() + text.size() || (!tooLarge && !std::isfinite(v)))
    throw Error(what + ": '" + quoted(text) + "' is not a number");
  if (tooLarge || v < min || v > max) {
    std::ostringstream os;
    os << what << ": " << quoted(text) << " is out of range";
    if (min > -1e300 && max < 1e300) os << " [" << min << ", " << max << "]";
    else if (v < min) os << " (must be at least " << min << ")";
    else if (max < 1e300) os << " (must be at most " << max << ")";
    else os << " (beyond the range of a double)";
    throw Error(os.str());
  }
  return v;
}

std::string readOptionFile(const std::string& option, const std::string& path, std::uint64_t maxBytes) {
  std::string why;
  std::optional<std::string> text = core::util::tryReadFile(path, maxBytes, why);
  if (!text) throw Error(option + ": " + why);
  return std::move(*text);
}

std::int64_t Args::integer(const std::string& key, std::int64_t fallback, std::int64_t min, std::int64_t max) const {
  const auto it = m_values.find(key);
  if (it == m_values.end()) return fallback;
  return parseInteger("--" + key, it->second, min, max);
}

double Args::real(const std::string& key, double fallback, double min, double max) const {
  const auto it = m_values.find(key);
  if (it == m_values.end()) return fallback;
  return parseReal("--" + key, it->second, min, max);
}

std::vector<std::string> Args::list(const std::string& key, const std::vector<std::string>& fallback) const {
  const auto it = m_values.find(key);
  if (it == m_values.end()) return fallback;
  std::vector<std::string> out;
  std::stringstream ss(it->second);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item.empty()) throw Error("--" + key + ": empty item in list '" + it->second + "'");
    out.push_back(item);
  }
  if (out.empty()) throw Error("--" + key + ": empty list");
  return out;
}

std::vector<std::int64_t> Args::integerList(const std::string& key, const std::vector<std::int64_t>& fallback,
                                            std::int64_t min, std::int64_t max) const {
  if (!has(key)) return fallback;
  std::vector<std::int64_t> out;
  for (const auto& s : list(key, {})) out.push_back(parseInteger("--" + key, s, min, max));
  return out;
}

void Args::allowOnly(const std::set<std::string>& known) const {
  for (const auto& kv : m_values)
    if (!known.count(kv.first)) throw Error("unknown option --" + kv.first + " (see --help)");
}

std::string flagOf(const std::string& field) {
  // The experiment file's key -> the flag that sets it, where they differ beyond '_' -> '-'.
  static const std::vector<std::pair<std::string, std::string>> kFlags = {{"learning_rate", "lr"},
                                                                          {"bn_stats_samples", "bn-stats"}};
  for (const auto& [f, flag] : kFlags)
    if (f == field) return "--" + flag;
  std::string flag = field;
  std::replace(flag.begin(), flag.end(), '_', '-');
  return "--" + flag;
}

std::string cliMessage(const std::exception& e) {
  if (const auto* f = dynamic_cast<const core::util::FieldError*>(&e)) return flagOf(f->field()) + ": " + f->problem();
  return e.what();
}

}  // namespace app::cli
