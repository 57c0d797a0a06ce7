// Model files and Hugging Face config.json files: the input is the file. It is read the way
// readModelFile reads one (a config.json when it has a model_type and no model-file kind), then
// every count and cost the simulator asks of a model is computed: none may overflow, divide by
// zero or run away.
#include <cmath>

#include "core/nn/hf_config.h"
#include "core/nn/model_file.h"
#include "core/sim/llm_workload.h"
#include "core/util/error.h"
#include "core/util/json.h"
#include "fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const core::util::Json root =
        core::util::Json::parse(fuzz::text(data, size), "/fuzz/config.json", core::util::kDataFileJsonLimits);
    if (!root.isObject()) return 0;
    const core::nn::TransformerSpec s = core::nn::isHuggingFaceConfig(root)
                                            ? core::nn::transformerFromHuggingFace(root, "/fuzz/config.json")
                                            : core::nn::transformerFromModelJson(root, "/fuzz/model.json");
    if (s.params() < 1 || s.activeParams() > s.params() || s.activeParams() < 1) __builtin_trap();
    if (!(s.forwardFlopsPerSample(0) > 0) || !std::isfinite(s.forwardFlopsPerSample(0))) __builtin_trap();
    const double share = s.attentionPairShare(0);
    if (!(share > 0 && share <= 1)) __builtin_trap();
    // The simulator's ops at a short sequence (a long one is the step model's business).
    const core::sim::TransformerWork w =
        core::sim::makeTransformerWork(s, std::min(s.tokensPerSample(0), 64), core::sim::Finetune::Full, 0);
    if (!(w.modelFlopsPerToken > 0) || !std::isfinite(w.modelFlopsPerToken)) __builtin_trap();
    const core::util::Json back = core::nn::transformerToModelJson(s);
    if (core::nn::transformerFromModelJson(back, "/fuzz/back.json").params() != s.params()) __builtin_trap();
  } catch (const core::util::Error&) {
  }
  return 0;
}
