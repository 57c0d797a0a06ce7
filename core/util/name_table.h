#pragma once
// An enum's one name in files, the CLI and the GUI's data, both ways: a constexpr table per
// enum (core/experiment/names.h, core/sim/sim_report.h). Nothing else spells the names.
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace core::util {

template <class E, std::size_t N>
struct NameTable {
  std::array<std::pair<E, std::string_view>, N> entries;

  constexpr std::string_view name(E value) const {
    for (const auto& [v, n] : entries)
      if (v == value) return n;
    return entries.front().second;
  }
  constexpr std::optional<E> parse(std::string_view name) const {
    for (const auto& [v, n] : entries)
      if (n == name) return v;
    return std::nullopt;
  }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& [v, n] : entries) out.emplace_back(n);
    return out;
  }
  std::string list() const {  // "adam, sgd": for error messages
    std::string out;
    for (const auto& [v, n] : entries) out += (out.empty() ? "" : ", ") + std::string(n);
    return out;
  }
};

}  // namespace core::util
