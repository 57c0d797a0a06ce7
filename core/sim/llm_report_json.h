#pragma once
// LlmReport as JSON: the keys `accellab-cli simulate` prints for a transformer, written once so
// the GUI's exports and the CLI agree. Figures are simulated; the object says so.
#include "core/sim/llm_simulator.h"
#include "core/util/json.h"

namespace core::sim {

util::Json planToJson(const ParallelPlan& p);
util::Json llmReportToJson(const LlmReport& r);

}  // namespace core::sim
