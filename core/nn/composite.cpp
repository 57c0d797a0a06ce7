#include "core/nn/composite.h"

#include "core/nn/activation.h"

#include "core/util/error.h"
#include "core/util/parallel.h"

namespace core::nn {

// --- Sequential -------------------------------------------------------------------------------

Sequential::Sequential(std::string name) : Layer(LayerKind::Other, std::move(name)) {}
Sequential::Sequential(LayerKind kind, std::string name) : Layer(kind, std::move(name)) {}

Sequential& Sequential::add(std::unique_ptr<Layer> layer) {
  if (!layer) throw util::Error("Sequential '" + name() + "': cannot add a null layer");
  m_children.push_back(std::move(layer));
  return *this;
}

void Sequential::assignNames(const std::string& prefix, std::vector<int>& countersByKind) {
  const std::string inner = prefixesChildren() && !name().empty() ? prefix + name() + "/" : prefix;
  for (auto& c : m_children) c->assignNames(inner, countersByKind);
}

void RootSequential::assignNames(const std::string&, std::vector<int>& countersByKind) {
  Sequential::assignNames("", countersByKind);
}

Shape Sequential::inferShape(Shape in) {
  for (auto& c : m_children) in = c->build(in);
  // An activation layer whose predecessor can apply it too (BatchNorm and ReLU) is taken by
  // it: one pass over the data, forward and backward, instead of two.
  for (std::size_t i = 1; i < m_children.size(); ++i)
    if (auto* act = dynamic_cast<ActivationLayer*>(m_children[i].get()))
      act->setTaken(m_children[i - 1]->takeFollowingActivation(act->activation()));
  // In the backward pass a layer may apply the activation gradient of the layer before it in a pass
  // of its own (max pooling where it routes the gradient, a residual block as it adds its
  // branches'), and that layer then skips its pass over every element.
  for (std::size_t i = 1; i < m_children.size(); ++i) {
    const Activation before = m_children[i - 1]->ownActivation();
    const bool taken = m_children[i]->takePrecedingActivationGradient(before);
    m_children[i - 1]->setActivationGradientTaken(taken && before != Activation::Linear);
  }
  for (std::size_t i = 1; i < m_children.size(); ++i) m_children[i - 1]->takeFollowingLayer(*m_children[i]);
  return in;
}

void Sequential::appendStats(std::vector<LayerStats>& out) const {
  for (const auto& c : m_children) c->appendStats(out);
}

std::int64_t Sequential::paramCount() const {
  std::int64_t n = 0;
  for (const auto& c : m_children) n += c->paramCount();
  return n;
}

std::int64_t Sequential::stateCount() const {
  std::int64_t n = 0;
  for (const auto& c : m_children) n += c->stateCount();
  return n;
}

void Sequential::bind(ParamBinder& binder) {
  for (auto& c : m_children) c->bind(binder);
}

void Sequential::initParams(std::uint64_t seed) {
  for (auto& c : m_children) c->initParams(seed);
}

const Matrix& Sequential::forward(const Matrix& x, const PassContext& ctx) {
  m_inputs.resize(m_children.size());
  const Matrix* cur = &x;
  for (std::size_t i = 0; i < m_children.size(); ++i) {
    m_inputs[i] = cur;
    cur = &m_children[i]->forward(*cur, ctx);
  }
  return *cur;
}

const Matrix& Sequential::backward(const Matrix&, const Matrix& dy, bool needDx, const PassContext& ctx) {
  // Child i needs its input gradient when something before it (or before this container)
  // has parameters to train.
  std::vector<char> need(m_children.size());
  bool paramsBefore = needDx;
  for (std::size_t i = 0; i < m_children.size(); ++i) {
    need[i] = paramsBefore;
    paramsBefore = paramsBefore || m_children[i]->hasParams();
  }
  const Matrix* g = &dy;
  for (std::size_t i = m_children.size(); i-- > 0;) {
    if (!need[i] && !m_children[i]->hasParams()) break;  // nothing below needs gradients
    g = &m_children[i]->backward(*m_inputs[i], *g, need[i], ctx);
  }
  return *g;
}

// --- Residual ---------------------------------------------------------------------------------

Residual::Residual(std::string name, Activation after) : Layer(LayerKind::Residual, std::move(name)), m_after(after) {}

void Residual::assignNames(const std::string& prefix, std::vector<int>& countersByKind) {
  Layer::assignNames(prefix, countersByKind);
  const std::string inner = name() + "/";
  for (std::size_t i = 0; i < m_main.size(); ++i) m_main.child(i).assignNames(inner, countersByKind);
  for (std::size_t i = 0; i < m_shortcut.size(); ++i)
    m_shortcut.child(i).assignNames(inner + "shortcut/", countersByKind);
}

Shape Residual::inferShape(Shape in) {
  const Shape a = m_main.build(in);
  const Shape b = m_shortcut.build(in);
  if (!(a == b))
    fail("main branch gives " + std::to_string(a.c) + "x" + std::to_string(a.h) + "x" + std::to_string(a.w) +
         " but the shortcut gives " + std::to_string(b.c) + "x" + std::to_string(b.h) + "x" + std::to_string(b.w));
  return a;
}

void Residual::appendStats(std::vector<LayerStats>& out) const {
  m_main.appendStats(out);
  m_shortcut.appendStats(out);
  LayerStats s = baseStats();
  s.name = name() + "/add";
  s.params = s.nonTrainableParams = 0;  // the children carry the parameters
  s.weightBytes = 0;
  const double n = static_cast<double>(outShape().size());
  s.forwardFlops = n * (1 + activationForwardFlops(m_after));
  s.backwardFlops = n * (1 + activationBackwardFlops(m_after));
  s.forwardBytes = 4.0 * 3 * n;  // two inputs read, one output written
  s.savedBytes = m_after == Activation::Linear ? 0 : 4.0 * n;
  out.push_back(s);
}

std::int64_t Residual::paramCount() const { return m_main.paramCount() + m_shortcut.paramCount(); }
std::int64_t Residual::stateCount() const { return m_main.stateCount() + m_shortcut.stateCount(); }

void Residual::bind(ParamBinder& binder) {
  Layer::bind(binder);
  m_main.bind(binder);
  m_shortcut.bind(binder);
}

void Residual::initParams(std::uint64_t seed) {
  m_main.initParams(seed);
  m_shortcut.initParams(seed);
}

const Matrix& Residual::forward(const Matrix& x, const PassContext& ctx) {
  const Matrix& a = m_main.forward(x, ctx);
  const Matrix& s = m_shortcut.empty() ? x : m_shortcut.forward(x, ctx);
  m_y.resize(a.rows(), a.cols());
  const std::int64_t rows = a.rows();
  util::parallelChunks(a.cols(), chunksFor(ctx, a.size(), a.cols()), [&](int, std::ptrdiff_t b, std::ptrdiff_t e) {
    fillAndActivate(m_after, m_y.data(), rows * b, rows * e, [&](std::int64_t i, std::int64_t n) {
      VectorMap(m_y.data() + i, n) = ConstVectorMap(a.data() + i, n) + ConstVectorMap(s.data() + i, n);
    });
  });
  return m_y;
}

const Matrix& Residual::backward(const Matrix& x, const Matrix& dy, bool needDx, const PassContext& ctx) {
  const Matrix* g = &dy;
  const std::int64_t rows = dy.rows();
  if (m_after != Activation::Linear && !m_gradientTaken) {
    m_g.resize(dy.rows(), dy.cols());
    util::parallelChunks(dy.cols(), chunksFor(ctx, dy.size(), dy.cols()), [&](int, std::ptrdiff_t b, std::ptrdiff_t e) {
      activationGradient(m_after, m_y.data() + b * rows, dy.data() + b * rows, m_g.data() + b * rows, rows * (e - b));
    });
    g = &m_g;
  }
  const Matrix& dMain = m_main.backward(x, *g, needDx, ctx);
  const Matrix* dShort = g;
  if (!m_shortcut.empty()) dShort = &m_shortcut.backward(x, *g, needDx, ctx);
  if (!needDx) return m_dx;
  m_dx.resize(x.rows(), x.cols());
  withActivationGradient(m_before, [&](auto grad) {
    util::parallelChunks(x.cols(), chunksFor(ctx, x.size(), x.cols()), [&](int, std::ptrdiff_t b, std::ptrdiff_t e) {
      const std::int64_t at = x.rows() * b, n = x.rows() * (e - b);
      const float *in = x.data() + at, *main = dMain.data() + at, *shortcut = dShort->data() + at;
      float* out = m_dx.data() + at;
      for (std::int64_t i = 0; i < n; ++i) out[i] = grad(in[i], main[i] + shortcut[i]);
    });
  });
  return m_dx;
}

bool Residual::takePrecedingActivationGradient(Activation a) {
  m_before = a;
  return true;
}

// --- Concat -----------------------------------------------------------------------------------

Concat::Concat(std::string name) : Layer(LayerKind::Concat, std::move(name)) {}

Sequential& Concat::addBranch(std::string name) {
  m_branches.push_back(std::make_unique<Sequential>(std::move(name)));
  return *m_branches.back();
}

void Concat::assignNames(const std::string& prefix, std::vector<int>& countersByKind) {
  Layer::assignNames(prefix, countersByKind);
  for (std::size_t b = 0; b < m_branches.size(); ++b) {
    Sequential& br = *m_branches[b];
    const std::string inner = name() + "/" + (br.name().empty() ? "branch" + std::to_string(b) : br.name()) + "/";
    for (std::size_t i = 0; i < br.size(); ++i) br.child(i).assignNames(inner, countersByKind);
  }
}

Shape Concat::inferShape(Shape in) {
  if (m_branches.empty()) fail("has no branches");
  Shape out{0, 0, 0};
  for (auto& br : m_branches) {
    const Shape s = br->build(in);
    if (out.c == 0) {
      out = s;
    } else if (s.h != out.h || s.w != out.w) {
      fail("branch '" + br->name() + "' gives " + std::to_string(s.h) + "x" + std::to_string(s.w) + " pixels, others " +
           std::to_string(out.h) + "x" + std::to_string(out.w));
    } else {
      out.c += s.c;
    }
  }
  return out;
}

void Concat::appendStats(std::vector<LayerStats>& out) const {
  for (const auto& br : m_branches) br->appendStats(out);
  LayerStats s = baseStats();
  s.name = name() + "/concat";
  s.params = s.nonTrainableParams = 0;
  s.weightBytes = 0;
  s.savedBytes = 0;
  s.forwardBytes = 4.0 * 2 * static_cast<double>(outShape().size());
  out.push_back(s);
}

std::int64_t Concat::paramCount() const {
  std::int64_t n = 0;
  for (const auto& br : m_branches) n += br->paramCount();
  return n;
}

std::int64_t Concat::stateCount() const {
  std::int64_t n = 0;
  for (const auto& br : m_branches) n += br->stateCount();
  return n;
}

void Concat::bind(ParamBinder& binder) {
  Layer::bind(binder);
  for (auto& br : m_branches) br->bind(binder);
}

void Concat::initParams(std::uint64_t seed) {
  for (auto& br : m_branches) br->initParams(seed);
}

const Matrix& Concat::forward(const Matrix& x, const PassContext& ctx) {
  m_y.resize(outShape().size(), x.cols());
  Eigen::Index offset = 0;
  for (auto& br : m_branches) {
    const Matrix& o = br->forward(x, ctx);
    m_y.middleRows(offset, o.rows()) = o;
    offset += o.rows();
  }
  return m_y;
}

const Matrix& Concat::backward(const Matrix& x, const Matrix& dy, bool needDx, const PassContext& ctx) {
  if (needDx) m_dx.setZero(x.rows(), x.cols());
  Eigen::Index offset = 0;
  for (auto& br : m_branches) {
    const Eigen::Index rows = br->outShape().size();
    m_dyBranch = dy.middleRows(offset, rows);
    offset += rows;
    if (!needDx && !br->hasParams()) continue;
    const Matrix& d = br->backward(x, m_dyBranch, needDx, ctx);
    if (needDx) m_dx += d;
  }
  return m_dx;
}

}  // namespace core::nn
