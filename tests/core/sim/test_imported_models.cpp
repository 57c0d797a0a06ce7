// Models the user brings (issue #27): every Hugging Face config of tests/data/hf-configs
// simulates on 8 H100s and on a TPU v5p slice, and what those models add (experts in some
// layers, shared experts, latent attention, sliding windows, expert parallelism with ZeRO)
// changes the step the way it should.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/nn/model_file.h"
#include "core/sim/llm_simulator.h"
#include "core/sim/llm_step.h"
#include "core/sim/llm_study.h"
#include "core/sim/llm_validation.h"
#include "core/sim/llm_workload.h"
#include "core/util/error.h"
#include "sim_test_support.h"

using namespace core::sim;
using core::util::Precision;

namespace {

using simtest::stack;
using simtest::device;

std::string configPath(const std::string& name) { return std::string(ACCELLAB_TEST_DATA) + "/hf-configs/" + name + ".json"; }
const core::nn::TransformerSpec& imported(const std::string& name) { return core::nn::resolveTransformer(configPath(name)); }

SimConfig on(const core::nn::TransformerSpec& s, const std::string& deviceId, int count) {
  SimConfig c = simtest::llmConfig();
  c.modelId = s.id;
  c.deviceId = deviceId;
  c.count = count;
  c.batch = 64;
  c.llm.seqLen = std::min(2048, s.tokensPerSample(0));
  c.precision = Precision::BF16;
  return c;
}

TEST(ImportedModels, EveryConfigSimulatesOnEightH100sAndATpuV5pSlice) {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(ACCELLAB_TEST_DATA) + "/hf-configs")) {
    if (entry.path().extension() != ".json") continue;
    ++files;
    const core::nn::TransformerSpec& s = core::nn::resolveTransformer(entry.path().string());
    for (const auto& [dev, count, stackId] : {std::tuple{"h100", 8, "pytorch-eager"}, std::tuple{"h100", 8, "tuned"},
                                              std::tuple{"tpu-v5p-8", 4, "tuned"}}) {
      const SimReport r = simulateLlm(on(s, dev, count), device(dev), stack(stackId));
      EXPECT_GT(r.stepSeconds, 0) << s.id << " on " << dev;
      EXPECT_EQ(r.size.params, s.params()) << s.id;
      if (s.moe()) {
        EXPECT_EQ(r.size.activeParams, s.activeParams()) << s.id;
      }
      EXPECT_GT(r.size.forwardFlopsPerSample, 0) << s.id;
      // A model that fits has a throughput and an MFU below what hardware allows.
      if (r.fitsInMemory) {
        EXPECT_GT(r.llm->tokensPerSecond, 0) << s.id << " on " << dev;
        EXPECT_LT(r.utilization, 0.8) << s.id << " on " << dev;
      }
    }
  }
  EXPECT_GE(files, 14);
}

TEST(ImportedModels, DeepSeekV3RunsExpertsInFiftyEightOfItsSixtyOneLayers) {
  const core::nn::TransformerSpec& ds = imported("deepseek-ai--DeepSeek-V3");
  const TransformerWork w = makeTransformerWork(ds, 4096, Finetune::Full, 0);
  auto op = [&](const std::string& name) -> const TransformerOp* {
    for (const auto& o : w.block)
      if (o.name == name) return &o;
    return nullptr;
  };
  ASSERT_NE(op("ffn_up"), nullptr);
  ASSERT_NE(op("experts_up"), nullptr);
  ASSERT_NE(op("shared_expert_up"), nullptr);
  ASSERT_NE(op("kv_latent"), nullptr);  // latent attention, not a fused qkv
  EXPECT_EQ(op("qkv"), nullptr);
  EXPECT_NEAR(op("ffn_up")->layerShare, 3.0 / 61, 1e-12);
  EXPECT_NEAR(op("experts_up")->layerShare, 58.0 / 61, 1e-12);
  EXPECT_TRUE(op("experts_up")->routed);
  EXPECT_FALSE(op("shared_expert_up")->routed);
  EXPECT_EQ(op("experts_up")->repeat, 8);
  // 6 N per token counts the eight routed experts and the shared one, not all 256; the rest is
  // the attention over 4,096 tokens (q.k in 192 dimensions a head, v in 128).
  const double attention = 6.0 * 61 * 128 * (192 + 128) * 4096;
  EXPECT_NEAR((w.modelFlopsPerToken - attention) / 6, static_cast<double>(ds.activeMatmulParams()), 1e3);
  EXPECT_LT(ds.activeMatmulParams(), ds.params() / 15);
}

TEST(ImportedModels, ZeroShardsExpertsOverTheReplicasThatHoldThem) {
  // Mixtral on 8 H100s with dp=8, ep=8 and ZeRO-3: each chip holds one expert of each layer
  // whole (its 8 holders are itself) and an eighth of everything else.
  const core::nn::TransformerSpec& m = imported("mistralai--Mixtral-8x7B-v0.1");
  const TransformerWork w = makeTransformerWork(m, 4096, Finetune::Full, 0);
  const LlmUnit u = resolveLlmUnit(device("h100"), core::hw::figuresFor(stack("tuned"), device("h100")), Precision::BF16);
  ParallelPlan p = parseParallelPlan("dp=8,tp=1,pp=1,ep=8,zero=3,microbatch=1");
  const double experts = static_cast<double>(m.routedExpertParams()) / 8;  // one expert a layer
  const double dense = static_cast<double>(m.params() - m.routedExpertParams());
  EXPECT_NEAR(planMemory(w, u, p, 64).weightBytes, 2.0 * (dense / 8 + experts), 2.0 * dense * 1e-6);
  // ep=1: every chip holds all experts, and ZeRO-3 shards them over all 8 replicas.
  p.ep = 1;
  EXPECT_NEAR(planMemory(w, u, p, 64).weightBytes, 2.0 * m.params() / 8, 2.0 * dense * 1e-6);
}

TEST(ImportedModels, ASlidingWindowShortensLongAttention) {
  // Mistral-7B-v0.1's 4,096-token window at 16k tokens: the attention core does about a third of
  // the causal work of the same model without it.
  core::nn::TransformerSpec windowed = imported("mistralai--Mistral-7B-v0.1");
  ASSERT_EQ(windowed.slidingWindow, 4096);
  core::nn::TransformerSpec full = windowed;
  full.slidingWindow = 0;
  full.slidingLayerShare = 0;
  EXPECT_NEAR(windowed.attentionPairShare(16384) / full.attentionPairShare(16384), 0.44, 0.02);
  full.id = "mistral-no-window";
  SimConfig c = on(windowed, "h100", 8);
  c.llm.seqLen = 16384;
  c.batch = 8;
  const double withWindow = simulateLlm(c, device("h100"), stack("tuned")).stepSeconds;
  // The same config on the imported copy without the window.
  c.modelId = core::nn::addImportedTransformer(full).id;
  EXPECT_LT(withWindow, simulateLlm(c, device("h100"), stack("tuned")).stepSeconds * 0.9);
}

}  // namespace

namespace {

TEST(ImportedModels, AStudyCarriesItsImportedModelSoItOpensAnywhere) {
  LlmStudy study;
  EXPECT_FALSE(studyToJson(study).contains("model_file"));  // a shipped model is named, not copied
  study.modelId = imported("openai--gpt-oss-20b").id;
  core::util::Json j = studyToJson(study);
  ASSERT_TRUE(j.contains("model_file"));
  EXPECT_EQ(studyFromJson(j, "study.json").modelId, study.modelId);  // the same model: the same entry
  // A study whose model has the id of another one, with other dimensions, keeps its own.
  j["model_file"].set("layers", 12);
  const LlmStudy other = studyFromJson(j, "study.json");
  EXPECT_NE(other.modelId, study.modelId);
  EXPECT_EQ(core::nn::transformerSpec(other.modelId).layers, 12);
  // A broken embedded model is refused with the study's file and the key.
  j["model_file"].set("kv_heads", 7);
  try {
    studyFromJson(j, "study.json");
    FAIL() << "no error";
  } catch (const core::util::Error& e) {
    EXPECT_NE(std::string(e.what()).find("study.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("kv_heads"), std::string::npos) << e.what();
  }
}

}  // namespace

namespace {

TEST(ImportedModels, AReferenceRowNamesAModelByItsConfigBesideTheTable) {
  // A measurement of a model AccelLab does not ship: the row names its config.json, relative to
  // the table, and joins the validation like any row.
  const std::string dir = std::string(ACCELLAB_TEST_DATA) + "/hf-configs";
  const std::string csv =
      "id,model,dataset,device,count,batch,seq_len,precision,stack,finetune,metric,value,notes,source\n"
      "Q3MOE,Qwen--Qwen3-30B-A3B.json,text,h100,8,64,4096,bf16,tuned,,tokens_per_second,60000,,a test row\n";
  const auto rows = parseLlmReferenceCsv(csv, dir + "/rows.csv");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].model, "qwen3-30b-a3b");
  const LlmValidationResult v = validateLlmRows(simtest::catalog(), simtest::stacks(), rows, "");
  ASSERT_EQ(v.rows.size(), 1u);
  EXPECT_TRUE(v.rows[0].ok) << v.rows[0].error;
  EXPECT_GT(v.rows[0].predicted, 0);
  // A config that is not there is the row's line and the file's name.
  try {
    parseLlmReferenceCsv(
        "id,model,dataset,device,count,batch,seq_len,precision,stack,finetune,metric,value,notes,source\n"
        "X,missing/config.json,text,h100,8,64,4096,bf16,tuned,,tokens_per_second,1,,s\n",
        dir + "/rows.csv");
    FAIL() << "no error";
  } catch (const core::util::Error& e) {
    EXPECT_NE(std::string(e.what()).find("rows.csv:2: model"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("missing/config.json"), std::string::npos) << e.what();
  }
}

}  // namespace
