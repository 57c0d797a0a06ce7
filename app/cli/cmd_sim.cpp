// Placeholder until the sim side lands: each command reports that it is not built yet.
#include <ostream>
#include "app/cli/commands.h"
namespace app::cli {
const char* const kSimulateUsage = "Usage: accellab-cli simulate (not built yet)\n";
int cmdSimulate(const CommandArgs&, std::ostream&, std::ostream& err) { err << "accellab-cli simulate: not built yet\n"; return 3; }
const char* const kSweepUsage = "Usage: accellab-cli sweep (not built yet)\n";
int cmdSweep(const CommandArgs&, std::ostream&, std::ostream& err) { err << "accellab-cli sweep: not built yet\n"; return 3; }
const char* const kValidateUsage = "Usage: accellab-cli validate (not built yet)\n";
int cmdValidate(const CommandArgs&, std::ostream&, std::ostream& err) { err << "accellab-cli validate: not built yet\n"; return 3; }
const char* const kDevicesUsage = "Usage: accellab-cli devices (not built yet)\n";
int cmdDevices(const CommandArgs&, std::ostream&, std::ostream& err) { err << "accellab-cli devices: not built yet\n"; return 3; }
}  // namespace app::cli
