#pragma once
// Window geometry shared by convolutions and pooling: kernel, stride and padding along one
// axis. `Same` is TensorFlow/Keras' rule (output = ceil(in / stride), extra padding at the
// end); `Explicit` is PyTorch's symmetric padding.
namespace core::nn {

enum class PaddingMode { Valid, Same, Explicit };

struct Padding {
  PaddingMode mode = PaddingMode::Valid;
  int h = 0;  // Explicit only: rows added above and below
  int w = 0;  // Explicit only: columns added left and right
  static Padding valid() { return {}; }
  static Padding same() { return {PaddingMode::Same, 0, 0}; }
  static Padding explicitPad(int h, int w) { return {PaddingMode::Explicit, h, w}; }
};

// One axis of a sliding window: output size and padding before the first element.
struct WindowAxis {
  int out = 0;
  int padBefore = 0;
};

inline WindowAxis windowAxis(int in, int kernel, int stride, PaddingMode mode, int explicitPad) {
  WindowAxis a;
  switch (mode) {
    case PaddingMode::Valid:
      a.out = in >= kernel ? (in - kernel) / stride + 1 : 0;
      break;
    case PaddingMode::Same: {
      a.out = (in + stride - 1) / stride;
      const int total = (a.out - 1) * stride + kernel - in;
      a.padBefore = total > 0 ? total / 2 : 0;
      break;
    }
    case PaddingMode::Explicit:
      a.padBefore = explicitPad;
      a.out = in + 2 * explicitPad >= kernel ? (in + 2 * explicitPad - kernel) / stride + 1 : 0;
      break;
  }
  return a;
}

}  // namespace core::nn
