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
enum class FfnKind { Gelu, SwiGlu };        // two matrices and GELU, or gate x up -> SiLU -> down
enum class NormKind { LayerNorm, RmsNorm };  // RMSNorm has a scale only
enum class PositionKind { Learned, Rotary };

const char* transformerKindName(TransformerKind k);  // "decoder", "encoder", "vision"
const char* ffnKindName(FfnKind k);                  // "gelu", "swiglu"

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
  bool bias = true;          // linear layers carry biases (GPT-2, BERT, ViT) or not (Llama)
  bool headBias = false;     // the output head has a bias (untied heads only)
  int experts = 1;           // mixture of experts: feed-forward experts per layer ...
  int expertsPerToken = 1;   // ... of which each token uses this many (Mixtral: top-2 of 8)
  int tokenTypes = 0;        // BERT: segment embeddings
  bool pooler = false;       // BERT: pooler dense layer on [CLS]
  bool mlmTransform = false; // BERT: the MLM head's dense + LayerNorm before the tied decoder
  // Vision only: image side, patch side and channels.
  int imageSize = 0, patchSize = 0, channels = 0;
  double publishedParams = 0;  // the figure its authors publish (e.g. 8.03e9), for the tests
  std::string source;          // where the dimensions come from

  // Tokens one sample is made of at sequence length `seqLen` (Vision: patches + class token).
  int tokensPerSample(int seqLen) const;
  std::int64_t qkvWidth() const;        // output width of the fused QKV projection
  std::int64_t attentionWidth() const;  // heads x headDim
  // Parameters, counted from the dimensions.
  std::int64_t embeddingParams() const;  // token (+ position, type, patch, class token) tables
  std::int64_t attentionParams() const;  // one layer's QKV + output projection (+ biases)
  std::int64_t ffnParams() const;        // one layer's feed-forward block (one expert)
  std::int64_t normParams() const;       // one normalisation layer
  std::int64_t layerParams() const;      // one block: 2 norms, attention, experts, router
  std::int64_t headParams() const;       // the output head beyond a tied embedding (+ final norm, pooler)
  std::int64_t params() const;           // all of it
  // Parameters one token passes through (a mixture of experts uses expertsPerToken of
  // experts; embeddings are lookups): the N of "6 N FLOPs per token".
  std::int64_t activeMatmulParams() const;
};

// The reference transformers of the zoo (issue: LLM simulation), in a stable order.
const std::vector<TransformerSpec>& referenceTransformers();
// nullptr when `id` names no transformer.
const TransformerSpec* findTransformer(const std::string& id);
// Throws core::util::Error naming the id and listing the known transformers.
const TransformerSpec& transformerSpec(const std::string& id);
std::string transformerIdList();

// Checks the invariants (positive dimensions, heads divisible by KV heads, ...); throws
// core::util::Error naming the spec and the field.
void validate(const TransformerSpec& s);

}  // namespace core::nn
