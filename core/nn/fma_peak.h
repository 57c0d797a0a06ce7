#pragma once
// The machine's multiply-add peak, measured rather than taken from a datasheet: `threads`
// threads at once each run independent chains of the GEMM path's widest instruction in
// registers (no memory traffic), the best of a few short rounds. What `bench` divides a model's
// achieved rate by, and what a host bf16 prediction rests on.
#include <string>

namespace core::nn {

struct FmaPeak {
  int threads = 0;
  std::string path;          // gemmIsaName(gemmIsa()) when measured
  double fp32Gflops = 0;     // fp32 FMA
  double bf16Gflops = 0;     // AMX tiles or AVX512_BF16 dot products; 0 where the CPU has neither
};

// About 0.1 s per precision on a 4 GHz core. threads <= 0 means all hardware threads.
FmaPeak measureFmaPeak(int threads);

}  // namespace core::nn
