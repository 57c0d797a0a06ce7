#pragma once
// CONTRACT: the one JSON form of a SimReport, whichever model it times. `accellab-cli simulate`
// and `plan` print it (its keys are the CLI's documented contract), the run history stores it
// and the GUI's exports write it, so a report read back is the report that was written: every
// field of the configuration and the answer, with a transformer's plan part (r.llm: "plan",
// "tokens_per_second", "memory_breakdown", ...). Per-layer times are written only when asked
// (the CLI's transformer reports) and the history never stores them (they are recomputed).
#include "core/sim/sim_report.h"
#include "core/util/json.h"
#include "core/util/json_reader.h"

namespace core::sim {

// Six significant digits keep the CLI's output stable for scripts and golden files; the
// history keeps every digit.
enum class JsonDigits { Exact, Six };

enum class JsonLayers { Omit, Write };

util::Json simReportToJson(const SimReport& r, JsonDigits digits = JsonDigits::Exact, JsonLayers layers = JsonLayers::Omit);

// Reads what simReportToJson wrote (a report of a run, of a transformer's plan, with or without
// layers), and the run history's first form (the configuration nested under "config").
// Strict: errors name the file and key, unknown keys are refused. config.vcpus reads back as
// the vCPUs the report used (what 0 = "the device's default" resolved to).
SimReport simReportFromJson(const util::JsonReader& in);

// The size keys every report carries: params, trainable_params, forward_flops_per_sample and,
// for a mixture of experts, active_params with the convention it counts by.
void modelSizeToJson(util::Json& j, const ModelSize& size);
inline constexpr const char* kActiveParamsConvention =
    "all parameters but the routed experts a token is not sent to; the input embedding counts (as Mistral, "
    "DeepSeek and Qwen count it); active_params_without_input_embedding leaves it out (as OpenAI counts gpt-oss)";

}  // namespace core::sim
