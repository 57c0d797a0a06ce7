#pragma once
// CONTRACT: a transformer as data. One plain struct describes every transformer AccelLab knows,
// from the engine's small char-gpt to Llama-3.1-405B: its dimensions, its kind of feed-forward
// block, normalisation, positions, embeddings and experts. The simulator reads its layers from
// here (core/sim/llm_workload); parameter counts are computed from the dimensions, never typed
// in, and tests hold them against the published figures.
#include <cstdint>
#include <string>
#include <vector>

namespace core::nn {

enum class TransformerKind {
  Decoder,  // causal language model (GPT, Llama, Mistral, Mixtral)
  Encoder,  // bidirectional masked language model (BERT)
  Vision,   // ViT: patches of an image -> tokens, a class token, a classification head
};
// Two matrices and GELU; or gated: gate x up -> SiLU (SwiGLU, Llama) or GELU (GeGLU, Gemma) -> down.
enum class FfnKind { Gelu, SwiGlu, GeGlu };
enum class NormKind { LayerNorm, RmsNorm };  // RMSNorm has a scale only
enum class PositionKind { Learned, Rotary };
// A norm on the queries and keys before attention (RMSNorm, a scale only): none, one per head
// dimension shared by the heads (Qwen3), or over the whole projection (OLMo 2, OLMoE).
enum class QkNorm { None, PerHead, Full };

const char* transformerKindName(TransformerKind k);  // "decoder", "encoder", "vision"
const char* ffnKindName(FfnKind k);                  // "gelu", "swiglu", "geglu"
const char* normKindName(NormKind k);                // "layernorm", "rmsnorm"
const char* positionKindName(PositionKind k);        // "learned", "rotary"
const char* qkNormName(QkNorm k);                    // "none", "per_head", "full"

// The longest sequence (and widest dimension) a transformer may state: model files, the CLI.
inline constexpr int kMaxSeqLen = 1 << 22;

struct TransformerSpec {
  std::string id;            // zoo id: "llama3-8b"
  std::string name;          // "Llama 3 8B"
  TransformerKind kind = TransformerKind::Decoder;
  int layers = 0;
  int dModel = 0;
  int heads = 0;
  int kvHeads = 0;           // grouped-query attention: heads sharing one K/V head (== heads: MHA)
  int headDim = 0;           // usually dModel / heads (MaxText's 22B: 6144 / 24 = 256, but 128)
  int ffn = 0;               // hidden width of one feed-forward block (one expert)
  FfnKind ffnKind = FfnKind::Gelu;
  NormKind norm = NormKind::LayerNorm;
  PositionKind position = PositionKind::Learned;
  int vocab = 0;             // tokens (Vision: classes of the head)
  int maxPositions = 0;      // learned positions' table length (Vision: patches + class token)
  int defaultSeqLen = 0;     // the sequence length it was trained at
  bool tiedEmbeddings = false;  // output head shares the token embedding
  bool bias = true;          // every linear layer carries a bias (GPT-2, BERT, ViT) or none (Llama)
  bool qkvBias = false;      // the q, k and v projections carry biases whatever `bias` says (Qwen2)
  bool outBias = false;      // ... and the attention output projection (Llama's attention_bias, gpt-oss)
  bool ffnBias = false;      // the feed-forward (expert) matrices carry biases (gpt-oss, Llama's mlp_bias)
  bool headBias = false;     // the output head has a bias (untied heads only)
  int normsPerLayer = 2;     // norms in one block: 2 (pre- or post-norm), 4 (Gemma 2: both)
  QkNorm qkNorm = QkNorm::None;
  bool attentionSinks = false;  // a learned logit per head (gpt-oss)
  // Sliding-window attention: the window in tokens (0: none) and the share of the layers that
  // use it (Mistral v0.1: all; Gemma 2 and gpt-oss: every other layer).
  int slidingWindow = 0;
  double slidingLayerShare = 0;
  // Mixture of experts. `experts` routed experts per MoE layer, `expertsPerToken` of them per
  // token, each `expertFfn` wide (0: `ffn`); `sharedExperts` more that every token passes through,
  // each `sharedExpertFfn` wide (0: `expertFfn`), behind a sigmoid gate when `sharedExpertGate`
  // (Qwen2-MoE); `denseLayers` of the layers keep a dense `ffn`-wide block instead (DeepSeek-V3's
  // first three); the router has a bias per expert when `routerBias` (DeepSeek's correction
  // bias, gpt-oss).
  int experts = 1;
  int expertsPerToken = 1;
  int expertFfn = 0;
  int sharedExperts = 0;
  int sharedExpertFfn = 0;
  bool sharedExpertGate = false;
  int denseLayers = 0;
  bool routerBias = false;
  // Multi-head latent attention (DeepSeek-V2/V3): queries through a rank-`qLoraRank` bottleneck
  // (0: a direct projection), keys and values through a rank-`kvLoraRank` latent plus a shared
  // rotary key of `qkRopeHeadDim`; per head `qkNopeHeadDim` + `qkRopeHeadDim` for q.k and
  // `vHeadDim` for v. kvLoraRank 0: ordinary attention of `headDim`.
  int qLoraRank = 0, kvLoraRank = 0, qkNopeHeadDim = 0, qkRopeHeadDim = 0, vHeadDim = 0;
  int tokenTypes = 0;        // BERT: segment embeddings
  bool pooler = false;       // BERT: pooler dense layer on [CLS]
  bool mlmTransform = false; // BERT: the MLM head's dense + LayerNorm before the tied decoder
  // Vision only: image side, patch side and channels.
  int imageSize = 0, patchSize = 0, channels = 0;
  double publishedParams = 0;  // the figure its authors publish (e.g. 8.03e9), for the tests
  double publishedActiveParams = 0;  // mixture of experts: the published active figure
  std::string modelType;       // the Hugging Face model_type it was read as ("llama"), if any
  std::string source;          // where the dimensions come from
  std::string sourceDate;      // when: "2024-04"
  bool shipped = false;        // read from the shipped folder (not the user's, not imported)

  // Tokens one sample is made of at sequence length `seqLen` (Vision: patches + class token).
  int tokensPerSample(int seqLen) const;
  bool mla() const { return kvLoraRank > 0; }
  bool gated() const { return ffnKind != FfnKind::Gelu; }
  bool moe() const { return experts > 1; }
  int moeLayers() const { return moe() ? layers - denseLayers : 0; }
  int routedFfn() const { return expertFfn > 0 ? expertFfn : ffn; }
  int sharedFfn() const { return sharedExpertFfn > 0 ? sharedExpertFfn : routedFfn(); }
  int qkHeadDim() const { return mla() ? qkNopeHeadDim + qkRopeHeadDim : headDim; }  // per head, q.k
  int valueHeadDim() const { return mla() ? vHeadDim : headDim; }                    // per head, v
  bool hasQkvBias() const { return bias || qkvBias || outBias; }
  bool hasOutBias() const { return bias || outBias; }
  bool hasFfnBias() const { return bias || ffnBias; }
  // Widths the attention core reads: q, k and v of every head (MLA: after the latent's
  // up-projection), and its output (the output projection's input).
  std::int64_t qkvWidth() const;
  std::int64_t attentionWidth() const;  // heads x value head dim
  // Share of the T x T query-key pairs the attention computes at `seqLen`, averaged over the
  // layers: 1 bidirectional, about 1/2 causal, less under a sliding window.
  double attentionPairShare(int seqLen) const;
  // Parameters, counted from the dimensions.
  std::int64_t embeddingParams() const;  // token (+ position, type, patch, class token) tables
  std::int64_t attentionParams() const;  // one layer's attention: projections, biases, q/k norms, sinks
  std::int64_t ffnParams() const;        // one dense feed-forward block, `ffn` wide
  std::int64_t ffnParams(int width) const;  // one feed-forward block (or expert) of `width`
  std::int64_t normParams() const;       // one normalisation layer
  std::int64_t denseLayerParams() const; // one block with a dense feed-forward
  std::int64_t moeLayerParams() const;   // one block with the experts, shared experts and router
  std::int64_t routedExpertParams() const;  // every routed expert of every layer (what ep shards)
  std::int64_t bodyParams() const;       // all the blocks
  std::int64_t headParams() const;       // the output head beyond a tied embedding (+ final norm, pooler)
  std::int64_t params() const;           // all of it
  // Parameters one token's forward pass uses: everything but the routed experts it is not sent
  // to, the input embedding included (Mistral's, DeepSeek's and Qwen's convention).
  std::int64_t activeParams() const;
  // The input embedding tables (token, position, segment): a lookup, not a product. 0 when tied:
  // the table is also the head's matrix. activeParams() less this is OpenAI's gpt-oss convention.
  std::int64_t inputEmbeddingParams() const;
  // The weights one token is multiplied by (the N of "6 N FLOPs per token"): the active
  // parameters' matrices, the head's included tied or not, without norms and biases.
  std::int64_t activeMatmulParams() const;
  // 2 x the multiply-adds of one sample's forward pass at `seqLen` (0: the default): the
  // matrices above for every token (BERT's MLM head on every token too) and Q.K^T and P.V over
  // the whole T x T, as the model's code computes them before the mask.
  double forwardFlopsPerSample(int seqLen) const;
};

// The transformers AccelLab knows: the shipped model files (resourceDir()/models) and the
// user's (userDataDir()/models: model files or Hugging Face config.json files; one with a
// shipped id replaces it), loaded once, in file-name order.
const std::vector<TransformerSpec>& referenceTransformers();
// What went wrong loading them: a user file that does not read (it is left out), a missing
// shipped folder. One line each, naming the file.
const std::vector<std::string>& transformerLoadErrors();
// Adds a model read while the program runs (File > Open Model..., --model PATH). When one with
// the same id is known: with the same dimensions, that one is returned; otherwise the new one
// gets the id with "-2", "-3", ... The reference stays valid for the life of the process.
// Thread-safe.
const TransformerSpec& addImportedTransformer(TransformerSpec spec);
// The models added by addImportedTransformer, in the order they came.
std::vector<const TransformerSpec*> importedTransformers();
// nullptr when `id` names no transformer (shipped, user or imported).
const TransformerSpec* findTransformer(const std::string& id);
// Throws core::util::Error naming the id and listing the known transformers.
const TransformerSpec& transformerSpec(const std::string& id);
// --model's argument: a known id, or a path to a model file or config.json (read and imported).
// Throws core::util::Error naming the file or the id.
const TransformerSpec& resolveTransformer(const std::string& idOrPath);
std::string transformerIdList();

// Checks the invariants (positive dimensions, heads divisible by KV heads, ...); throws
// core::util::Error naming the spec and the field.
void validate(const TransformerSpec& s);

}  // namespace core::nn
