// A preset file (File -> Presets, a user's own or one downloaded): strict reading, and what is
// accepted is written and read back without an error, so a preset the app shows it can also
// save. The reader is core's (core/experiment/preset.h): no GUI build needed.
#include "core/experiment/preset.h"
#include "core/util/error.h"
#include "fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  core::experiment::Preset p;
  try {
    p = core::experiment::parsePreset(fuzz::text(data, size), "fuzz.json");
  } catch (const core::util::Error&) {
    return 0;
  }
  try {
    const core::experiment::Preset back =
        core::experiment::parsePreset(core::experiment::presetToJson(p), "again.json");
    if (back.title != p.title || back.comparisons.size() != p.comparisons.size() ||
        back.references.size() != p.references.size())
      __builtin_trap();  // the round trip lost a field
  } catch (const core::util::Error&) {
    __builtin_trap();  // the app would save a preset it cannot read back
  }
  return 0;
}
