// Model files and Hugging Face config.json files: the input is the file. It is read the way
// readModelFile reads one (a config.json when it has a model_type and no model-file kind), then
// every count and cost the simulator asks of a model is computed: none may overflow, divide by
// zero or run away.
#include <cmath>

#include "core/nn/graph_model_file.h"
#include "core/nn/hf_config.h"
#include "core/nn/network.h"
#include "core/nn/model_file.h"
#include "core/sim/llm_workload.h"
#include "core/util/error.h"
#include "core/util/json.h"
#include "fuzz_target.h"

// A CNN/RNN's layer graph: accepted means built at its default input; then its text reads back
// as the same model, and its counts hold for another input or fail with a message.
int graphModel(const core::util::Json& root) {
  core::nn::GraphModelFile m;
  try {
    m = core::nn::graphModelFromJson(root, "/fuzz/model.json");
  } catch (const core::util::Error&) {
    return 0;
  }
  try {
    const auto net = core::nn::buildGraphModel(m, core::nn::ModelInput{{1, 1, 1}, 10, 0});
    const core::util::Json back = core::util::Json::parse(core::nn::graphModelText(m), "/fuzz/back.json");
    const auto again = core::nn::buildGraphModel(core::nn::graphModelFromJson(back, "/fuzz/back.json"),
                                                 core::nn::ModelInput{{1, 1, 1}, 10, 0});
    if (again->paramCount() != net->paramCount() || net->paramCount() < 0) __builtin_trap();
    if (!std::isfinite(net->stats().forwardFlops())) __builtin_trap();
  } catch (const core::util::Error&) {
    __builtin_trap();
  }
  try {
    core::nn::buildGraphModel(m, core::nn::ModelInput{{3, 17, 9}, 3, 7});
  } catch (const core::util::Error&) {
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  core::nn::TransformerSpec s;
  try {
    const core::util::Json root =
        core::util::Json::parse(fuzz::text(data, size), "/fuzz/config.json", core::util::kDataFileJsonLimits);
    if (!root.isObject()) return 0;
    if (core::nn::isGraphModelJson(root)) return graphModel(root);
    s = core::nn::isHuggingFaceConfig(root) ? core::nn::transformerFromHuggingFace(root, "/fuzz/config.json")
                                            : core::nn::transformerFromModelJson(root, "/fuzz/model.json");
  } catch (const core::util::Error&) {
    return 0;  // refused with a message: the right answer
  }
  // An accepted model: every count and cost must hold, and none may throw.
  try {
    if (s.params() < 1 || s.activeParams() > s.params() || s.activeParams() < 1) __builtin_trap();
    if (!(s.forwardFlopsPerSample(0) > 0) || !std::isfinite(s.forwardFlopsPerSample(0))) __builtin_trap();
    const double share = s.attentionPairShare(0);
    if (!(share > 0 && share <= 1)) __builtin_trap();
    // The model-file form reads back the same model.
    const core::util::Json back = core::nn::transformerToModelJson(s);
    if (core::nn::transformerFromModelJson(back, "/fuzz/back.json").params() != s.params()) __builtin_trap();
  } catch (const core::util::Error&) {
    __builtin_trap();
  }
  // The simulator's ops at a short sequence (a long one is the step model's business; a learned
  // table shorter than it is refused with a message).
  try {
    const core::sim::TransformerWork w =
        core::sim::makeTransformerWork(s, std::min(s.tokensPerSample(0), 64), core::sim::Finetune::Full, 0);
    if (!(w.modelFlopsPerToken > 0) || !std::isfinite(w.modelFlopsPerToken)) __builtin_trap();
  } catch (const core::util::Error&) {
  }
  return 0;
}
