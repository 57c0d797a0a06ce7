#pragma once
// The parts every exported PyTorch job shares (core/bridge/torch_export.h): the imports, the
// runner (devices, precision, data, training loops and the run log) and the job's configuration
// pieces. Internal to core/bridge: the engine's models (torch_export.cpp) and the transformers
// (torch_transformer_job.cpp) are written from these, once.
#include <string>

#include "core/bridge/torch_export.h"
#include "core/data/dataset_info.h"
#include "core/util/json.h"

namespace core::bridge::detail {

const char* torchImports();  // the program's first lines
const char* torchRunner();   // everything after the model: parse_args() ... main()

// Where a dataset's files come from for train.py.
struct DataPlan {
  std::string reader;      // "idx", "cifar", "text", "synthetic"
  std::string defaultDir;
  std::string howToGet;
};
DataPlan dataPlanFor(const data::DatasetInfo& info);

// CONFIG's keys every job has: the experiment, `task` ("classify" or "language") and `unit`,
// `seq_len` when > 0, the multi-device `strategy`, where it was exported for, the log version,
// `data`, the optimizer and the LM protocol.
util::Json jobConfig(const ExportRequest& r, const ExportedJob& job, const std::string& task, int seqLen,
                     const std::string& strategy, util::Json data);

// A transformer from its model description (ExportRequest::llm): torch_transformer_job.cpp.
ExportedJob exportTransformerJob(const ExportRequest& r);

// The README's "run it and bring the log back" section.
std::string readmeRunSection(const std::string& launcher);

// The first lines of train.py: what it is, for whom, and the imports.
std::string jobHeader(const ExportRequest& r, const ExportedJob& job, const std::string& date, const std::string& what);

}  // namespace core::bridge::detail
