// GEMM rates of the engine's kernels on the shapes its zoo runs (single thread, the callers
// split work across threads): every path this CPU has, fp32 and bf16. The PyTorch side
// (oneDNN through torch.matmul) is gemm_shapes_torch.py; packaging/bench/gemm_shapes.sh runs both.
//   build: see gemm_shapes.sh (links build/core/libaccellab_core.a)
#include <chrono>
#include <cstdio>
#include <random>
#include <vector>

#include "core/nn/gemm.h"

using namespace core::nn;

namespace {

double seconds(auto&& f, int reps) {
  f();  // warm-up
  double best = 1e30;
  for (int r = 0; r < 3; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < reps; ++i) f();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / reps);
  }
  return best;
}

}  // namespace

int main() {
  struct Shape {
    const char* what;
    int m, n, k;
  };
  // M x N x K: C (M x N) = A (M x K) B (K x N), column-major, not transposed.
  const Shape shapes[] = {
      {"vit-tiny dense (tokens x 64 <- 64)", 6400, 64, 64},
      {"vit-tiny mlp (tokens x 256 <- 64)", 6400, 256, 64},
      {"vit-tiny attention (50 x 50 <- 16)", 50, 50, 16},
      {"char-gpt dense (tokens x 128 <- 128)", 4096, 128, 128},
      {"resnet20 conv 3x3 16->16 (pixels x 16 <- 144)", 16384, 16, 144},
      {"resnet20 conv 3x3 64->64 (pixels x 64 <- 576)", 4096, 64, 576},
      {"colab-cnn conv 5x5 64->64 (pixels x 64 <- 1600)", 6272, 64, 1600},
      {"mlp dense (batch x 256 <- 784)", 128, 256, 784},
      {"square 1024", 1024, 1024, 1024},
  };
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-1, 1);
  std::printf("shape,m,n,k,path,precision,gflops\n");
  for (const Shape& s : shapes) {
    std::vector<float> a(static_cast<std::size_t>(s.m) * s.k), b(static_cast<std::size_t>(s.k) * s.n),
        c(static_cast<std::size_t>(s.m) * s.n);
    for (float& x : a) x = u(rng);
    for (float& x : b) x = u(rng);
    const double flops = 2.0 * s.m * s.n * s.k;
    const int reps = std::max(1, static_cast<int>(2e8 / flops));
    for (GemmIsa isa : {GemmIsa::Avx512, GemmIsa::Avx512Bf16, GemmIsa::Amx}) {
      if (isa > detectedGemmIsa()) continue;
      limitGemmIsa(isa);
      for (auto p : {core::util::Precision::FP32, core::util::Precision::BF16}) {
        if (isa != GemmIsa::Avx512 && p == core::util::Precision::FP32) continue;
        const double t = seconds([&] { sgemm(s.m, s.n, s.k, {a.data(), s.m}, {b.data(), s.k}, c.data(), s.m, false, p); }, reps);
        std::printf("%s,%d,%d,%d,%s,%s,%.1f\n", s.what, s.m, s.n, s.k, gemmIsaName(isa), core::util::precisionName(p),
                    flops / t / 1e9);
      }
    }
  }
}
