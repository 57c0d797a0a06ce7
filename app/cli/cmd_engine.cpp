// Placeholder until the engine side lands: each command reports that it is not built yet.
#include <ostream>
#include "app/cli/commands.h"
namespace app::cli {
const char* const kTrainUsage = "Usage: accellab-cli train (not built yet)\n";
int cmdTrain(const CommandArgs&, std::ostream&, std::ostream& err) { err << "accellab-cli train: not built yet\n"; return 3; }
const char* const kBenchUsage = "Usage: accellab-cli bench (not built yet)\n";
int cmdBench(const CommandArgs&, std::ostream&, std::ostream& err) { err << "accellab-cli bench: not built yet\n"; return 3; }
const char* const kModelsUsage = "Usage: accellab-cli models (not built yet)\n";
int cmdModels(const CommandArgs&, std::ostream&, std::ostream& err) { err << "accellab-cli models: not built yet\n"; return 3; }
const char* const kDatasetsUsage = "Usage: accellab-cli datasets (not built yet)\n";
int cmdDatasets(const CommandArgs&, std::ostream&, std::ostream& err) { err << "accellab-cli datasets: not built yet\n"; return 3; }
}  // namespace app::cli
