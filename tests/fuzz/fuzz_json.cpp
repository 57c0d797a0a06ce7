// The JSON parser every data file goes through; what it parses must dump and parse back equal.
#include "core/util/error.h"
#include "core/util/json.h"
#include "fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const core::util::Json j = core::util::Json::parse(fuzz::text(data, size), "fuzz.json");
    const core::util::Json again = core::util::Json::parse(j.dump(), "dumped.json");
    if (again.dump() != j.dump()) __builtin_trap();  // the writer and the reader disagree
  } catch (const core::util::Error&) {
  }
  return 0;
}
