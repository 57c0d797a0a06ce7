#include "core/nn/onnx_attributes.h"

#include <algorithm>
#include <cstring>

namespace core::nn {

const onnx::AttributeProto* onnxAttribute(const onnx::NodeProto& node, const char* name) {
  for (const auto& a : node.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

std::int64_t attrInt(const onnx::NodeProto& node, const char* name, std::int64_t fallback) {
  const onnx::AttributeProto* a = onnxAttribute(node, name);
  return a && a->type() == onnx::AttributeProto::INT ? a->i() : fallback;
}

float attrFloat(const onnx::NodeProto& node, const char* name, float fallback) {
  const onnx::AttributeProto* a = onnxAttribute(node, name);
  return a && a->type() == onnx::AttributeProto::FLOAT ? a->f() : fallback;
}

std::vector<std::int64_t> attrInts(const onnx::NodeProto& node, const char* name) {
  const onnx::AttributeProto* a = onnxAttribute(node, name);
  return a ? std::vector<std::int64_t>(a->ints().begin(), a->ints().end()) : std::vector<std::int64_t>{};
}

std::string attrString(const onnx::NodeProto& node, const char* name) {
  const onnx::AttributeProto* a = onnxAttribute(node, name);
  return a ? a->s() : std::string();
}

std::optional<std::vector<float>> tensorFloats(const onnx::TensorProto& p, std::size_t n) {
  std::vector<float> v(n);
  const std::string& raw = p.raw_data();
  if (p.data_type() == onnx::TensorProto::FLOAT) {
    if (!raw.empty()) {
      if (raw.size() != 4 * n) return std::nullopt;
      std::memcpy(v.data(), raw.data(), raw.size());  // little-endian, as ONNX stores it
    } else {
      if (static_cast<std::size_t>(p.float_data_size()) != n) return std::nullopt;
      std::copy(p.float_data().begin(), p.float_data().end(), v.begin());
    }
    return v;
  }
  if (p.data_type() == onnx::TensorProto::DOUBLE) {
    if (!raw.empty()) {
      if (raw.size() != 8 * n) return std::nullopt;
      for (std::size_t i = 0; i < n; ++i) {
        double d;
        std::memcpy(&d, raw.data() + 8 * i, 8);
        v[i] = static_cast<float>(d);
      }
    } else {
      if (static_cast<std::size_t>(p.double_data_size()) != n) return std::nullopt;
      std::copy(p.double_data().begin(), p.double_data().end(), v.begin());
    }
    return v;
  }
  return std::nullopt;
}

}  // namespace core::nn
