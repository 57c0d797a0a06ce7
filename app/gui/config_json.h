#pragma once
// TrainConfig and DeviceChoice <-> JSON, shared by preset files and the run history, so a
// setting is spelled the same way everywhere ("learning_rate", "price": "preemptible").
#include <QVector>
#include <string>

#include "app/gui/json_reader.h"
#include "core/train/trainer.h"
#include "core/util/json.h"
#include "widgets/hardware_panel.h"

namespace app::gui {

core::util::Json trainConfigToJson(const core::train::TrainConfig& config);
// Reads the keys trainConfigToJson writes; absent keys keep TrainConfig's defaults.
core::train::TrainConfig trainConfigFromJson(const JsonReader& in);

core::util::Json deviceChoiceToJson(const widgets::DeviceChoice& choice);
widgets::DeviceChoice deviceChoiceFromJson(const JsonReader& in);

const char* optimizerName(core::train::OptimizerKind kind);  // "adam", "sgd"

}  // namespace app::gui
