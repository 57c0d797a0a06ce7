// The run history (the app's runs/ folder): a run's file, a run's journal (the app ended during
// the run) and the legacy runs.json. The first byte picks which reader; an accepted run must be
// written and read back without an error, so nothing the app loads is lost at its next save.
// The codec is core's (core/experiment/run_record.h): no GUI build needed.
#include "core/experiment/run_record.h"
#include "core/util/error.h"
#include "fuzz_run_round_trip.h"
#include "fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string text = fuzz::text(data + 1, size - 1);
  std::vector<core::experiment::RunRecord> runs;
  try {
    switch (data[0] % 3) {
      case 0: runs.push_back(core::experiment::runFromFile(text, "fuzz.json")); break;
      case 1: runs.push_back(core::experiment::runFromJournal(text, "fuzz.jsonl")); break;
      default: {
        std::vector<std::string> skipped;
        runs = core::experiment::runsFromJson(text, "runs.json", &skipped);
      }
    }
  } catch (const core::util::Error&) {
    return 0;
  }
  for (const auto& run : runs) fuzz::requireRecordRoundTrips(run);
  return 0;
}
