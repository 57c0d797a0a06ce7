// A preset file (File -> Presets, a user's own or one downloaded): strict reading, and what is
// accepted is written and read back without an error, so a preset the app shows it can also
// save (needs the GUI build: the preset type lives in the app).
#include "app/gui/preset.h"
#include "core/util/error.h"
#include "fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  app::gui::Preset p;
  try {
    p = app::gui::parsePreset(fuzz::text(data, size), "fuzz.json");
  } catch (const core::util::Error&) {
    return 0;
  }
  try {
    const app::gui::Preset back = app::gui::parsePreset(app::gui::presetToJson(p), "again.json");
    if (back.title != p.title || back.comparisons.size() != p.comparisons.size() ||
        back.references.size() != p.references.size())
      __builtin_trap();  // the round trip lost a field
  } catch (const core::util::Error&) {
    __builtin_trap();  // the app would save a preset it cannot read back
  }
  return 0;
}
