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
#include "core/hw/device_spec.h"
#include "core/util/name_table.h"

namespace core::experiment {

using util::NameTable;

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
// The price a device is rented at: the device catalog's table.
using hw::kPriceKindNames;

inline const char* optimizerName(OptimizerKind k) { return kOptimizerNames.name(k).data(); }
inline const char* scheduleName(Schedule s) { return kScheduleNames.name(s).data(); }
inline const char* runStatusName(RunStatus s) { return kRunStatusNames.name(s).data(); }
inline const char* priceKindName(bool preemptible) { return kPriceKindNames.name(preemptible).data(); }

}  // namespace core::experiment
