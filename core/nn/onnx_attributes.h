#pragma once
// Reading an ONNX node's attributes and a tensor's float values: once, for every part of the
// ONNX reader (the layer mapping, the per-node cost, the shape folding). Private to the ONNX
// reader's sources (core/CMakeLists.txt gives them ONNX's definitions); needs ONNX's headers.
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace core::nn {

// The node's attribute called `name`, whatever its type; nullptr when it has none.
const onnx::AttributeProto* onnxAttribute(const onnx::NodeProto& node, const char* name);

// An INT or FLOAT attribute's value; `fallback` when absent or of another type.
std::int64_t attrInt(const onnx::NodeProto& node, const char* name, std::int64_t fallback);
float attrFloat(const onnx::NodeProto& node, const char* name, float fallback);
// An attribute's list of ints, or its string; empty when absent.
std::vector<std::int64_t> attrInts(const onnx::NodeProto& node, const char* name);
std::string attrString(const onnx::NodeProto& node, const char* name);

// A float or double tensor's n values as floats (raw little-endian data or the typed field);
// nullopt for another element type or another count.
std::optional<std::vector<float>> tensorFloats(const onnx::TensorProto& p, std::size_t n);

}  // namespace core::nn
