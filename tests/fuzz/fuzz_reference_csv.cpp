// The reference CSV reader (validate, fit-stacks) and the free-text notes of its rows.
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
  return 0;
}
