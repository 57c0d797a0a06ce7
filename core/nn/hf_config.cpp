#include "core/nn/hf_config.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <utility>

#include "core/util/error.h"
#include "core/util/files.h"

namespace core::nn {
namespace {

using util::Json;

// One config.json being read: every error names the file, the model_type and the key.
class Config {
public:
  Config(const Json& root, std::string path) : m_root(root), m_path(std::move(path)) {
    const Json* t = root.find("model_type");
    m_type = t && t->isString() ? t->asString() : "";
  }
  const std::string& type() const { return m_type; }

  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    throw util::Error(m_path + ": model_type '" + m_type + "': key '" + key + "': " + what);
  }
  // A key that is absent or null reads as absent (the library's default applies).
  const Json* find(const std::string& key) const {
    const Json* j = m_root.find(key);
    return j && !j->isNull() ? j : nullptr;
  }
  bool has(const std::string& key) const { return find(key) != nullptr; }
  // Present and null: the library's None, which is not always its default (Gemma 2's window).
  bool isNull(const std::string& key) const {
    const Json* j = m_root.find(key);
    return j && j->isNull();
  }

  int integer(const std::string& key, long long lo, long long hi) const {
    const Json* j = find(key);
    if (!j) fail(key, "missing (" + m_type + " configs give it)");
    return checked(key, *j, lo, hi);
  }
  int integer(const std::string& key, int fallback, long long lo, long long hi) const {
    const Json* j = find(key);
    return j ? checked(key, *j, lo, hi) : fallback;
  }
  // The first of `keys` the file has (configs renamed some fields over the years).
  int firstInteger(const std::vector<std::string>& keys, long long lo, long long hi) const {
    for (const auto& k : keys)
      if (has(k)) return integer(k, lo, hi);
    fail(keys.front(), "missing (" + m_type + " configs give it)");
  }
  bool boolean(const std::string& key, bool fallback) const {
    const Json* j = find(key);
    if (!j) return fallback;
    if (!j->isBool()) fail(key, "expected true or false");
    return j->asBool();
  }
  std::string string(const std::string& key, const std::string& fallback) const {
    const Json* j = find(key);
    if (!j) return fallback;
    if (!j->isString()) fail(key, "expected a string");
    return j->asString();
  }
  const Json::Array* array(const std::string& key) const {
    const Json* j = find(key);
    if (!j) return nullptr;
    if (!j->isArray()) fail(key, "expected an array");
    return &j->asArray();
  }

private:
  int checked(const std::string& key, const Json& j, long long lo, long long hi) const {
    if (!j.isNumber()) fail(key, "expected a whole number");
    const double v = j.asNumber();
    if (v != std::floor(v)) fail(key, util::formatNumber(v) + " is not a whole number");
    if (v < static_cast<double>(lo) || v > static_cast<double>(hi))
      fail(key, util::formatNumber(v) + " is outside [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    return static_cast<int>(v);
  }

  const Json& m_root;
  std::string m_path;
  std::string m_type;
};

constexpr long long kWidth = 1 << 20, kHeads = 1 << 14, kLayers = 10000, kVocab = 1 << 24, kPositions = 1 << 24;
constexpr int kDefaultSeqLenCap = 8192;

std::string slug(std::string text) {
  std::string out;
  for (char c : text) {
    const char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const bool ok = (l >= 'a' && l <= 'z') || (l >= '0' && l <= '9') || l == '.' || l == '_' || l == '-';
    out += ok ? l : '-';
  }
  while (!out.empty() && (out.front() == '-' || out.front() == '.')) out.erase(out.begin());
  if (out.size() > 64) out.resize(64);
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

// The model's name: "_name_or_path"'s last part ("meta-llama/Meta-Llama-3-8B" -> "Meta-Llama-3-8B"),
// else the file's name or the nearest folder that names the model: a downloaded model's folder,
// or the Hugging Face cache's "models--org--name" above "snapshots/<commit>". "org--name" reads
// as "name".
std::string displayName(const Config& c, const std::string& path) {
  std::string n = c.string("_name_or_path", "");
  if (const auto slash = n.find_last_of('/'); slash != std::string::npos) n = n.substr(slash + 1);
  if (n.empty()) {
    auto isCommit = [](const std::string& s) {
      return s.size() == 40 && s.find_first_not_of("0123456789abcdef") == std::string::npos;
    };
    std::filesystem::path p(path);
    std::string stem = p.stem().string();
    if (stem != "config" && !stem.empty()) n = stem;
    for (p = p.parent_path(); n.empty() && !p.empty() && p.has_filename(); p = p.parent_path()) {
      const std::string folder = p.filename().string();
      if (!isCommit(folder) && folder != "snapshots" && folder != "." && folder != "..") n = folder;
      if (p == p.parent_path()) break;
    }
  }
  if (const auto dashes = n.rfind("--"); dashes != std::string::npos && dashes + 2 < n.size()) n = n.substr(dashes + 2);
  return n.empty() ? "imported" : n;
}

FfnKind gatedActivation(const Config& c, const std::string& key, const std::string& fallback) {
  const std::string act = c.string(key, fallback);
  if (act == "silu" || act == "swish") return FfnKind::SwiGlu;
  if (act == "gelu" || act == "gelu_pytorch_tanh" || act == "gelu_new" || act == "gelu_fast") return FfnKind::GeGlu;
  c.fail(key, "'" + act + "' is not an activation AccelLab costs in a gated feed-forward (silu, gelu)");
}

FfnKind plainActivation(const Config& c, const std::string& key, const std::string& fallback) {
  const std::string act = c.string(key, fallback);
  if (act == "gelu" || act == "gelu_new" || act == "gelu_pytorch_tanh" || act == "gelu_fast" || act == "relu" ||
      act == "quick_gelu")
    return FfnKind::Gelu;  // two matrices and an element-wise activation cost the same
  c.fail(key, "'" + act + "' is not an activation AccelLab costs (gelu, relu)");
}

// The Llama family's shared fields: RMSNorm, rotary positions, a gated feed-forward, no biases.
TransformerSpec llamaLike(const Config& c, bool tiedByDefault) {
  TransformerSpec s;
  s.kind = TransformerKind::Decoder;
  s.layers = c.integer("num_hidden_layers", 1, kLayers);
  s.dModel = c.integer("hidden_size", 1, kWidth);
  s.heads = c.integer("num_attention_heads", 1, kHeads);
  s.kvHeads = c.integer("num_key_value_heads", s.heads, 1, kHeads);
  if (s.heads % s.kvHeads != 0)
    c.fail("num_key_value_heads", std::to_string(s.kvHeads) + " does not divide the " + std::to_string(s.heads) +
                                      " attention heads");
  if (!c.has("head_dim") && s.dModel % s.heads != 0)
    c.fail("head_dim", "missing, and hidden_size " + std::to_string(s.dModel) + " is not a multiple of the " +
                           std::to_string(s.heads) + " heads");
  s.headDim = c.integer("head_dim", s.dModel / s.heads, 1, kHeads);
  s.ffn = c.integer("intermediate_size", 1, kWidth);
  s.ffnKind = gatedActivation(c, "hidden_act", "silu");
  s.norm = NormKind::RmsNorm;
  s.position = PositionKind::Rotary;
  s.vocab = c.integer("vocab_size", 1, kVocab);
  s.defaultSeqLen = std::min(c.integer("max_position_embeddings", 4096, 1, kPositions), kDefaultSeqLenCap);
  s.tiedEmbeddings = c.boolean("tie_word_embeddings", tiedByDefault);
  s.bias = false;
  return s;
}

// A window on every layer; `absent` is the library's default when the key is left out (Mistral:
// 4096), null is none.
void slidingEveryLayer(const Config& c, TransformerSpec& s, int absent) {
  const int w = c.isNull("sliding_window") ? 0 : c.integer("sliding_window", absent, 0, kPositions);
  if (w > 0) {
    s.slidingWindow = w;
    s.slidingLayerShare = 1.0;
  }
}

// Qwen2/Qwen3: a window only with use_sliding_window, on the layers from max_window_layers on.
void qwenSliding(const Config& c, TransformerSpec& s) {
  if (!c.boolean("use_sliding_window", false)) return;
  const int w = c.integer("sliding_window", 0, 0, kPositions);
  const int from = c.integer("max_window_layers", 28, 0, kLayers);  // Qwen2Config's default
  if (w > 0 && from < s.layers) {
    s.slidingWindow = w;
    s.slidingLayerShare = static_cast<double>(s.layers - from) / s.layers;
  }
}

// "layer_types": ["sliding_attention", "full_attention", ...] (gpt-oss, newer configs).
bool slidingFromLayerTypes(const Config& c, TransformerSpec& s) {
  const Json::Array* types = c.array("layer_types");
  if (!types) return false;
  if (types->size() != static_cast<std::size_t>(s.layers))
    c.fail("layer_types", std::to_string(types->size()) + " entries for " + std::to_string(s.layers) + " layers");
  int sliding = 0;
  for (const auto& t : *types) {
    if (!t.isString()) c.fail("layer_types", "expected strings");
    if (t.asString() == "sliding_attention") ++sliding;
    else if (t.asString() != "full_attention") c.fail("layer_types", "'" + t.asString() + "' is not a layer type AccelLab knows");
  }
  const int w = c.integer("sliding_window", 0, 0, kPositions);
  if (sliding > 0 && w > 0) {
    s.slidingWindow = w;
    s.slidingLayerShare = static_cast<double>(sliding) / s.layers;
  }
  return true;
}

void experts(const Config& c, TransformerSpec& s, const std::vector<std::string>& countKeys) {
  s.experts = c.firstInteger(countKeys, 1, 4096);
  s.expertsPerToken = c.firstInteger({"num_experts_per_tok", "experts_per_token"}, 1, s.experts);
}

// GPT-2 and BERT: LayerNorm, learned positions, biases on every layer, a plain feed-forward,
// tied embeddings; each names its keys its own way.
struct ClassicKeys {
  const char *layers, *width, *heads, *ffn, *activation, *defaultActivation, *positions;
};
TransformerSpec classic(const Config& c, TransformerKind kind, const ClassicKeys& k) {
  TransformerSpec s;
  s.kind = kind;
  s.layers = c.integer(k.layers, 1, kLayers);
  s.dModel = c.integer(k.width, 1, kWidth);
  s.heads = s.kvHeads = c.integer(k.heads, 1, kHeads);
  if (s.dModel % s.heads != 0) c.fail(k.heads, "does not divide " + std::string(k.width) + " " + std::to_string(s.dModel));
  s.headDim = s.dModel / s.heads;
  // GPT-2's n_inner is null for 4 x n_embd; BERT always gives intermediate_size.
  s.ffn = kind == TransformerKind::Decoder ? c.integer(k.ffn, 4 * s.dModel, 1, kWidth) : c.integer(k.ffn, 1, kWidth);
  s.ffnKind = plainActivation(c, k.activation, k.defaultActivation);
  s.norm = NormKind::LayerNorm;
  s.position = PositionKind::Learned;
  s.vocab = c.integer("vocab_size", 1, kVocab);
  s.maxPositions = c.integer(k.positions, 1, kPositions);
  s.defaultSeqLen = std::min(s.maxPositions, kDefaultSeqLenCap);
  s.tiedEmbeddings = c.boolean("tie_word_embeddings", true);
  s.bias = true;
  return s;
}

TransformerSpec read(const Config& c) {
  const std::string& t = c.type();
  if (t == "llama") {
    TransformerSpec s = llamaLike(c, false);
    s.outBias = c.boolean("attention_bias", false);
    s.ffnBias = c.boolean("mlp_bias", false);
    return s;
  }
  if (t == "mistral") {
    TransformerSpec s = llamaLike(c, false);
    slidingEveryLayer(c, s, 4096);
    return s;
  }
  if (t == "mixtral") {
    TransformerSpec s = llamaLike(c, false);
    experts(c, s, {"num_local_experts"});
    slidingEveryLayer(c, s, 0);
    return s;
  }
  if (t == "qwen2") {
    TransformerSpec s = llamaLike(c, false);
    s.qkvBias = true;  // Qwen2's q, k and v projections always carry biases
    qwenSliding(c, s);
    return s;
  }
  if (t == "qwen3" || t == "qwen3_moe") {
    TransformerSpec s = llamaLike(c, false);
    s.outBias = c.boolean("attention_bias", false);
    s.qkNorm = QkNorm::PerHead;
    if (!slidingFromLayerTypes(c, s)) qwenSliding(c, s);
    if (t == "qwen3_moe") {
      experts(c, s, {"num_experts"});
      s.expertFfn = c.integer("moe_intermediate_size", 1, kWidth);
      const int step = c.integer("decoder_sparse_step", 1, 1, kLayers);
      std::vector<bool> dense(static_cast<std::size_t>(s.layers), false);
      if (const Json::Array* only = c.array("mlp_only_layers"))
        for (const auto& l : *only) {
          if (!l.isNumber() || l.asNumber() < 0 || l.asNumber() >= s.layers || l.asNumber() != std::floor(l.asNumber()))
            c.fail("mlp_only_layers", "expected layer indices from 0 to " + std::to_string(s.layers - 1));
          dense[static_cast<std::size_t>(l.asNumber())] = true;
        }
      for (int i = 0; i < s.layers; ++i)
        if ((i + 1) % step != 0) dense[static_cast<std::size_t>(i)] = true;
      s.denseLayers = static_cast<int>(std::count(dense.begin(), dense.end(), true));
      if (s.denseLayers >= s.layers) c.fail("decoder_sparse_step", "leaves no layer with experts");
    }
    return s;
  }
  if (t == "gemma2") {
    TransformerSpec s = llamaLike(c, true);
    s.ffnKind = gatedActivation(c, c.has("hidden_activation") ? "hidden_activation" : "hidden_act", "gelu_pytorch_tanh");
    s.outBias = c.boolean("attention_bias", false);
    s.normsPerLayer = 4;  // before and after both attention and the feed-forward
    if (!c.has("head_dim")) s.headDim = 256;  // Gemma2Config's default, not hidden / heads
    if (!slidingFromLayerTypes(c, s)) {
      const int w = c.isNull("sliding_window") ? 0 : c.integer("sliding_window", 4096, 0, kPositions);
      if (w > 0) {  // Gemma 2 alternates local and global layers
        s.slidingWindow = w;
        s.slidingLayerShare = 0.5;
      }
    }
    return s;
  }
  if (t == "phi3") {
    TransformerSpec s = llamaLike(c, false);
    slidingEveryLayer(c, s, 0);
    return s;
  }
  if (t == "olmo2" || t == "olmoe") {
    TransformerSpec s = llamaLike(c, false);
    s.outBias = c.boolean("attention_bias", false);
    s.qkNorm = QkNorm::Full;
    if (t == "olmoe") experts(c, s, {"num_experts"});
    return s;
  }
  if (t == "deepseek_v3" || t == "deepseek_v2") {
    TransformerSpec s = llamaLike(c, false);
    s.kvLoraRank = c.integer("kv_lora_rank", 1, kWidth);
    s.qLoraRank = c.integer("q_lora_rank", 0, 0, kWidth);
    s.qkNopeHeadDim = c.integer("qk_nope_head_dim", 1, kHeads);
    s.qkRopeHeadDim = c.integer("qk_rope_head_dim", 0, kHeads);
    s.vHeadDim = c.integer("v_head_dim", 1, kHeads);
    s.headDim = s.qkNopeHeadDim + s.qkRopeHeadDim;
    s.kvHeads = s.heads;  // every head has its own k and v, decompressed from the latent
    s.outBias = c.boolean("attention_bias", false);
    if (c.integer("n_routed_experts", 0, 0, 4096) > 1) {
      experts(c, s, {"n_routed_experts"});
      s.expertFfn = c.integer("moe_intermediate_size", 1, kWidth);
      s.sharedExperts = c.integer("n_shared_experts", 0, 0, 64);
      const int firstDense = c.integer("first_k_dense_replace", 0, 0, s.layers);
      const int freq = c.integer("moe_layer_freq", 1, 1, kLayers);
      int moeLayers = 0;
      for (int i = firstDense; i < s.layers; ++i)
        if (i % freq == 0) ++moeLayers;
      if (moeLayers == 0) c.fail("first_k_dense_replace", "leaves no layer with experts");
      s.denseLayers = s.layers - moeLayers;
      s.routerBias = t == "deepseek_v3";  // the auxiliary-loss-free balancing bias, one per expert
    }
    return s;
  }
  if (t == "gpt_oss") {
    TransformerSpec s = llamaLike(c, false);
    s.ffnKind = FfnKind::SwiGlu;  // a clamped SwiGLU
    s.outBias = c.boolean("attention_bias", true);
    s.ffnBias = true;  // gpt-oss experts carry biases
    s.routerBias = true;
    s.attentionSinks = true;
    experts(c, s, {"num_local_experts"});
    if (!slidingFromLayerTypes(c, s)) {
      const int w = c.integer("sliding_window", 0, 0, kPositions);
      if (w > 0) {
        s.slidingWindow = w;
        s.slidingLayerShare = 0.5;
      }
    }
    return s;
  }
  if (t == "gpt2") return classic(c, TransformerKind::Decoder, {"n_layer", "n_embd", "n_head", "n_inner", "activation_function", "gelu_new", "n_positions"});
  if (t == "bert") {
    TransformerSpec s = classic(c, TransformerKind::Encoder, {"num_hidden_layers", "hidden_size", "num_attention_heads",
                                                             "intermediate_size", "hidden_act", "gelu", "max_position_embeddings"});
    s.tokenTypes = c.integer("type_vocab_size", 2, 0, 1024);
    s.pooler = true;        // BertForPreTraining: the pooler ...
    s.mlmTransform = true;  // ... and the MLM head's transform
    return s;
  }
  std::string known;
  for (const auto& k : huggingFaceModelTypes()) known += (known.empty() ? "" : ", ") + k;
  if (t.empty()) c.fail("model_type", "missing or not a string (readable: " + known + ")");
  c.fail("model_type", "'" + t + "' is not a model_type AccelLab reads (readable: " + known + ")");
}

}  // namespace

const std::vector<std::string>& huggingFaceModelTypes() {
  static const std::vector<std::string> types = {"llama", "mistral", "mixtral", "qwen2",       "qwen3",
                                                 "qwen3_moe", "gemma2", "phi3", "olmo2",       "olmoe",
                                                 "deepseek_v2", "deepseek_v3", "gpt2", "bert", "gpt_oss"};
  return types;
}

bool isHuggingFaceConfig(const Json& root) {
  // A model file may name the model_type it was read as, beside its "kind".
  return root.isObject() && root.contains("model_type") && !root.contains("kind");
}

TransformerSpec transformerFromHuggingFace(const Json& root, const std::string& path) {
  const Config c(root, path);
  TransformerSpec s = read(c);
  s.modelType = c.type();
  const std::string name = displayName(c, path);
  s.name = name;
  s.id = slug(name);
  if (s.id.empty()) s.id = "imported";
  s.source = "Hugging Face config.json (model_type " + c.type() + ") read from " + path;
  s.sourceDate = util::todayUtc();
  try {
    validate(s);
  } catch (const util::Error& e) {
    // The check names AccelLab's field; say which config.json key it comes from.
    static const std::pair<const char*, const char*> kKeys[] = {
        {"layers", "num_hidden_layers"},       {"d_model", "hidden_size"},
        {"heads", "num_attention_heads"},      {"kv_heads", "num_key_value_heads"},
        {"head_dim", "head_dim"},              {"ffn", "intermediate_size"},
        {"vocab", "vocab_size"},               {"experts", "num_experts / n_routed_experts / num_local_experts"},
        {"experts_per_token", "num_experts_per_tok"}, {"expert_ffn", "moe_intermediate_size"},
        {"dense_layers", "first_k_dense_replace / mlp_only_layers"}, {"sliding_window", "sliding_window"}};
    std::string what = e.what();
    const std::string prefix = "transformer '" + s.id + "': ";
    if (what.rfind(prefix, 0) == 0) what = what.substr(prefix.size());
    for (const auto& [field, key] : kKeys)
      if (what.rfind(std::string(field) + ":", 0) == 0) {
        what = std::string("key '") + key + "':" + what.substr(std::string(field).size() + 1);
        break;
      }
    throw util::Error(path + ": model_type '" + c.type() + "': " + what);
  }
  return s;
}

}  // namespace core::nn
