// ThreadPool: every index of [0, n) is visited exactly once, by chunks on multiples of the grain,
// for thread counts 1..5 and sizes where splitting bugs live (0, 1, grain ± 1, k·grain + r);
// the pool survives many calls in a row (no lost wake-up, no deadlock), including tens of
// thousands of tiny calls with pauses that let the workers fall asleep between some of them, and
// a chained computation over those calls gives the same bits for 1..8 threads.
#include "core_ref/parallel/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <thread>
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

// Many tiny jobs in a row, each reading the previous job's output (a missed or early join would
// read a half-written array), with a short pause every 1000 calls (the workers go past their
// spin and must be woken). The final array's bits must equal the one-thread run's.
std::vector<double> ChainedTinyJobs(int threads, int calls) {
  ThreadPool pool(threads);
  const size_t n = 67;
  std::vector<double> a(n), b(n);
  for (size_t i = 0; i < n; ++i) a[i] = 1.0 + static_cast<double>(i) / 7.0;
  std::atomic<int64_t> visits{0};
  for (int call = 0; call < calls; ++call) {
    const size_t grain = 1 + static_cast<size_t>(call % 5);
    const double c = 1.0 + static_cast<double>(call % 13) * 1e-3;
    ParallelFor(&pool, n, grain, [&](size_t begin, size_t end, int) {
      for (size_t i = begin; i < end; ++i) {
        // Reads neighbours written by other chunks in the previous call.
        b[i] = std::sqrt(a[i] * c + a[(i + 1) % n] * 0.25 + a[(i + n - 1) % n] * 0.125);
      }
      visits += static_cast<int64_t>(end - begin);
    });
    a.swap(b);
    if (call % 1000 == 999) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(visits.load(), static_cast<int64_t>(calls) * static_cast<int64_t>(n));
  return a;
}

TEST(ThreadPool, StressManyTinyCallsSameBitsFor1To8Threads) {
  constexpr int kCalls = 20000;
  const std::vector<double> one = ChainedTinyJobs(1, kCalls);
  for (int threads = 2; threads <= 8; ++threads) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    const std::vector<double> got = ChainedTinyJobs(threads, kCalls);
    ASSERT_EQ(got.size(), one.size());
    EXPECT_EQ(std::memcmp(got.data(), one.data(), one.size() * sizeof(double)), 0);
  }
}

// Pools made and destroyed in quick succession, some never used, some destroyed while their
// workers are asleep: no hang.
TEST(ThreadPool, CreateAndDestroyRepeatedly) {
  for (int round = 0; round < 50; ++round) {
    ThreadPool pool(1 + round % 6);
    if (round % 3 == 0) continue;
    std::atomic<int> count{0};
    pool.ParallelFor(100, 3, [&](size_t b, size_t e, int) { count += static_cast<int>(e - b); });
    EXPECT_EQ(count.load(), 100);
    if (round % 3 == 2) std::this_thread::sleep_for(std::chrono::milliseconds(3));
  }
}

}  // namespace
}  // namespace dashi
