#pragma once
// The cost of one ONNX node as a LayerStats, after shape inference (batch 1: every figure is
// per sample). Private to the ONNX reader (core/nn/onnx_model.cpp); needs ONNX's headers.
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/nn/layer_stats.h"
#include "core/nn/onnx_model.h"

namespace core::nn {

struct OnnxTensor {
  std::string name;  // the initializer's own name (an alias keeps its source's)
  std::vector<std::int64_t> dims;
  std::int64_t elements = 0;
  int elementType = 0;  // onnx::TensorProto::DataType
};

// A tensor's per-sample shape: the batch dimension dropped, the rest as (c, h, w), dimensions
// past the third folded into w.
Shape perSampleShape(const std::vector<std::int64_t>& dims);

// True when a convolution's weight and bias are the ones torch.onnx.export (eval mode) folded a
// batch norm into: named "onnx::Conv_N" by the export, as the node reads them or as the tensors
// they alias (an all-zero folded bias may be an Identity of another equal tensor).
bool torchFoldedConvolution(const onnx::NodeProto& conv, const OnnxTensor* weight, const OnnxTensor* bias);

class OnnxCoster {
 public:
  // `used`: the tensors some node reads or the graph returns (an output nobody reads, such as
  // training-mode BatchNormalization's running statistics, may stay without a shape).
  OnnxCoster(const std::map<std::string, OnnxTensor>& initializers,
             const std::map<std::string, std::vector<std::int64_t>>& shapes, std::set<std::string> used, std::string where);

  // Costs `node` (the index-th in execution order) and appends it. Throws core::util::Error
  // naming the node and its op when an output's shape is unknown or absurd.
  void add(const onnx::NodeProto& node, std::size_t index);

  // Convolutions whose weight and bias torch's eval-mode export renamed "onnx::..." get their
  // batch norm back (onnx_model.h: OnnxModel::unfoldedBatchNorms).
  void unfoldTorchBatchNorm(bool on) { m_unfoldTorchBatchNorm = on; }
  int unfoldedBatchNorms() const { return m_unfolded; }

  NetworkStats take() { return std::move(m_stats); }
  // perSampleShape() of a tensor (empty when its shape is unknown).
  Shape perSampleShape(const std::string& tensor) const;

 private:
  const std::vector<std::int64_t>* shapeOf(const std::string& tensor) const;
  std::int64_t elementsOf(const std::string& tensor) const;
  // An initializer, or an Identity of one (torch.onnx.export shares equal constants that way).
  const OnnxTensor* initializer(const std::string& tensor) const;
  bool isInitializer(const std::string& tensor) const { return initializer(tensor) != nullptr; }

  const std::map<std::string, OnnxTensor>& m_inits;
  const std::map<std::string, std::vector<std::int64_t>>& m_shapes;
  std::set<std::string> m_used;
  std::string m_where;
  std::map<std::string, OnnxTensor> m_aliases;  // Identity outputs of initializers
  std::set<std::string> m_counted;  // initializers already counted as parameters
  NetworkStats m_stats;
  bool m_unfoldTorchBatchNorm = false;
  int m_unfolded = 0;
};

}  // namespace core::nn
