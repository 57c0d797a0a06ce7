#include "app/cli/engine_options.h"

#include "core/data/dataset_info.h"
#include "core/experiment/names.h"
#include "core/nn/graph_model_file.h"
#include "core/nn/onnx_model.h"
#include "core/nn/zoo.h"
#include "core/util/error.h"
#include "core/util/numbers.h"

namespace app::cli {

using core::util::Error;

namespace {
std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}
}  // namespace

std::string modelOption(const Args& a) {
  const std::string id = a.required("model");
  if (core::nn::isGraphModelPath(id)) {  // a CNN or RNN described as a layer graph
    try {
      return core::nn::importGraphModel(id).id;
    } catch (const Error& e) {
      throw Error(std::string("--model: ") + e.what());
    }
  }
  if (core::nn::isOnnxPath(id)) {  // an ONNX graph: trained when it is made of the engine's layers
    try {
      return core::nn::importOnnxModel(id).id;
    } catch (const Error& e) {
      throw Error(std::string("--model: ") + e.what());
    }
  }
  try {
    core::nn::modelInfo(id);
  } catch (const Error& e) {
    throw Error(std::string("--model: ") + e.what());
  }
  return id;
}

std::string datasetOption(const Args& a, const std::string& fallback, bool trainable) {
  const std::string id = a.str("dataset", fallback);
  const core::data::DatasetInfo* info = nullptr;
  try {
    info = &core::data::datasetInfo(id);
  } catch (const Error& e) {
    throw Error(std::string("--dataset: ") + e.what());
  }
  if (trainable && !info->loadable) {
    std::vector<std::string> ok;
    for (const auto& d : core::data::datasetCatalog())
      if (d.loadable) ok.push_back(d.id);
    throw Error("--dataset: '" + id + "' is a descriptor only (sizes for the simulator), it cannot be trained on here; "
                "trainable: " + joined(ok));
  }
  return id;
}

core::train::OptimizerKind optimizerOption(const Args& a, core::train::OptimizerKind fallback) {
  if (!a.has("optimizer")) return fallback;
  const std::string v = a.str("optimizer", "");
  if (const auto k = core::experiment::kOptimizerNames.parse(v)) return *k;
  throw Error("--optimizer: '" + v + "' is not one of " + core::experiment::kOptimizerNames.list());
}

core::train::Schedule scheduleOption(const Args& a) {
  const std::string v = a.str("schedule", "constant");
  if (const auto s = core::experiment::kScheduleNames.parse(v)) return *s;
  throw Error("--schedule: '" + v + "' is not one of " + core::experiment::kScheduleNames.list());
}

core::util::Precision precisionOption(const Args& a) {
  const std::string v = a.str("precision", "fp32");
  if (const auto p = core::util::parsePrecision(v)) return *p;
  throw Error("--precision: '" + v + "' is not one of fp32, tf32, bf16, fp16");
}

std::string formatOption(const Args& a, const std::vector<std::string>& allowed) {
  const std::string v = a.str("format", allowed.front());
  for (const auto& f : allowed)
    if (v == f) return v;
  throw Error("--format: '" + v + "' is not one of " + joined(allowed));
}

std::string withThousands(long long n) { return core::util::groupedWhole(static_cast<double>(n)); }

}  // namespace app::cli
