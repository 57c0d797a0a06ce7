#pragma once
// The one seam for parallelism (tiny-dnn's parallel_for habit). Layers call parallelChunks();
// the trainer owns the tbb::task_arena that bounds the thread count. Work is cut into a
// fixed number of chunks that depends only on (n, chunks), never on scheduling, so per-chunk
// partial results reduced in chunk order give bit-identical results run to run.
#include <algorithm>
#include <cstddef>
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/partitioner.h>
#include <oneapi/tbb/task_arena.h>

namespace core::util {

// Number of worker threads available in the calling arena (1 when called outside TBB work).
inline int currentConcurrency() { return std::max(1, oneapi::tbb::this_task_arena::max_concurrency()); }

// The range [begin, end) of chunk `c` when n items are cut into `chunks` near-equal chunks.
struct ChunkRange {
  std::ptrdiff_t begin = 0;
  std::ptrdiff_t end = 0;
};
inline ChunkRange chunkRange(std::ptrdiff_t n, int chunks, int c) {
  const std::ptrdiff_t base = n / chunks, extra = n % chunks;
  const std::ptrdiff_t b = c * base + std::min<std::ptrdiff_t>(c, extra);
  return {b, b + base + (c < extra ? 1 : 0)};
}

// Calls fn(chunkIndex, begin, end) for `chunks` chunks of [0, n); serial when chunks == 1.
template <class Fn>
void parallelChunks(std::ptrdiff_t n, int chunks, Fn&& fn) {
  chunks = static_cast<int>(std::max<std::ptrdiff_t>(1, std::min<std::ptrdiff_t>(chunks, n)));
  if (chunks == 1) {
    fn(0, std::ptrdiff_t{0}, n);
    return;
  }
  oneapi::tbb::parallel_for(
      oneapi::tbb::blocked_range<int>(0, chunks, 1),
      [&](const oneapi::tbb::blocked_range<int>& r) {
        for (int c = r.begin(); c != r.end(); ++c) {
          const ChunkRange cr = chunkRange(n, chunks, c);
          fn(c, cr.begin, cr.end);
        }
      },
      oneapi::tbb::simple_partitioner());
}

// Plain parallel loop over [0, n) for work whose result does not depend on the split.
template <class Fn>
void parallelFor(std::ptrdiff_t n, std::ptrdiff_t grain, Fn&& fn) {
  if (n <= grain || currentConcurrency() == 1) {
    fn(std::ptrdiff_t{0}, n);
    return;
  }
  oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::ptrdiff_t>(0, n, std::max<std::ptrdiff_t>(1, grain)),
                            [&](const oneapi::tbb::blocked_range<std::ptrdiff_t>& r) { fn(r.begin(), r.end()); });
}

}  // namespace core::util
