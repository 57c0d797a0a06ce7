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

// The panels' whole set-up (kept in the settings as the last experiment).
struct ExperimentSetup {
  core::train::TrainConfig config;
  QVector<widgets::DeviceChoice> devices;
  bool trainHere = true;
  QString presetId;   // the preset it came from, if any
};
std::string experimentSetupToJson(const ExperimentSetup& setup);
// Throws core::util::Error naming `source` and the key.
ExperimentSetup experimentSetupFromJson(const std::string& text, const std::string& source);

}  // namespace app::gui
