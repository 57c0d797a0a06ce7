#pragma once
// Parsing shared by the engine subcommands (train, bench, models, datasets): ids checked
// against the catalogs and enumerations, each error naming the option and the bad value.
#include <string>
#include <vector>

#include "app/cli/args.h"
#include "core/experiment/limits.h"
#include "core/train/trainer.h"
#include "core/util/precision.h"

namespace app::cli {

// --model: a zoo id (required).
std::string modelOption(const Args& a);
// --dataset: a catalog id; descriptor-only datasets are rejected when `trainable`.
std::string datasetOption(const Args& a, const std::string& fallback, bool trainable);
core::train::OptimizerKind optimizerOption(const Args& a, core::train::OptimizerKind fallback);
core::train::Schedule scheduleOption(const Args& a);
core::util::Precision precisionOption(const Args& a);
// --format: one of `allowed` (the first is the default).
std::string formatOption(const Args& a, const std::vector<std::string>& allowed);

// Formats a byte count, a count with thousands separators, and a shape as text.
std::string withThousands(long long n);

}  // namespace app::cli
