// Imported run logs (accellab-cli import-run, File > Import measured run): strict reading names
// the line and field; an accepted log has a finite, positive steady state.
#include <cmath>

#include "core/bridge/run_log.h"
#include "core/util/error.h"
#include "fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const core::bridge::RunLog log = core::bridge::parseRunLog(fuzz::text(data, size), "fuzz.jsonl");
    if (log.batch < 1 || log.params < 1 || log.deviceCount < 1) __builtin_trap();  // accepted nonsense
    for (const auto& s : log.steps)
      if (!(s.seconds > 0) || !std::isfinite(s.seconds)) __builtin_trap();
    if (!log.steps.empty()) {
      const core::bridge::SteadyState ss = core::bridge::steadyState(log);
      if (!(ss.stepSeconds > 0) || !std::isfinite(ss.stepSeconds) || !std::isfinite(ss.perSecond)) __builtin_trap();
    }
  } catch (const core::util::Error&) {
  }
  return 0;
}
