// An LLM study (the planner's presets): strict reading, a lossless round trip, and the study
// run against the shipped catalogs never crashes (only refused scenarios, as values).
#include <string>

#include "core/sim/llm_study.h"
#include "core/util/error.h"
#include "core/util/json.h"
#include "fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const core::util::Json j = core::util::Json::parse(fuzz::text(data, size), "fuzz.json");
    const core::sim::LlmStudy s = core::sim::studyFromJson(j, "fuzz.json");
    const core::sim::LlmStudy back = core::sim::studyFromJson(core::sim::studyToJson(s), "again.json");
    if (!(back == s)) __builtin_trap();  // the round trip lost a field
    static const core::hw::DeviceCatalog devices =
        core::hw::DeviceCatalog::loadDirs({std::string(ACCELLAB_SOURCE_RESOURCES) + "/devices"});
    static const core::hw::StackCatalog stacks =
        core::hw::StackCatalog::loadDirs({std::string(ACCELLAB_SOURCE_RESOURCES) + "/stacks"});
    core::sim::LlmStudy small = s;
    if (small.scenarios.size() > 4) small.scenarios.resize(4);  // bounded work per input
    for (const auto& o : core::sim::runStudy(small, devices, stacks))
      if (!o.report && o.error.empty()) __builtin_trap();  // a refusal must say why
  } catch (const core::util::Error&) {
  }
  return 0;
}
