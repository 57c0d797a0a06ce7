#pragma once
// Shape arithmetic folded into constants. torch.onnx.export writes `x.view(x.size(0), -1)` as
// Shape -> Gather -> Unsqueeze -> Concat -> Reshape; ONNX 1.12's data propagation does not see
// through that chain, so the Reshape's output (and all after it) would have no shape. With the
// batch dimension fixed, those values are constants: this evaluates them. Private to the ONNX
// reader (core/nn/onnx_model.cpp); needs ONNX's headers.
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace core::nn {

using OnnxShapes = std::map<std::string, std::vector<std::int64_t>>;

// Evaluates the small integer computations (Constant, Shape, Gather, Slice, Concat, Unsqueeze,
// Squeeze, Cast, Identity, Reshape, Add, Sub, Mul, Div, ConstantOfShape, Equal, Where) whose inputs are known from `shapes`,
// points every other node reading one of their results at a new initializer holding it, and
// removes the computing nodes. Returns how many inputs it pointed elsewhere (0: nothing to fold).
int foldShapeArithmetic(onnx::GraphProto& g, const OnnxShapes& shapes);

}  // namespace core::nn
