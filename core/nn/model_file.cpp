#include "core/nn/model_file.h"

#include <algorithm>
#include <filesystem>

#include "core/nn/hf_config.h"
#include "core/util/error.h"
#include "core/util/files.h"
#include "core/util/json_reader.h"

namespace core::nn {
namespace {

using util::Json;
using util::JsonReader;

TransformerKind kindOf(const std::string& s) {
  return s == "encoder" ? TransformerKind::Encoder : s == "vision" ? TransformerKind::Vision : TransformerKind::Decoder;
}
FfnKind ffnOf(const std::string& s) {
  return s == "swiglu" ? FfnKind::SwiGlu : s == "geglu" ? FfnKind::GeGlu : FfnKind::Gelu;
}
QkNorm qkNormOf(const std::string& s) {
  return s == "per_head" ? QkNorm::PerHead : s == "full" ? QkNorm::Full : QkNorm::None;
}

constexpr std::int64_t kBig = std::int64_t{1} << 24;

}  // namespace

TransformerSpec transformerFromModelJson(const Json& root, const std::string& path) {
  const JsonReader r(root, path);
  r.choice("kind", {"transformer"});
  TransformerSpec s;
  s.id = r.string("id");
  if (!validModelId(s.id)) r.fail("id", "'" + s.id + "' " + kModelIdRule);
  s.name = r.string("name");
  s.kind = kindOf(r.choice("architecture", {"decoder", "encoder", "vision"}));
  s.layers = static_cast<int>(r.integer("layers", 1, 10000));
  s.dModel = static_cast<int>(r.integer("d_model", 1, 1 << 20));
  s.heads = static_cast<int>(r.integer("heads", 1, 1 << 14));
  s.kvHeads = static_cast<int>(r.integer("kv_heads", s.heads, 1, 1 << 14));
  s.headDim = static_cast<int>(r.integer("head_dim", s.dModel / s.heads, 1, 1 << 14));
  s.ffn = static_cast<int>(r.integer("ffn", 1, kMaxSeqLen));
  s.ffnKind = ffnOf(r.choice("ffn_kind", {"gelu", "swiglu", "geglu"}));
  s.norm = r.choice("norm", {"layernorm", "rmsnorm"}) == "rmsnorm" ? NormKind::RmsNorm : NormKind::LayerNorm;
  s.position = r.choice("positions", {"learned", "rotary"}) == "rotary" ? PositionKind::Rotary : PositionKind::Learned;
  s.vocab = static_cast<int>(r.integer("vocab", 1, kBig));
  s.maxPositions = static_cast<int>(r.integer("max_positions", 0, 0, kMaxSeqLen));
  s.defaultSeqLen = static_cast<int>(r.integer("default_seq_len", 1, kMaxSeqLen));
  s.tiedEmbeddings = r.boolean("tied_embeddings", false);
  s.bias = r.boolean("bias", false);
  s.qkvBias = r.boolean("qkv_bias", false);
  s.outBias = r.boolean("attention_out_bias", false);
  s.ffnBias = r.boolean("ffn_bias", false);
  s.headBias = r.boolean("head_bias", false);
  s.normsPerLayer = static_cast<int>(r.integer("norms_per_layer", 2, 0, 8));
  s.qkNorm = qkNormOf(r.choice("qk_norm", {"none", "per_head", "full"}, std::string("none")));
  s.attentionSinks = r.boolean("attention_sinks", false);
  s.slidingWindow = static_cast<int>(r.integer("sliding_window", 0, 0, kMaxSeqLen));
  s.slidingLayerShare = r.number("sliding_layer_share", s.slidingWindow > 0 ? 1.0 : 0.0, 0, 1);
  s.experts = static_cast<int>(r.integer("experts", 1, 1, 4096));
  s.expertsPerToken = static_cast<int>(r.integer("experts_per_token", 1, 1, 4096));
  s.expertFfn = static_cast<int>(r.integer("expert_ffn", 0, 0, kMaxSeqLen));
  s.sharedExperts = static_cast<int>(r.integer("shared_experts", 0, 0, 64));
  s.sharedExpertFfn = static_cast<int>(r.integer("shared_expert_ffn", 0, 0, kMaxSeqLen));
  s.sharedExpertGate = r.boolean("shared_expert_gate", false);
  s.denseLayers = static_cast<int>(r.integer("dense_layers", 0, 0, 10000));
  s.routerBias = r.boolean("router_bias", false);
  s.qLoraRank = static_cast<int>(r.integer("q_lora_rank", 0, 0, 1 << 20));
  s.kvLoraRank = static_cast<int>(r.integer("kv_lora_rank", 0, 0, 1 << 20));
  s.qkNopeHeadDim = static_cast<int>(r.integer("qk_nope_head_dim", 0, 0, 1 << 14));
  s.qkRopeHeadDim = static_cast<int>(r.integer("qk_rope_head_dim", 0, 0, 1 << 14));
  s.vHeadDim = static_cast<int>(r.integer("v_head_dim", 0, 0, 1 << 14));
  s.tokenTypes = static_cast<int>(r.integer("token_types", 0, 0, 1024));
  s.pooler = r.boolean("pooler", false);
  s.mlmTransform = r.boolean("mlm_transform", false);
  if (s.kind == TransformerKind::Vision) {
    s.imageSize = static_cast<int>(r.integer("image_size", 1, 1 << 16));
    s.patchSize = static_cast<int>(r.integer("patch_size", 1, 1 << 16));
    s.channels = static_cast<int>(r.integer("channels", 1, 64));
  }
  s.publishedParams = r.number("published_params", 0, 0, 1e16);
  s.publishedActiveParams = r.number("published_active_params", 0, 0, 1e16);
  s.modelType = r.string("model_type", "");
  s.source = r.string("source");
  if (s.source.empty()) r.fail("source", "say where the dimensions come from");
  const std::string date = r.string("source_date");
  if (date.size() < 4 || date.find_first_not_of("0123456789-") != std::string::npos)
    r.fail("source_date", "'" + date + "' is not a date (YYYY, YYYY-MM or YYYY-MM-DD)");
  s.sourceDate = date;
  r.finish();
  try {
    validate(s);
  } catch (const util::Error& e) {
    throw util::Error(path + ": " + e.what());
  }
  return s;
}

Json transformerToModelJson(const TransformerSpec& s) {
  Json j = Json::object();
  j.set("id", s.id);
  j.set("name", s.name);
  j.set("kind", "transformer");
  j.set("architecture", transformerKindName(s.kind));
  if (!s.modelType.empty()) j.set("model_type", s.modelType);
  j.set("layers", s.layers);
  j.set("d_model", s.dModel);
  j.set("heads", s.heads);
  j.set("kv_heads", s.kvHeads);
  j.set("head_dim", s.headDim);
  j.set("ffn", s.ffn);
  j.set("ffn_kind", ffnKindName(s.ffnKind));
  j.set("norm", normKindName(s.norm));
  j.set("positions", positionKindName(s.position));
  j.set("vocab", s.vocab);
  if (s.maxPositions) j.set("max_positions", s.maxPositions);
  j.set("default_seq_len", s.defaultSeqLen);
  j.set("tied_embeddings", s.tiedEmbeddings);
  j.set("bias", s.bias);
  auto flag = [&](const char* key, bool v) {
    if (v) j.set(key, true);
  };
  auto count = [&](const char* key, int v, int def) {
    if (v != def) j.set(key, v);
  };
  flag("qkv_bias", s.qkvBias);
  flag("attention_out_bias", s.outBias);
  flag("ffn_bias", s.ffnBias);
  flag("head_bias", s.headBias);
  count("norms_per_layer", s.normsPerLayer, 2);
  if (s.qkNorm != QkNorm::None) j.set("qk_norm", qkNormName(s.qkNorm));
  flag("attention_sinks", s.attentionSinks);
  if (s.slidingWindow > 0) {
    j.set("sliding_window", s.slidingWindow);
    j.set("sliding_layer_share", s.slidingLayerShare);
  }
  if (s.moe()) {
    j.set("experts", s.experts);
    j.set("experts_per_token", s.expertsPerToken);
  }
  count("expert_ffn", s.expertFfn, 0);
  count("shared_experts", s.sharedExperts, 0);
  count("shared_expert_ffn", s.sharedExpertFfn, 0);
  flag("shared_expert_gate", s.sharedExpertGate);
  count("dense_layers", s.denseLayers, 0);
  flag("router_bias", s.routerBias);
  count("q_lora_rank", s.qLoraRank, 0);
  count("kv_lora_rank", s.kvLoraRank, 0);
  count("qk_nope_head_dim", s.qkNopeHeadDim, 0);
  count("qk_rope_head_dim", s.qkRopeHeadDim, 0);
  count("v_head_dim", s.vHeadDim, 0);
  count("token_types", s.tokenTypes, 0);
  flag("pooler", s.pooler);
  flag("mlm_transform", s.mlmTransform);
  if (s.kind == TransformerKind::Vision) {
    j.set("image_size", s.imageSize);
    j.set("patch_size", s.patchSize);
    j.set("channels", s.channels);
  }
  if (s.publishedParams > 0) j.set("published_params", s.publishedParams);
  if (s.publishedActiveParams > 0) j.set("published_active_params", s.publishedActiveParams);
  j.set("source", s.source);
  j.set("source_date", s.sourceDate.empty() ? util::todayUtc() : s.sourceDate);
  return j;
}

TransformerSpec readModelFile(const std::string& path) {
  const Json root = Json::parseFile(path, kMaxModelFileBytes, util::kDataFileJsonLimits);
  if (!root.isObject()) throw util::Error(path + ": expected a JSON object (a model file or a config.json)");
  if (isHuggingFaceConfig(root)) return transformerFromHuggingFace(root, path);
  return transformerFromModelJson(root, path);
}

ModelFolders loadModelFolders(const std::string& shipped, const std::string& user) {
  ModelFolders out;
  std::error_code ec;
  if (!std::filesystem::is_directory(shipped, ec)) out.errors.push_back(shipped + ": the shipped model folder is missing");
  for (const std::string& dir : {shipped, user}) {
    const util::FileListing listing = util::listFiles(dir, {".json"});
    for (const auto& w : listing.warnings) out.errors.push_back(w);
    for (const auto& file : listing.files) {
      try {
        const Json root = Json::parseFile(file, kMaxModelFileBytes, util::kDataFileJsonLimits);
        if (isGraphModelJson(root)) {
          GraphModelFile g = graphModelFromJson(root, file);
          auto same = std::find_if(out.graphs.begin(), out.graphs.end(), [&](const GraphModelFile& t) { return t.info.id == g.info.id; });
          if (same != out.graphs.end() && dir == shipped)
            throw util::Error(file + ": id '" + g.info.id + "' is already used by another shipped model file");
          // The zoo's CNNs stand behind the published comparisons, the error bands and the run
          // history: yours takes an id of its own.
          if (same != out.graphs.end())
            throw util::Error(file + ": id '" + g.info.id + "' is a shipped model's; give yours another id");
          out.graphs.push_back(std::move(g));
          continue;
        }
        TransformerSpec s = readModelFile(file);
        auto same = std::find_if(out.specs.begin(), out.specs.end(), [&](const TransformerSpec& t) { return t.id == s.id; });
        if (same != out.specs.end() && dir == shipped)
          throw util::Error(file + ": id '" + s.id + "' is already used by another shipped model file");
        // The engine builds these two layer by layer from their files; another shape would train
        // one network and cost another.
        if (dir != shipped && (s.id == "char-gpt" || s.id == "vit-tiny"))
          throw util::Error(file + ": id '" + s.id + "' is a model the engine trains; give yours another id");
        s.shipped = dir == shipped;
        if (same != out.specs.end()) *same = std::move(s);  // the user's file replaces the shipped one
        else out.specs.push_back(std::move(s));
      } catch (const std::exception& e) {
        if (dir == shipped) throw;
        out.errors.push_back(e.what());
      }
    }
  }
  return out;
}

const ModelFolders& installedModels() {
  namespace fs = std::filesystem;
  static const ModelFolders folders = [] {
    ModelFolders f = loadModelFolders((fs::path(util::resourceDir()) / "models").string(),
                                      (fs::path(util::userDataDir()) / "models").string());
    // One id, one model: of a layer graph and a transformer with one id, the user's is left out.
    const std::string shippedDir = (fs::path(util::resourceDir()) / "models").string();
    for (auto g = f.graphs.begin(); g != f.graphs.end();) {
      const auto s = std::find_if(f.specs.begin(), f.specs.end(), [&](const TransformerSpec& t) { return t.id == g->info.id; });
      if (s == f.specs.end()) {
        ++g;
        continue;
      }
      const bool graphShipped = g->path.rfind(shippedDir, 0) == 0;
      if (graphShipped && s->shipped) throw util::Error(g->path + ": id '" + g->info.id + "' is a shipped transformer's too");
      f.errors.push_back("model id '" + g->info.id + "' is both a layer graph and a transformer: your file is left out");
      if (graphShipped) {
        f.specs.erase(s);
        ++g;
      } else {
        g = f.graphs.erase(g);
      }
    }
    return f;
  }();
  return folders;
}

}  // namespace core::nn
