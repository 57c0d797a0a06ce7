#pragma once
// The history targets' one invariant: a run the app accepted is written and read back whole
// (its epochs, batches and devices), so nothing the app shows is lost at its next save.
#include "core/experiment/run_record.h"
#include "core/util/error.h"

namespace fuzz {

inline void requireRecordRoundTrips(const core::experiment::RunRecord& run) {
  try {
    const core::experiment::RunRecord back =
        core::experiment::runFromFile(core::experiment::runFileJson(run), "again.json");
    if (back.epochs.size() != run.epochs.size() || back.batches.size() != run.batches.size() ||
        back.devices.size() != run.devices.size())
      __builtin_trap();
  } catch (const core::util::Error&) {
    __builtin_trap();  // the app would write a run it cannot read back
  }
}

}  // namespace fuzz

#ifdef ACCELLAB_FUZZ_APP_RUNS
// The app's runs (widgets::Run) go through the same codec, converted (app/gui/run_codec.h).
#include "app/gui/run_history.h"

namespace fuzz {

inline void requireRunRoundTrips(const widgets::Run& run) {
  try {
    const widgets::Run back = app::gui::runFromFile(app::gui::runFileJson(run), "again.json");
    if (back.epochs.size() != run.epochs.size() || back.batches.size() != run.batches.size() ||
        back.devices.size() != run.devices.size())
      __builtin_trap();
  } catch (const core::util::Error&) {
    __builtin_trap();  // the app would write a run it cannot read back
  }
}

}  // namespace fuzz
#endif
