// TEMPORARY (step 1 of the engine): shapes and stats are done; these layers' forward/backward
// land in the next commit.
#include "core/nn/conv2d.h"
#include "core/nn/depthwise_conv2d.h"

namespace core::nn {
const Matrix& Conv2D::forward(const Matrix&, const PassContext&) { fail("forward not implemented yet"); }
const Matrix& Conv2D::backward(const Matrix&, const Matrix&, bool, const PassContext&) { fail("backward not implemented yet"); }
const Matrix& DepthwiseConv2D::forward(const Matrix&, const PassContext&) { fail("forward not implemented yet"); }
const Matrix& DepthwiseConv2D::backward(const Matrix&, const Matrix&, bool, const PassContext&) { fail("backward not implemented yet"); }
}  // namespace core::nn
