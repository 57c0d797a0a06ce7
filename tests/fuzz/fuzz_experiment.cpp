// An experiment (the keys presets and the saved set-up share): what reads must write and
// read back equal.
#include "core/experiment/experiment_json.h"
#include "core/util/error.h"
#include "fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const auto e = core::experiment::experimentFromJsonText(fuzz::text(data, size), "fuzz.json");
    const auto back = core::experiment::experimentFromJsonText(core::experiment::experimentToJson(e).dump(), "again.json");
    if (!(back == e)) __builtin_trap();  // the round trip lost a field
  } catch (const core::util::Error&) {
  }
  return 0;
}
