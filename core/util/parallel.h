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

#if defined(__SANITIZE_THREAD__)
#define ACCELLAB_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define ACCELLAB_TSAN 1
#endif
#endif
#ifdef ACCELLAB_TSAN
extern "C" void __tsan_acquire(void* addr);
extern "C" void __tsan_release(void* addr);
#endif

namespace core::util {

// ThreadSanitizer cannot see TBB's own synchronisation (libtbb is not instrumented), so every
// chunk's access to what the caller wrote before, or the caller's to what a chunk wrote, looks
// like a race. The fork (the caller's work happens before every chunk) and the join (every
// chunk happens before the loop returns) are told to it here; chunks are not ordered with
// each other, so races between chunks are still found. No code at all in other builds.
class ForkJoin {
public:
#ifdef ACCELLAB_TSAN
  void fork() { __tsan_release(&m_fork); }
  void enter() { __tsan_acquire(&m_fork); }
  void leave() { __tsan_release(&m_join); }
  void join() { __tsan_acquire(&m_join); }

private:
  char m_fork = 0, m_join = 0;
#else
  void fork() {}
  void enter() {}
  void leave() {}
  void join() {}
#endif
};

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
  ForkJoin sync;
  sync.fork();
  oneapi::tbb::parallel_for(
      oneapi::tbb::blocked_range<int>(0, chunks, 1),
      [&](const oneapi::tbb::blocked_range<int>& r) {
        sync.enter();
        for (int c = r.begin(); c != r.end(); ++c) {
          const ChunkRange cr = chunkRange(n, chunks, c);
          fn(c, cr.begin, cr.end);
        }
        sync.leave();
      },
      oneapi::tbb::simple_partitioner());
  sync.join();
}

// Plain parallel loop over [0, n) for work whose result does not depend on the split.
template <class Fn>
void parallelFor(std::ptrdiff_t n, std::ptrdiff_t grain, Fn&& fn) {
  if (n <= grain || currentConcurrency() == 1) {
    fn(std::ptrdiff_t{0}, n);
    return;
  }
  ForkJoin sync;
  sync.fork();
  oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::ptrdiff_t>(0, n, std::max<std::ptrdiff_t>(1, grain)),
                            [&](const oneapi::tbb::blocked_range<std::ptrdiff_t>& r) {
                              sync.enter();
                              fn(r.begin(), r.end());
                              sync.leave();
                            });
  sync.join();
}

}  // namespace core::util
