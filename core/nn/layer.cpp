#include "core/nn/layer.h"

#include <algorithm>

#include "core/nn/activation.h"
#include "core/util/error.h"

namespace core::nn {

ParamBinder::Slice ParamBinder::take(std::int64_t n, std::int64_t matrixWeights) {
  if (matrixWeights > 0) m_matrixRanges.emplace_back(m_offset, std::min(n, matrixWeights));
  Slice s;
  if (m_params) s.params = m_params + m_offset;
  if (m_grads) s.grads = m_grads + m_offset;
  if (m_gemmParams) s.gemmParams = m_gemmParams + m_offset;
  m_offset += n;
  return s;
}

float* ParamBinder::takeState(std::int64_t n) {
  float* p = m_state ? m_state + m_stateOffset : nullptr;
  m_stateOffset += n;
  return p;
}

Layer::Layer(LayerKind kind, std::string name) : m_kind(kind), m_name(std::move(name)) {}
Layer::~Layer() = default;

Shape Layer::build(Shape in) {
  if (in.c <= 0 || in.h <= 0 || in.w <= 0)
    fail("input shape " + std::to_string(in.c) + "x" + std::to_string(in.h) + "x" + std::to_string(in.w) +
         " has a non-positive dimension");
  m_in = in;
  m_out = inferShape(in);
  if (m_out.c <= 0 || m_out.h <= 0 || m_out.w <= 0)
    fail("input " + std::to_string(in.c) + "x" + std::to_string(in.h) + "x" + std::to_string(in.w) +
         " is too small (output would be " + std::to_string(m_out.c) + "x" + std::to_string(m_out.h) + "x" +
         std::to_string(m_out.w) + ")");
  return m_out;
}

void Layer::assignNames(const std::string& prefix, std::vector<int>& countersByKind) {
  if (m_name.empty()) {
    const auto k = static_cast<std::size_t>(m_kind);
    if (countersByKind.size() <= k) countersByKind.resize(k + 1, 0);
    const int n = countersByKind[k]++;
    m_name = layerKindName(m_kind);
    if (n > 0) m_name.append(1, '_').append(std::to_string(n));
  }
  if (!prefix.empty() && m_name.rfind(prefix, 0) != 0) m_name = prefix + m_name;
}

void Layer::appendStats(std::vector<LayerStats>& out) const { out.push_back(baseStats()); }

void Layer::bind(ParamBinder& binder) { m_layerIndex = binder.nextLayerIndex(); }

LayerStats Layer::baseStats() const {
  LayerStats s;
  s.name = m_name;
  s.kind = m_kind;
  s.inShape = m_in;
  s.outShape = m_out;
  s.params = paramCount();
  s.nonTrainableParams = stateCount();
  s.forwardBytes = 4.0 * static_cast<double>(m_in.size() + m_out.size());
  s.weightBytes = 4.0 * static_cast<double>(paramCount() + stateCount());
  s.savedBytes = 4.0 * static_cast<double>(m_out.size());
  return s;
}

GraphNode Layer::graph() const {
  GraphNode n;
  n.name = m_name;
  n.in = m_in;
  n.out = m_out;
  n.params = paramCount();
  describe(n);
  return n;
}

void Layer::describe(GraphNode&) const { fail("has no graph description (it cannot be exported)"); }

void Layer::fail(const std::string& what) const {
  throw util::Error("layer '" + (m_name.empty() ? std::string(layerKindName(m_kind)) : m_name) + "': " + what);
}

int chunksFor(const PassContext& ctx, std::int64_t work, std::int64_t columns) {
  constexpr std::int64_t kMinWorkPerChunk = 16384;
  if (ctx.chunks <= 1 || columns <= 1 || work < 2 * kMinWorkPerChunk) return 1;
  return static_cast<int>(std::min<std::int64_t>({ctx.chunks, columns, work / kMinWorkPerChunk}));
}

Activation Layer::ownActivation() const { return Activation::Linear; }

}  // namespace core::nn
