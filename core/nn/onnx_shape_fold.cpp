#include "core/nn/onnx_shape_fold.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <set>

#include "core/nn/onnx_attributes.h"

namespace core::nn {
namespace {

using Values = std::vector<std::int64_t>;

// Shape computations are a handful of numbers; anything longer is data, not a shape.
constexpr std::size_t kMaxValues = 64;

std::optional<Values> tensorValues(const onnx::TensorProto& t) {
  std::int64_t declared = 1;
  for (const std::int64_t d : t.dims()) {
    if (d < 0 || d > static_cast<std::int64_t>(kMaxValues)) return std::nullopt;
    declared *= d;
  }
  if (declared > static_cast<std::int64_t>(kMaxValues)) return std::nullopt;
  Values v;
  if (t.data_type() == onnx::TensorProto::INT64) {
    if (!t.raw_data().empty()) {
      if (t.raw_data().size() != static_cast<std::size_t>(declared) * 8) return std::nullopt;
      v.resize(static_cast<std::size_t>(declared));
      std::memcpy(v.data(), t.raw_data().data(), t.raw_data().size());  // little-endian, as ONNX stores it
    } else {
      v.assign(t.int64_data().begin(), t.int64_data().end());
    }
  } else if (t.data_type() == onnx::TensorProto::INT32) {
    if (!t.raw_data().empty()) {
      if (t.raw_data().size() != static_cast<std::size_t>(declared) * 4) return std::nullopt;
      for (std::size_t i = 0; i < static_cast<std::size_t>(declared); ++i) {
        std::int32_t x;
        std::memcpy(&x, t.raw_data().data() + 4 * i, 4);
        v.push_back(x);
      }
    } else {
      v.assign(t.int32_data().begin(), t.int32_data().end());
    }
  } else {
    return std::nullopt;
  }
  if (v.size() != static_cast<std::size_t>(declared)) return std::nullopt;
  return v;
}

// Python-style index into n elements, or nullopt when out of range.
std::optional<std::size_t> wrap(std::int64_t i, std::size_t n) {
  const auto len = static_cast<std::int64_t>(n);
  if (i < 0) i += len;
  if (i < 0 || i >= len) return std::nullopt;
  return static_cast<std::size_t>(i);
}

std::optional<Values> slice(const Values& data, const Values& starts, const Values& ends, const Values* axes,
                            const Values* steps) {
  if (starts.size() != 1 || ends.size() != 1 || (axes && (axes->size() != 1 || ((*axes)[0] != 0 && (*axes)[0] != -1))) ||
      (steps && (steps->size() != 1 || (*steps)[0] != 1)))
    return std::nullopt;
  const auto n = static_cast<std::int64_t>(data.size());
  auto clampIndex = [n](std::int64_t i) { return std::clamp<std::int64_t>(i < 0 ? i + n : i, 0, n); };
  const std::int64_t b = clampIndex(starts[0]), e = clampIndex(ends[0]);
  return b < e ? Values(data.begin() + b, data.begin() + e) : Values();
}

std::optional<Values> arithmetic(const std::string& op, const Values& a, const Values& b) {
  if (a.empty() || b.empty() || (a.size() != b.size() && a.size() != 1 && b.size() != 1)) return std::nullopt;
  Values out(std::max(a.size(), b.size()));
  for (std::size_t i = 0; i < out.size(); ++i) {
    const std::int64_t x = a[a.size() == 1 ? 0 : i], y = b[b.size() == 1 ? 0 : i];
    std::int64_t r = 0;
    if (op == "Add" ? __builtin_add_overflow(x, y, &r)
        : op == "Sub" ? __builtin_sub_overflow(x, y, &r)
        : op == "Mul" ? __builtin_mul_overflow(x, y, &r)
        : (y == 0 || (x == INT64_MIN && y == -1)))
      return std::nullopt;
    if (op == "Div") r = x / y;  // ONNX integer division truncates, as C++ does
    out[i] = r;
  }
  return out;
}

}  // namespace

int foldShapeArithmetic(onnx::GraphProto& g, const OnnxShapes& shapes) {
  std::map<std::string, Values> known;
  for (const auto& t : g.initializer())
    if (auto v = tensorValues(t)) known[t.name()] = std::move(*v);
  std::set<std::string> graphOutputs;
  for (const auto& o : g.output()) graphOutputs.insert(o.name());
  auto rankAtMostOne = [&](const std::string& name) {
    const auto it = shapes.find(name);
    return it != shapes.end() && it->second.size() <= 1;
  };
  std::set<int> folded;
  std::set<std::string> results;   // tensors computed here (not initializers)
  std::set<std::string> booleans;  // of those, the bool ones
  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto& node = g.node(i);
    if (!node.domain().empty() || node.output_size() != 1 || graphOutputs.count(node.output(0))) continue;
    const std::string& op = node.op_type();
    auto in = [&](int k) -> const Values* {
      if (k >= node.input_size() || node.input(k).empty()) return nullptr;
      const auto it = known.find(node.input(k));
      return it == known.end() ? nullptr : &it->second;
    };
    std::optional<Values> v;
    bool boolean = false;  // Equal's result: a bool tensor
    if (op == "Constant") {
      if (const auto* a = onnxAttribute(node, "value"); a && a->has_t()) v = tensorValues(a->t());
      else if (const auto* ints = onnxAttribute(node, "value_ints")) v = Values(ints->ints().begin(), ints->ints().end());
      else if (const auto* one = onnxAttribute(node, "value_int")) v = Values{one->i()};
    } else if (op == "Shape") {
      if (const auto it = shapes.find(node.input(0)); it != shapes.end()) {
        const Values& dims = it->second;
        const auto* s = onnxAttribute(node, "start");
        const auto* e = onnxAttribute(node, "end");
        v = slice(dims, Values{s ? s->i() : 0}, Values{e ? e->i() : static_cast<std::int64_t>(dims.size())}, nullptr, nullptr);
      }
    } else if (op == "Identity" || op == "Unsqueeze" || op == "Squeeze" || op == "Reshape" || op == "Flatten") {
      if (in(0) && rankAtMostOne(node.output(0))) v = *in(0);
    } else if (op == "Cast") {
      const auto* to = onnxAttribute(node, "to");
      if (in(0) && to && (to->i() == onnx::TensorProto::INT64 || to->i() == onnx::TensorProto::INT32)) v = *in(0);
    } else if (op == "Concat") {
      Values all;
      bool ok = node.input_size() > 0;
      for (int k = 0; ok && k < node.input_size(); ++k) {
        ok = in(k) && rankAtMostOne(node.input(k));
        if (ok) all.insert(all.end(), in(k)->begin(), in(k)->end());
      }
      if (ok) v = std::move(all);
    } else if (op == "Gather") {
      const auto* axis = onnxAttribute(node, "axis");
      if (in(0) && in(1) && rankAtMostOne(node.input(0)) && (!axis || axis->i() == 0 || axis->i() == -1)) {
        Values out;
        bool ok = true;
        for (const std::int64_t idx : *in(1)) {
          const auto at = wrap(idx, in(0)->size());
          if (!(ok = at.has_value())) break;
          out.push_back((*in(0))[*at]);
        }
        if (ok) v = std::move(out);
      }
    } else if (op == "Slice") {
      if (in(0) && in(1) && in(2) && rankAtMostOne(node.input(0))) v = slice(*in(0), *in(1), *in(2), in(3), in(4));
    } else if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div") {
      if (in(0) && in(1) && rankAtMostOne(node.input(0)) && rankAtMostOne(node.input(1))) v = arithmetic(op, *in(0), *in(1));
    } else if (op == "ConstantOfShape") {  // torch's expand(n, -1, -1): ConstantOfShape, Equal, Where
      const auto* value = onnxAttribute(node, "value");
      const auto fill = value && value->has_t() ? tensorValues(value->t()) : std::nullopt;  // default: float 0
      if (in(0) && fill && fill->size() == 1 && in(0)->size() <= 1 && (in(0)->empty() || (*in(0))[0] <= static_cast<std::int64_t>(kMaxValues)))
        v = Values(in(0)->empty() ? 1 : static_cast<std::size_t>(std::max<std::int64_t>(0, (*in(0))[0])), (*fill)[0]);
    } else if (op == "Equal") {
      if (in(0) && in(1) && rankAtMostOne(node.input(0)) && rankAtMostOne(node.input(1)))
        if ((v = arithmetic("Sub", *in(0), *in(1))))
          for (auto& x : *v) x = x == 0 ? 1 : 0;
      boolean = true;
    } else if (op == "Where") {
      const Values *c = in(0), *a = in(1), *b = in(2);
      if (c && a && b && rankAtMostOne(node.input(0)) && rankAtMostOne(node.input(1)) && rankAtMostOne(node.input(2))) {
        const std::size_t len = std::max({c->size(), a->size(), b->size()});
        auto at = [len](const Values& x, std::size_t i) -> std::optional<std::int64_t> {
          if (x.size() == len) return x[i];
          if (x.size() == 1) return x[0];
          return std::nullopt;
        };
        Values out;
        for (std::size_t i = 0; i < len; ++i) {
          const auto ci = at(*c, i), ai = at(*a, i), bi = at(*b, i);
          if (!ci || !ai || !bi) break;
          out.push_back(*ci ? *ai : *bi);
        }
        if (out.size() == len) v = std::move(out);
      }
    }
    if (!v || v->size() > kMaxValues) continue;
    known[node.output(0)] = std::move(*v);
    if (boolean) booleans.insert(node.output(0));
    results.insert(node.output(0));
    folded.insert(i);
  }
  // Every other reader of a result reads an initializer instead; the computing nodes go.
  int redirected = 0;
  std::map<std::string, std::string> initializerOf;
  for (int i = 0; i < g.node_size(); ++i) {
    if (folded.count(i)) continue;
    onnx::NodeProto& node = *g.mutable_node(i);
    for (int k = 0; k < node.input_size(); ++k) {
      const std::string name = node.input(k);
      if (!results.count(name)) continue;
      auto [it, fresh] = initializerOf.emplace(name, "accellab_folded_" + std::to_string(initializerOf.size()) + "_" + name);
      if (fresh) {
        onnx::TensorProto* t = g.add_initializer();
        t->set_name(it->second);
        const bool isBool = booleans.count(name) > 0;
        t->set_data_type(isBool ? onnx::TensorProto::BOOL : onnx::TensorProto::INT64);
        const Values& values = known[name];
        const auto shape = shapes.find(name);
        if (shape != shapes.end() && shape->second.empty() && values.size() == 1) {
          // a scalar: no dims
        } else {
          t->add_dims(static_cast<std::int64_t>(values.size()));
        }
        for (const std::int64_t x : values) {
          if (isBool) t->add_int32_data(x != 0);
          else t->add_int64_data(x);
        }
      }
      node.set_input(k, it->second);
      ++redirected;
    }
  }
  if (redirected == 0) return 0;
  google::protobuf::RepeatedPtrField<onnx::ValueInfoProto> info;
  for (const auto& vi : g.value_info())
    if (!results.count(vi.name())) *info.Add() = vi;
  g.mutable_value_info()->Swap(&info);
  google::protobuf::RepeatedPtrField<onnx::NodeProto> kept;
  for (int i = 0; i < g.node_size(); ++i)
    if (!folded.count(i)) *kept.Add() = g.node(i);
  g.mutable_node()->Swap(&kept);
  return redirected;
}

}  // namespace core::nn
