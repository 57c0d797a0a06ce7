#pragma once
// CONTRACT: every enum of an experiment and the one name it has in files, the CLI and the
// GUI's data ("adam", "cosine", "diverged"). One table per enum; nothing else spells them.
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/experiment/run_samples.h"
#include "core/experiment/train_config.h"

namespace core::experiment {

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

inline constexpr NameTable<OptimizerKind, 2> kOptimizerNames{{{{OptimizerKind::Adam, "adam"}, {OptimizerKind::SGD, "sgd"}}}};
inline constexpr NameTable<Schedule, 3> kScheduleNames{
    {{{Schedule::Constant, "constant"}, {Schedule::Step, "step"}, {Schedule::Cosine, "cosine"}}}};
inline constexpr NameTable<RunStatus, 7> kRunStatusNames{{{{RunStatus::NotStarted, "not-started"},
                                                          {RunStatus::Running, "running"},
                                                          {RunStatus::Paused, "paused"},
                                                          {RunStatus::Finished, "finished"},
                                                          {RunStatus::Stopped, "stopped"},
                                                          {RunStatus::Diverged, "diverged"},
                                                          {RunStatus::Failed, "failed"}}}};
// The price a device is rented at.
inline constexpr NameTable<bool, 2> kPriceKindNames{{{{false, "on-demand"}, {true, "preemptible"}}}};

inline const char* optimizerName(OptimizerKind k) { return kOptimizerNames.name(k).data(); }
inline const char* scheduleName(Schedule s) { return kScheduleNames.name(s).data(); }
inline const char* runStatusName(RunStatus s) { return kRunStatusNames.name(s).data(); }
inline const char* priceKindName(bool preemptible) { return kPriceKindNames.name(preemptible).data(); }

}  // namespace core::experiment
