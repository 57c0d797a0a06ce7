// The ONNX reader, from memory: the wire format bounded, the opset checked, the graph ordered,
// ONNX's checker and shape inference run, every node costed.
#include "core/nn/onnx_model.h"
#include "core/util/error.h"
#include "fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    core::nn::parseOnnxModel(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.onnx");
  } catch (const core::util::Error&) {
  }
  return 0;
}
