#pragma once
// CONTRACT: the one JSON spelling of an experiment. Presets, settings, the run history, the
// CLI and exports all use it, so a setting has one name everywhere ("learning_rate",
// "price": "preemptible") and the round trip is lossless. Reading is strict: an unknown key,
// a value of the wrong type or out of core/experiment/limits.h is an error naming the file
// and the key path.
#include <string>

#include "core/experiment/experiment.h"
#include "core/util/json.h"
#include "core/util/json_reader.h"

namespace core::experiment {

util::Json trainConfigToJson(const TrainConfig& config);
// Absent keys keep TrainConfig's defaults (dataset, model and batch are required).
TrainConfig trainConfigFromJson(const util::JsonReader& in);

util::Json deviceChoiceToJson(const DeviceChoice& choice);
DeviceChoice deviceChoiceFromJson(const util::JsonReader& in);

// {"experiment": {train config}, "mode": "train"|"simulate", "stack", "compare_stack",
// "devices": [...], "preset"}: the keys a preset file shares with a saved experiment.
util::Json experimentToJson(const Experiment& experiment);
// Reads those keys and rejects any other (finish()).
Experiment experimentFromJson(const util::JsonReader& in);
// Reads those keys only, leaving the object's other keys to the caller (a preset's title...).
Experiment readExperimentKeys(const util::JsonReader& in);
// Parses `text`; errors name `source`.
Experiment experimentFromJsonText(const std::string& text, const std::string& source);

}  // namespace core::experiment
