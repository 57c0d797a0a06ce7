#pragma once
// TrainConfig and DeviceChoice <-> JSON, shared by preset files and the run history, so a
// setting is spelled the same way everywhere ("learning_rate", "price": "preemptible").
#include <QVector>
#include <string>

#include "app/gui/json_reader.h"
#include "core/train/trainer.h"
#include "core/util/json.h"
#include "widgets/hardware_panel.h"
#include "widgets/run_store.h"

namespace app::gui {

core::util::Json trainConfigToJson(const core::train::TrainConfig& config);
// Reads the keys trainConfigToJson writes; absent keys keep TrainConfig's defaults.
core::train::TrainConfig trainConfigFromJson(const JsonReader& in);

core::util::Json deviceChoiceToJson(const widgets::DeviceChoice& choice);
widgets::DeviceChoice deviceChoiceFromJson(const JsonReader& in);

const char* optimizerName(core::train::OptimizerKind kind);  // "adam", "sgd"

// A published reference figure: chart (one of the ids in run_store.h), device, x (absent =
// not applicable), value, label, and where it was published (`source`, may be empty).
core::util::Json referenceMarkToJson(const widgets::ReferenceMark& mark, const QString& source = {});
// Reads the keys above; `source` receives the "source" key when given.
widgets::ReferenceMark referenceMarkFromJson(const JsonReader& in, QString* source = nullptr);

// Writes `text` to `path` atomically (QSaveFile), creating the folder; throws
// core::util::Error naming the path and what failed.
void writeTextFile(const QString& path, const std::string& text);

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
