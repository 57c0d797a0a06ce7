// calibration-llm.csv rows: strict parsing names the line and column, never crashes.
#include "core/sim/llm_validation.h"
#include "core/util/error.h"
#include "fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const auto rows = core::sim::parseLlmReferenceCsv(fuzz::text(data, size), "fuzz.csv");
    for (const auto& r : rows)
      if (r.count < 1 || r.batch < 1 || r.seqLen < 1 || !(r.value > 0)) __builtin_trap();  // accepted nonsense
  } catch (const core::util::Error&) {
  }
  return 0;
}
