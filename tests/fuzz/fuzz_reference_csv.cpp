// The reference CSV reader (validate, fit-stacks), the free-text notes of its rows, and the
// readings file applied to them (resources/calibration/readings.json).
#include "core/sim/row_readings.h"
#include "core/sim/validation.h"
#include "core/util/error.h"
#include "fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = fuzz::text(data, size);
  try {
    core::sim::parseReferenceCsv(text, "fuzz.csv");
  } catch (const core::util::Error&) {
  }
  try {
    core::sim::parseNote(text);  // a whole input as one note
  } catch (const core::util::Error&) {
  }
  try {
    const auto readings = core::sim::parseRowReadings(text, "fuzz.json");
    std::vector<core::sim::ReferenceRow> rows(1);
    rows[0].note = text;
    rows[0].a.device = readings.empty() ? std::string() : readings[0].device;
    core::sim::applyReadings(rows, readings);
  } catch (const core::util::Error&) {
  }
  return 0;
}
