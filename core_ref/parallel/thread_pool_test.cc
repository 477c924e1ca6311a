// ThreadPool: every index of [0, n) is visited exactly once, by chunks on multiples of the grain,
// for thread counts 1..5 and sizes where splitting bugs live (0, 1, grain ± 1, k·grain + r);
// the pool survives many calls in a row (no lost wake-up, no deadlock).
#include "core_ref/parallel/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <vector>

namespace dashi {
namespace {

TEST(ThreadPool, CoversEveryIndexOnceOnGrainBoundaries) {
  for (int threads = 1; threads <= 5; ++threads) {
    ThreadPool pool(threads);
    for (size_t grain : {size_t{1}, size_t{8}, size_t{16}}) {
      for (size_t n : {size_t{0}, size_t{1}, grain - 1 + (grain == 1), grain, grain + 1,
                       3 * grain + 5, size_t{1000}}) {
        SCOPED_TRACE("threads " + std::to_string(threads) + " grain " + std::to_string(grain) +
                     " n " + std::to_string(n));
        std::vector<std::atomic<int>> hits(n);
        std::atomic<int> bad_boundary{0}, bad_worker{0};
        pool.ParallelFor(n, grain, [&](size_t b, size_t e, int w) {
          if (b % grain != 0 || (e % grain != 0 && e != n)) ++bad_boundary;
          if (w < 0 || w >= threads) ++bad_worker;
          for (size_t i = b; i < e; ++i) ++hits[i];
        });
        for (size_t i = 0; i < n; ++i) ASSERT_EQ(hits[i].load(), 1) << "index " << i;
        EXPECT_EQ(bad_boundary.load(), 0);
        EXPECT_EQ(bad_worker.load(), 0);
      }
    }
  }
}

TEST(ThreadPool, ManyCallsInARowAndTheNullPool) {
  ThreadPool pool(3);
  std::atomic<long> sum{0};
  for (int call = 0; call < 2000; ++call) {
    pool.ParallelFor(10, 1, [&](size_t b, size_t e, int) {
      for (size_t i = b; i < e; ++i) sum += static_cast<long>(i);
    });
  }
  EXPECT_EQ(sum.load(), 2000L * 45);
  int calls = 0;
  ParallelFor(nullptr, 7, 2, [&](size_t b, size_t e, int w) {
    ++calls;
    EXPECT_EQ(b, 0u);
    EXPECT_EQ(e, 7u);
    EXPECT_EQ(w, 0);
  });
  EXPECT_EQ(calls, 1);
}

}  // namespace
}  // namespace dashi
