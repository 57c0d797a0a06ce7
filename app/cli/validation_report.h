#pragma once
// The output of `accellab-cli validate` that both of its validations share (training rows,
// core/sim/validation.h; transformer rows, core/sim/llm_validation.h): their numbers, and
// their error summary as text tables and as JSON.
#include <ostream>
#include <string>

#include "core/sim/validation.h"
#include "core/util/json.h"

namespace app::cli {

// `digits` decimals in fixed point; a value past 10^15 as fmt writes it (never 300 digits).
std::string fixedDigits(double v, int digits);
// Four significant digits.
std::string fourDigits(double v);

// Whether the summary's lines carry the OOM rows' count (training rows have OOM rows; the
// transformer's do not).
enum class OomColumn { Shown, Omitted };

// The tables: per device family, then the overall line; per stack; per stack and family.
void printErrorSummary(std::ostream& out, const core::sim::ErrorSummary& s, OomColumn oom);
// The same as the keys families, stacks, stack_families and overall of `j`.
void setErrorSummaryJson(core::util::Json& j, const core::sim::ErrorSummary& s, OomColumn oom);

}  // namespace app::cli
