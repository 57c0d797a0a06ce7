#pragma once
// The accellab-cli subcommands. Each takes the arguments after its name, writes its result to
// `out` (JSON or JSON lines unless --format text) and diagnostics to `err`, and returns the
// process exit code. Bad input throws core::util::Error; runCli() prints it and returns 2.
#include <iosfwd>
#include <string>
#include <vector>

namespace app::cli {

using CommandArgs = std::vector<std::string>;

struct Command {
  const char* name;
  const char* summary;
  int (*run)(const CommandArgs& args, std::ostream& out, std::ostream& err);
  const char* usage;  // full help text for `accellab-cli NAME --help`
};

// Engine side (app/cli/cmd_engine.cpp)
int cmdTrain(const CommandArgs&, std::ostream&, std::ostream&);
int cmdBench(const CommandArgs&, std::ostream&, std::ostream&);
int cmdModels(const CommandArgs&, std::ostream&, std::ostream&);
int cmdDatasets(const CommandArgs&, std::ostream&, std::ostream&);
extern const char* const kTrainUsage;
extern const char* const kBenchUsage;
extern const char* const kModelsUsage;
extern const char* const kDatasetsUsage;

// Simulator side (app/cli/cmd_sim.cpp)
int cmdSimulate(const CommandArgs&, std::ostream&, std::ostream&);
class Args;
// simulate for a transformer of the zoo (cmd_llm.cpp); cmdSimulate hands over to it.
int simulateTransformer(const Args& a, std::ostream& out, std::ostream& err);
// train for the language models (lm_train.cpp); cmdTrain hands char-gpt over to it.
int trainLanguageModelCommand(const Args& a, std::ostream& out, std::ostream& err);
// validate for a calibration-llm.csv file (llm_validate.cpp); cmdValidate hands over to it.
int validateLlm(const Args& a, const std::string& path, const std::string& text, std::ostream& out, std::ostream& err);
int cmdSweep(const CommandArgs&, std::ostream&, std::ostream&);
// Presets (app/cli/cmd_presets.cpp): `presets check`
int cmdPresets(const CommandArgs&, std::ostream&, std::ostream&);
extern const char* const kPresetsUsage;
int cmdValidate(const CommandArgs&, std::ostream&, std::ostream&);
int cmdDevices(const CommandArgs&, std::ostream&, std::ostream&);
int cmdStacks(const CommandArgs&, std::ostream&, std::ostream&);
int cmdFitStacks(const CommandArgs&, std::ostream&, std::ostream&);
int cmdPlan(const CommandArgs&, std::ostream&, std::ostream&);  // cmd_llm.cpp
extern const char* const kPlanUsage;
extern const char* const kSimulateUsage;
extern const char* const kSweepUsage;
extern const char* const kValidateUsage;
extern const char* const kDevicesUsage;
extern const char* const kStacksUsage;
extern const char* const kFitStacksUsage;

// The bridge to real hardware (app/cli/cmd_bridge.cpp)
int cmdExportScript(const CommandArgs&, std::ostream&, std::ostream&);
int cmdImportRun(const CommandArgs&, std::ostream&, std::ostream&);
int cmdCalibrate(const CommandArgs&, std::ostream&, std::ostream&);
extern const char* const kExportScriptUsage;
extern const char* const kImportRunUsage;
extern const char* const kCalibrateUsage;

const std::vector<Command>& commands();

// The whole CLI: `accellab-cli COMMAND [options]`. Returns the exit code. What it writes to
// `out` and `err` passes through core::util::printable (app/cli/printable_stream.h): a
// terminal escape or invalid UTF-8 from a file is shown, never obeyed.
int runCli(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);

}  // namespace app::cli
