#include "core/nn/fma_peak.h"

#include <algorithm>
#include <chrono>
#include <latch>
#include <thread>
#include <vector>

#include "core/nn/gemm.h"
#include "core/nn/gemm_kernels.h"

namespace core::nn {
namespace {

// One round: every thread starts together and runs the same chains; the round's rate is all
// flops over the slowest thread's time (hyper-threads sharing a core show as such).
double roundGflops(bool bf16, int threads, std::int64_t iterations) {
  std::vector<double> seconds(static_cast<std::size_t>(threads)), flops(seconds.size());
  std::vector<float> sinks(seconds.size());
  std::latch start(threads);
  std::vector<std::jthread> workers;
  for (int t = 0; t < threads; ++t)
    workers.emplace_back([&, t] {
      const auto i = static_cast<std::size_t>(t);
      start.arrive_and_wait();
      const auto t0 = std::chrono::steady_clock::now();
      flops[i] = detail::peakChains(bf16, iterations, 1.0f + 0.001f * static_cast<float>(t), &sinks[i]);
      seconds[i] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    });
  workers.clear();  // joins
  double total = 0;
  for (double f : flops) total += f;
  const double slowest = *std::max_element(seconds.begin(), seconds.end());
  return slowest > 0 ? total / slowest / 1e9 : 0;
}

double best(bool bf16, int threads) {
  // 8M rounds of 12 chains: ~12 ms per thread for AVX-512 fp32 at 4 GHz. A first round warms the
  // core up (AVX-512 frequency licence); the best of four is the figure.
  constexpr std::int64_t kIterations = 8'000'000;
  double b = 0;
  for (int r = 0; r < 5; ++r) {
    const double g = roundGflops(bf16, threads, kIterations);
    if (r > 0) b = std::max(b, g);
  }
  return b;
}

}  // namespace

FmaPeak measureFmaPeak(int threads) {
  FmaPeak p;
  p.threads = threads > 0 ? threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  p.path = gemmIsaName(gemmIsa());
  p.fp32Gflops = best(false, p.threads);
  if (bf16OnHardware()) p.bf16Gflops = best(true, p.threads);
  return p;
}

}  // namespace core::nn
