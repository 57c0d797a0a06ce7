// Models as data: the model-file format, the Hugging Face config.json reader and the catalog of
// shipped, user and imported models. The configs in tests/data/hf-configs are copies of the
// Hub's files (README.md there says where each came from and what its publisher says).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "core/nn/hf_config.h"
#include "core/nn/model_file.h"
#include "core/nn/transformer_spec.h"
#include "core/util/error.h"
#include "core/util/files.h"
#include "core/util/json.h"

namespace core::nn {
namespace {

namespace fs = std::filesystem;
using util::Json;

std::string configPath(const std::string& name) { return std::string(ACCELLAB_TEST_DATA) + "/hf-configs/" + name + ".json"; }
TransformerSpec config(const std::string& name) { return readModelFile(configPath(name)); }

// The message of the util::Error that `f` throws ("" when it throws none).
template <class F>
std::string errorOf(F f) {
  try {
    f();
  } catch (const util::Error& e) {
    return e.what();
  }
  return "";
}

Json configJson(const std::string& name) { return Json::parseFile(configPath(name), kMaxModelFileBytes); }
TransformerSpec fromJson(const Json& j) { return transformerFromHuggingFace(j, "/tmp/x/config.json"); }

TEST(HuggingFaceConfig, ParameterCountsEqualTheHubsCheckpoints) {
  // The Hub's safetensors totals (README.md): exact, to the parameter.
  struct Case {
    const char* file;
    std::int64_t total;
  } cases[] = {{"meta-llama--Meta-Llama-3-8B", 8030261248},       {"meta-llama--Llama-3.2-3B", 3212749824},
               {"mistralai--Mistral-7B-v0.1", 7241732096},        {"mistralai--Mixtral-8x7B-v0.1", 46702792704},
               {"Qwen--Qwen2.5-7B", 7615616512},                  {"Qwen--Qwen3-8B", 8190735360},
               {"Qwen--Qwen3-30B-A3B", 30532122624},              {"google--gemma-2-9b", 9241705984},
               {"microsoft--Phi-3-mini-4k-instruct", 3821079552}, {"allenai--OLMo-2-1124-7B", 7298617344},
               {"openai--gpt-oss-120b", 116829156672},            {"openai--gpt-oss-20b", 20914757184},
               {"openai-community--gpt2", 124439808}};
  for (const auto& c : cases) EXPECT_EQ(config(c.file).params(), c.total) << c.file;
}

TEST(HuggingFaceConfig, PublishedTotalsWithinHalfAPercent) {
  // Publishers' rounded figures: DeepSeek-V3's 671B is the main model (the Hub's 685B adds the
  // 14B multi-token-prediction module, which AccelLab does not train); BERT's 110M; OLMoE's 6.9B.
  struct Case {
    const char* file;
    double published;
  } cases[] = {{"deepseek-ai--DeepSeek-V3", 671e9}, {"google-bert--bert-base-uncased", 110e6},
               {"allenai--OLMoE-1B-7B-0924", 6.9e9}};
  for (const auto& c : cases) {
    const double p = static_cast<double>(config(c.file).params());
    EXPECT_LT(std::abs(p / c.published - 1), 0.005) << c.file << ": " << p;
  }
}

TEST(HuggingFaceConfig, ActiveParametersOfTheMixturesOfExperts) {
  // With the input embedding (Mistral, DeepSeek, Qwen): within 2% of the published figure.
  struct Case {
    const char* file;
    double published;
  } cases[] = {{"mistralai--Mixtral-8x7B-v0.1", 12.9e9}, {"Qwen--Qwen3-30B-A3B", 3.3e9},
               {"deepseek-ai--DeepSeek-V3", 37e9},       {"allenai--OLMoE-1B-7B-0924", 1.3e9}};
  for (const auto& c : cases) {
    const double a = static_cast<double>(config(c.file).activeParams());
    EXPECT_LT(std::abs(a / c.published - 1), 0.02) << c.file << ": " << a;
  }
  // Without it (OpenAI's convention for gpt-oss: "unembedding counted, embeddings not").
  for (const auto& [file, published] : {std::pair{"openai--gpt-oss-120b", 5.13e9}, std::pair{"openai--gpt-oss-20b", 3.61e9}}) {
    const TransformerSpec s = config(file);
    EXPECT_LT(std::abs((s.activeParams() - s.inputEmbeddingParams()) / published - 1), 0.005) << file;
  }
}

TEST(HuggingFaceConfig, ReadsWhatEachArchitectureAdds) {
  const TransformerSpec ds = config("deepseek-ai--DeepSeek-V3");
  EXPECT_TRUE(ds.mla());
  EXPECT_EQ(ds.kvLoraRank, 512);
  EXPECT_EQ(ds.qLoraRank, 1536);
  EXPECT_EQ(ds.qkHeadDim(), 192);
  EXPECT_EQ(ds.denseLayers, 3);  // first_k_dense_replace
  EXPECT_EQ(ds.sharedExperts, 1);
  EXPECT_EQ(ds.experts, 256);
  EXPECT_EQ(ds.expertsPerToken, 8);
  const TransformerSpec q3 = config("Qwen--Qwen3-30B-A3B");
  EXPECT_EQ(q3.qkNorm, QkNorm::PerHead);
  EXPECT_EQ(q3.expertFfn, 768);
  EXPECT_EQ(q3.denseLayers, 0);
  const TransformerSpec g2 = config("google--gemma-2-9b");
  EXPECT_EQ(g2.ffnKind, FfnKind::GeGlu);
  EXPECT_EQ(g2.normsPerLayer, 4);
  EXPECT_TRUE(g2.tiedEmbeddings);
  EXPECT_DOUBLE_EQ(g2.slidingLayerShare, 0.5);
  const TransformerSpec oss = config("openai--gpt-oss-120b");
  EXPECT_TRUE(oss.attentionSinks);
  EXPECT_EQ(oss.slidingWindow, 128);
  EXPECT_DOUBLE_EQ(oss.slidingLayerShare, 0.5);  // layer_types alternates
  const TransformerSpec bert = config("google-bert--bert-base-uncased");
  EXPECT_EQ(bert.kind, TransformerKind::Encoder);
  EXPECT_EQ(config("openai-community--gpt2").maxPositions, 1024);
  // The id comes from the file's folder when it names no _name_or_path.
  EXPECT_EQ(fromJson(configJson("meta-llama--Meta-Llama-3-8B")).id, "x");
}

TEST(HuggingFaceConfig, ForwardFlopsAreTwiceTheMultiplyAdds) {
  // GPT-2 small at 1,024 tokens: 2 x (1,024 x 85M block weights + 12 x 1,024^2 x 1,536 for the
  // attention + 1,024 x 768 x 50,257 for the head).
  const TransformerSpec g = config("openai-community--gpt2");
  const double blocks = 12.0 * (4 * 768.0 * 768 + 2 * 768.0 * 3072);
  const double expected = 2 * (1024 * blocks + 12 * 1024.0 * 1024 * 2 * 768 + 1024.0 * 768 * 50257);
  EXPECT_NEAR(g.forwardFlopsPerSample(1024), expected, expected * 1e-9);
  // A mixture of experts counts the experts a token uses, not all of them.
  const TransformerSpec m = config("mistralai--Mixtral-8x7B-v0.1");
  EXPECT_LT(m.forwardFlopsPerSample(1) / 2, 0.3 * static_cast<double>(m.params()));
}

TEST(HuggingFaceConfig, RefusalsNameTheFileTheModelTypeAndTheKey) {
  Json j = configJson("meta-llama--Meta-Llama-3-8B");
  Json missing = j;
  auto& obj = missing.asObject();
  std::erase_if(obj, [](const auto& kv) { return kv.first == "hidden_size"; });
  std::string e = errorOf([&] { fromJson(missing); });
  EXPECT_NE(e.find("config.json"), std::string::npos) << e;
  EXPECT_NE(e.find("'llama'"), std::string::npos) << e;
  EXPECT_NE(e.find("hidden_size"), std::string::npos) << e;

  for (const auto& [key, value] : {std::pair<std::string, Json>{"hidden_size", 0}, {"num_hidden_layers", -3},
                                   {"vocab_size", 1e12}, {"num_key_value_heads", 7}, {"intermediate_size", 3.5},
                                   {"num_attention_heads", "32"}, {"hidden_act", "tanh"}}) {
    Json bad = j;
    bad.set(key, value);
    e = errorOf([&] { fromJson(bad); });
    EXPECT_NE(e.find(key), std::string::npos) << key << ": " << e;
  }
  Json unknown = j;
  unknown.set("model_type", "llava");
  e = errorOf([&] { fromJson(unknown); });
  EXPECT_NE(e.find("'llava'"), std::string::npos) << e;
  EXPECT_NE(e.find("qwen3_moe"), std::string::npos) << e;  // the readable ones are listed

  Json ds = configJson("deepseek-ai--DeepSeek-V3");
  ds.set("first_k_dense_replace", 61);
  e = errorOf([&] { fromJson(ds); });
  EXPECT_NE(e.find("first_k_dense_replace"), std::string::npos) << e;
  Json oss = configJson("openai--gpt-oss-20b");
  oss.set("layer_types", Json::array());
  e = errorOf([&] { fromJson(oss); });
  EXPECT_NE(e.find("layer_types"), std::string::npos) << e;
  // Dimensions too large to count are refused, not overflowed.
  Json huge = j;
  huge.set("num_hidden_layers", 10000);
  huge.set("intermediate_size", 1 << 20);
  huge.set("hidden_size", 1 << 20);
  huge.set("head_dim", 128);
  e = errorOf([&] { fromJson(huge); });
  EXPECT_NE(e.find("10^15"), std::string::npos) << e;
}

TEST(ModelFile, ShippedModelsRoundTripThroughTheirFileForm) {
  for (const auto& s : referenceTransformers()) {
    const TransformerSpec back = transformerFromModelJson(transformerToModelJson(s), s.id + ".json");
    EXPECT_EQ(transformerToModelJson(back), transformerToModelJson(s)) << s.id;
    EXPECT_EQ(back.params(), s.params()) << s.id;
    EXPECT_FALSE(s.sourceDate.empty()) << s.id;
  }
  // An imported config written as a model file reads back the same model.
  const TransformerSpec ds = config("deepseek-ai--DeepSeek-V3");
  EXPECT_EQ(transformerFromModelJson(transformerToModelJson(ds), "ds.json").params(), ds.params());
}

TEST(ModelFile, UnknownKeysAndBadValuesAreRefusedWithFileAndKey) {
  Json j = transformerToModelJson(transformerSpec("llama3-8b"));
  Json typo = j;
  typo.set("kv_head", 8);
  std::string e = errorOf([&] { transformerFromModelJson(typo, "/models/mine.json"); });
  EXPECT_NE(e.find("/models/mine.json"), std::string::npos) << e;
  EXPECT_NE(e.find("kv_head"), std::string::npos) << e;
  Json bad = j;
  bad.set("kv_heads", 7);
  e = errorOf([&] { transformerFromModelJson(bad, "/models/mine.json"); });
  EXPECT_NE(e.find("kv_heads"), std::string::npos) << e;
  Json noSource = j;
  noSource.set("source", "");
  EXPECT_NE(errorOf([&] { transformerFromModelJson(noSource, "m.json"); }).find("source"), std::string::npos);
  Json badId = j;
  badId.set("id", "../../etc");
  EXPECT_NE(errorOf([&] { transformerFromModelJson(badId, "m.json"); }).find("id"), std::string::npos);
}

TEST(TransformerCatalog, ImportsKeepTheirIdUnlessAnotherModelHasIt) {
  TransformerSpec s = config("Qwen--Qwen3-8B");
  s.id = "llama3-8b";  // a shipped id, other dimensions
  const TransformerSpec& a = addImportedTransformer(s);
  EXPECT_EQ(a.id, "llama3-8b-2");
  EXPECT_EQ(&addImportedTransformer(s), &a);  // the same model again: the same entry
  EXPECT_EQ(findTransformer("llama3-8b-2"), &a);
  // Resolving a path imports it; resolving it again finds the import.
  const TransformerSpec& g = resolveTransformer(configPath("openai--gpt-oss-20b"));
  EXPECT_EQ(g.id, "gpt-oss-20b");
  EXPECT_EQ(&resolveTransformer("gpt-oss-20b"), &g);
  EXPECT_NE(errorOf([] { resolveTransformer("/no/such/config.json"); }).find("/no/such/config.json"), std::string::npos);
}

TEST(TransformerCatalog, AUsersFolderAddsAndReplacesModelsAndABrokenFileIsNamedNotFatal) {
  const fs::path dir = fs::temp_directory_path() / ("accellab-models-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string shipped = std::string(ACCELLAB_SOURCE_RESOURCES) + "/models";
  util::writeFileAtomic((dir / "mine.json").string(), transformerToModelJson(config("Qwen--Qwen3-8B")).dump(2));
  TransformerSpec mine = transformerSpec("gpt2-small");
  mine.layers = 6;  // the user's own gpt2-small
  util::writeFileAtomic((dir / "gpt2-small.json").string(), transformerToModelJson(mine).dump(2));
  fs::copy_file(configPath("openai--gpt-oss-20b"), dir / "gpt-oss-20b.json");  // a config.json saved under its name
  util::writeFileAtomic((dir / "broken.json").string(), "{\"kind\": \"transformer\"");
  const ModelFolders f = loadModelFolders(shipped, dir.string());
  auto find = [&](const std::string& id) -> const TransformerSpec* {
    for (const auto& s : f.specs)
      if (s.id == id) return &s;
    return nullptr;
  };
  ASSERT_NE(find("qwen3-8b"), nullptr);
  EXPECT_EQ(find("qwen3-8b")->params(), 8190735360);
  ASSERT_NE(find("gpt2-small"), nullptr);
  EXPECT_EQ(find("gpt2-small")->layers, 6);
  EXPECT_NE(find("gpt-oss-20b"), nullptr);
  EXPECT_NE(find("llama3-8b"), nullptr);
  ASSERT_EQ(f.errors.size(), 1u);
  EXPECT_NE(f.errors[0].find("broken.json"), std::string::npos) << f.errors[0];
  // The shipped folder's files must all read: a broken one is a broken installation.
  EXPECT_NE(errorOf([&] { loadModelFolders(dir.string(), ""); }).find("broken.json"), std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace core::nn

namespace core::nn {
namespace {

TEST(HuggingFaceConfig, LayersWithoutExpertsAndTheLibrarysDefaults) {
  // Qwen3-MoE: experts every second layer, and layer 0 dense by mlp_only_layers: 48 layers ->
  // 24 with experts, one of them made dense.
  Json q = configJson("Qwen--Qwen3-30B-A3B");
  q.set("decoder_sparse_step", 2);
  Json only = Json::array();
  only.push(1);
  q.set("mlp_only_layers", only);
  const TransformerSpec s = fromJson(q);
  EXPECT_EQ(s.moeLayers(), 23);
  EXPECT_EQ(s.denseLayers, 25);
  const TransformerSpec all = fromJson(configJson("Qwen--Qwen3-30B-A3B"));
  EXPECT_EQ(all.params() - s.params(), 25LL * (all.moeLayerParams() - all.denseLayerParams()));
  // Full q/k norms with grouped KV heads: the k norm spans the KV heads only (OLMo 2 at 8 KV heads).
  Json o = configJson("allenai--OLMo-2-1124-7B");
  o.set("num_key_value_heads", 8);
  const TransformerSpec gqa = fromJson(o);
  const TransformerSpec mha = fromJson(configJson("allenai--OLMo-2-1124-7B"));
  const std::int64_t d = 4096, hd = 128;
  EXPECT_EQ(mha.attentionParams() - gqa.attentionParams(), 2 * d * (32 - 8) * hd + (32 - 8) * hd);
  // Null is the library's None; a key left out is its default.
  Json g = configJson("google--gemma-2-9b");
  g.set("sliding_window", nullptr);
  EXPECT_EQ(fromJson(g).slidingWindow, 0);
  auto& gobj = g.asObject();
  std::erase_if(gobj, [](const auto& kv) { return kv.first == "sliding_window" || kv.first == "head_dim"; });
  EXPECT_EQ(fromJson(g).slidingWindow, 4096);
  EXPECT_EQ(fromJson(g).headDim, 256);
  Json m = configJson("mistralai--Mistral-7B-v0.1");
  auto& mobj = m.asObject();
  std::erase_if(mobj, [](const auto& kv) { return kv.first == "sliding_window"; });
  EXPECT_EQ(fromJson(m).slidingWindow, 4096);  // MistralConfig's default
  // An error from the spec's own checks names the config's key.
  Json e = configJson("mistralai--Mixtral-8x7B-v0.1");
  e.set("num_experts_per_tok", 9);
  EXPECT_NE(errorOf([&] { fromJson(e); }).find("num_experts_per_tok"), std::string::npos);
}

TEST(TransformerCatalog, TheEngineModelsCannotBeReplacedByAUserFile) {
  const fs::path dir = fs::temp_directory_path() / ("accellab-models-engine-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  TransformerSpec mine = transformerSpec("char-gpt");
  mine.layers = 12;
  util::writeFileAtomic((dir / "char-gpt.json").string(), transformerToModelJson(mine).dump(2));
  const ModelFolders f = loadModelFolders(std::string(ACCELLAB_SOURCE_RESOURCES) + "/models", dir.string());
  for (const auto& s : f.specs) {
    if (s.id == "char-gpt") {
      EXPECT_EQ(s.layers, 4);
    }
  }
  ASSERT_EQ(f.errors.size(), 1u);
  EXPECT_NE(f.errors[0].find("engine trains"), std::string::npos) << f.errors[0];
  fs::remove_all(dir);
}

}  // namespace
}  // namespace core::nn
