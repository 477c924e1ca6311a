// ThreadPool: every index of [0, n) is visited exactly once, by chunks on multiples of the grain,
// for thread counts 1..5 and sizes where splitting bugs live (0, 1, grain ± 1, k·grain + r);
// the pool survives many calls in a row (no lost wake-up, no deadlock), including tens of
// thousands of tiny calls with pauses that let the workers fall asleep between some of them, and
// a chained computation over those calls gives the same bits for 1..8 threads. The same for
// ParallelForBalanced, whose units a thread that has finished its own chunk takes from a slow one.
#include "core_ref/parallel/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace dashi {
namespace {

class ThreadPoolModes : public ::testing::TestWithParam<bool> {};  // param: balanced

void RunMode(const ThreadPool& pool, bool balanced, size_t n, size_t grain,
             const std::function<void(size_t, size_t, int)>& body) {
  if (balanced) {
    pool.ParallelForBalanced(n, grain, body);
  } else {
    pool.ParallelFor(n, grain, body);
  }
}

TEST_P(ThreadPoolModes, CoversEveryIndexOnceOnGrainBoundaries) {
  const bool balanced = GetParam();
  for (int threads = 1; threads <= 5; ++threads) {
    ThreadPool pool(threads);
    for (size_t grain : {size_t{1}, size_t{8}, size_t{16}}) {
      for (size_t n : {size_t{0}, size_t{1}, grain - 1 + (grain == 1), grain, grain + 1,
                       3 * grain + 5, size_t{1000}}) {
        SCOPED_TRACE("threads " + std::to_string(threads) + " grain " + std::to_string(grain) +
                     " n " + std::to_string(n));
        std::vector<std::atomic<int>> hits(n);
        std::atomic<int> bad_boundary{0}, bad_worker{0};
        RunMode(pool, balanced, n, grain, [&](size_t b, size_t e, int w) {
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
std::vector<double> ChainedTinyJobs(int threads, int calls, bool balanced) {
  ThreadPool pool(threads);
  const size_t n = 67;
  std::vector<double> a(n), b(n);
  for (size_t i = 0; i < n; ++i) a[i] = 1.0 + static_cast<double>(i) / 7.0;
  std::atomic<int64_t> visits{0};
  for (int call = 0; call < calls; ++call) {
    const size_t grain = 1 + static_cast<size_t>(call % 5);
    const double c = 1.0 + static_cast<double>(call % 13) * 1e-3;
    const auto body = [&](size_t begin, size_t end, int) {
      for (size_t i = begin; i < end; ++i) {
        // Reads neighbours written by other chunks in the previous call.
        b[i] = std::sqrt(a[i] * c + a[(i + 1) % n] * 0.25 + a[(i + n - 1) % n] * 0.125);
      }
      visits += static_cast<int64_t>(end - begin);
    };
    if (balanced) {
      ParallelForBalanced(&pool, n, grain, body);
    } else {
      ParallelFor(&pool, n, grain, body);
    }
    a.swap(b);
    if (call % 1000 == 999) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(visits.load(), static_cast<int64_t>(calls) * static_cast<int64_t>(n));
  return a;
}

TEST_P(ThreadPoolModes, StressManyTinyCallsSameBitsFor1To8Threads) {
  constexpr int kCalls = 20000;
  const std::vector<double> one = ChainedTinyJobs(1, kCalls, GetParam());
  for (int threads = 2; threads <= 8; ++threads) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    const std::vector<double> got = ChainedTinyJobs(threads, kCalls, GetParam());
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

// The worker start hook runs once on each worker (ids 1 .. T − 1, on that worker's own thread)
// of pools created after it is set, before the worker runs any job, and never once unset.
std::atomic<int> started_mask{0};
std::atomic<int> started_calls{0};
thread_local bool ran_a_unit = false;
void RecordStart(int worker) {
  if (ran_a_unit) started_mask.fetch_or(1 << 30);  // a job ran on this thread before the hook
  started_mask.fetch_or(1 << worker);
  started_calls.fetch_add(1);
}

TEST(ThreadPool, WorkerStartHookRunsOncePerWorkerBeforeItsJobs) {
  ThreadPool::SetWorkerStartHook(&RecordStart);
  {
    ThreadPool pool(5);
    for (int call = 0; call < 20; ++call) {
      pool.ParallelForBalanced(64, 1, [&](size_t, size_t, int) { ran_a_unit = true; });
    }
  }  // joined: every worker has started
  EXPECT_EQ(started_mask.load(), 0b11110);
  EXPECT_EQ(started_calls.load(), 4);
  ThreadPool::SetWorkerStartHook(nullptr);
  {
    ThreadPool pool(3);
    pool.ParallelFor(8, 1, [&](size_t, size_t, int) {});
  }
  EXPECT_EQ(started_calls.load(), 4);
}

std::vector<std::pair<size_t, int64_t>> timed_sections;
void RecordSection(size_t units, int64_t ns) { timed_sections.emplace_back(units, ns); }

// The section timing hook sees every section of the free functions, with or without a pool, with
// its unit count and a wall time at least as long as the body's; unset, it sees nothing.
TEST(ThreadPool, SectionTimingHookSeesEverySectionWithItsUnits) {
  SetSectionTimingHook(&RecordSection);
  ThreadPool pool(3);
  const auto sleep_body = [](size_t, size_t, int) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  };
  ParallelFor(nullptr, 10, 4, sleep_body);        // one call, no pool: ⌈10/4⌉ = 3 units
  ParallelForBalanced(&pool, 17, 1, sleep_body);  // 17 units
  ParallelFor(&pool, 0, 8, sleep_body);           // empty: 0 units, still a section
  SetSectionTimingHook(nullptr);
  ParallelFor(&pool, 8, 1, sleep_body);
  ASSERT_EQ(timed_sections.size(), 3u);
  EXPECT_EQ(timed_sections[0].first, 3u);
  EXPECT_EQ(timed_sections[1].first, 17u);
  EXPECT_EQ(timed_sections[2].first, 0u);
  EXPECT_GE(timed_sections[0].second, 2'000'000);
  EXPECT_GE(timed_sections[1].second, 2'000'000);
  timed_sections.clear();
}

INSTANTIATE_TEST_SUITE_P(StaticAndBalanced, ThreadPoolModes, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? std::string("Balanced") : std::string("Static");
                         });

// A worker that stalls on its first unit does not hold back the rest of its chunk: the others
// take those units. Worker 1 blocks in its first unit of chunk 1 until another thread has run a
// unit of chunk 1 (or 30 s pass: then the balancing is broken and the test fails); if worker 1
// wakes so late that the others have already taken its chunk, it never blocks.
TEST(ThreadPool, BalancedTakesTheUnitsOfAStalledWorker) {
  constexpr int kThreads = 4;
  constexpr size_t kUnits = 40;  // chunk 1 is units [10, 20)
  ThreadPool pool(kThreads);
  std::vector<int> ran_on(kUnits, -1);
  std::atomic<int> chunk1_by_others{0};
  std::atomic<bool> timed_out{false};
  pool.ParallelForBalanced(kUnits, 1, [&](size_t b, size_t e, int w) {
    ASSERT_EQ(e, b + 1);
    ran_on[b] = w;
    const bool in_chunk1 = b >= 10 && b < 20;
    if (in_chunk1 && w != 1) ++chunk1_by_others;
    if (in_chunk1 && w == 1) {
      const auto start = std::chrono::steady_clock::now();
      while (chunk1_by_others.load() == 0) {
        if (std::chrono::steady_clock::now() - start > std::chrono::seconds(30)) {
          timed_out = true;
          return;
        }
        std::this_thread::sleep_for(std::chrono::microseconds(100));
      }
    }
  });
  EXPECT_FALSE(timed_out.load()) << "no thread took a unit of the stalled worker's chunk";
  EXPECT_GE(chunk1_by_others.load(), 1);
  for (size_t u = 0; u < kUnits; ++u) EXPECT_GE(ran_on[u], 0) << "unit " << u << " never ran";
  // The static split never moves a unit: chunk 1 runs on worker 1 only.
  pool.ParallelFor(kUnits, 1, [&](size_t b, size_t e, int w) {
    for (size_t u = b; u < e; ++u) ran_on[u] = w;
  });
  for (size_t u = 10; u < 20; ++u) EXPECT_EQ(ran_on[u], 1) << "unit " << u;
}

// Units past 2^20 do not fit the packed ranges: the grain grows to the smallest multiple of the
// caller's grain that leaves fewer than 2^20 units, and not before.
TEST(ThreadPool, BalancedGrainKeepsUnitsBelowTwoToThe20) {
  constexpr size_t k20 = size_t{1} << 20;
  EXPECT_EQ(BalancedGrain(0, 0), 1u);
  EXPECT_EQ(BalancedGrain(1000, 16), 16u);
  EXPECT_EQ(BalancedGrain(k20 - 1, 1), 1u);
  EXPECT_EQ(BalancedGrain(k20, 1), 2u);
  EXPECT_EQ(BalancedGrain(k20 + 1, 1), 2u);
  EXPECT_EQ(BalancedGrain((k20 - 1) * 3, 3), 3u);
  for (size_t n : {k20, k20 + 1, (size_t{1} << 33) + 5, (size_t{1} << 40) - 1}) {
    for (size_t grain : {size_t{1}, size_t{3}, size_t{8}}) {
      const size_t g = BalancedGrain(n, grain);
      EXPECT_EQ(g % grain, 0u) << n << " " << grain;
      const size_t units = (n + g - 1) / g;
      EXPECT_LT(units, k20) << n << " " << grain;
      // The next smaller multiple of grain would leave 2^20 units or more (unless it is grain).
      if (g > grain) {
        EXPECT_GE((n + (g - grain) - 1) / (g - grain), k20) << n << " " << grain;
      }
    }
  }
  // A job of more than 2^20 units runs every index once.
  ThreadPool pool(3);
  const size_t n = k20 + 77;
  std::vector<uint8_t> hits(n, 0);
  pool.ParallelForBalanced(n, 1, [&](size_t b, size_t e, int) {
    for (size_t i = b; i < e; ++i) ++hits[i];
  });
  size_t wrong = 0;
  for (size_t i = 0; i < n; ++i) wrong += hits[i] != 1;
  EXPECT_EQ(wrong, 0u);
}

// Holds worker 1 at the pool's job hook (before it reads its job, or after) until released,
// as a host that takes the worker's vCPU away would; gives up after 30 s (timed_out: some join
// waited for the held worker).
struct HeldWorker {
  std::atomic<bool> release{false}, timed_out{false};
  std::atomic<int> holds{0};

  void HoldAt(ThreadPool& pool, bool after_reading_the_job) {
    pool.SetJobHookForTesting([this, after_reading_the_job](int w, uint32_t, bool job_read) {
      if (w != 1 || job_read != after_reading_the_job || release.load()) return;
      ++holds;
      const auto start = std::chrono::steady_clock::now();
      while (!release.load()) {
        if (std::chrono::steady_clock::now() - start > std::chrono::seconds(30)) {
          timed_out = true;
          return;
        }
        std::this_thread::sleep_for(std::chrono::microseconds(50));
      }
    });
  }
  // Waits (up to 30 s) until worker 1 is held; true if it is.
  bool WaitUntilHeld() const {
    const auto start = std::chrono::steady_clock::now();
    while (holds.load() == 0 &&
           std::chrono::steady_clock::now() - start < std::chrono::seconds(30)) {
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    return holds.load() == 1;
  }
};

// A worker held back before it reads its job (as when the host takes its vCPU away while it is
// idle) does not hold back the join of balanced jobs: once worker 1 is held (woken for job 0),
// the caller finishes 49 more jobs while it waits (if a join waited for it, job 0 or 1 would wait
// until the hold gives up after 30 s, and the test fails), every index runs once per job, and
// when worker 1 is let go it runs nothing of the jobs it missed — the one it was woken for has
// left its slot long ago — and then takes part in the next jobs, static ones (which need every
// worker) included.
TEST(ThreadPool, BalancedJoinDoesNotWaitForALateWorker) {
  constexpr int kThreads = 4;
  constexpr int kJobs = 50;
  constexpr size_t kN = 64;
  ThreadPool pool(kThreads);
  HeldWorker held;
  held.HoldAt(pool, /*after_reading_the_job=*/false);
  // hits[j][i]: how often job j ran index i; a late call of a finished job's body shows as a 2.
  std::vector<std::vector<std::atomic<int>>> hits(kJobs + 10);
  for (auto& h : hits) h = std::vector<std::atomic<int>>(kN);
  std::atomic<int> units_on_worker1{0};
  auto job = [&](int j) {
    pool.ParallelForBalanced(kN, 1, [&hits, &units_on_worker1, j](size_t b, size_t e, int w) {
      if (w == 1) ++units_on_worker1;
      for (size_t i = b; i < e; ++i) ++hits[static_cast<size_t>(j)][i];
    });
  };
  // Job 0, then wait until worker 1, woken for it, is held (it may wake after the job is done).
  job(0);
  ASSERT_TRUE(held.WaitUntilHeld()) << "worker 1 never woke for job 0";
  for (int j = 1; j < kJobs; ++j) job(j);
  EXPECT_FALSE(held.timed_out.load()) << "a balanced join waited for the held worker";
  EXPECT_EQ(held.holds.load(), 1);
  EXPECT_EQ(units_on_worker1.load(), 0) << "the held worker ran units while held";
  held.release = true;
  // A static job: returns only after worker 1 has come back, run chunk 1 and checked in.
  std::vector<int> ran_on(kThreads, -1);
  pool.ParallelFor(kThreads, 1, [&](size_t b, size_t e, int w) {
    for (size_t u = b; u < e; ++u) ran_on[u] = w;
  });
  for (int u = 0; u < kThreads; ++u) EXPECT_EQ(ran_on[static_cast<size_t>(u)], u) << u;
  for (int j = kJobs; j < kJobs + 10; ++j) job(j);
  for (size_t j = 0; j < hits.size(); ++j) {
    for (size_t i = 0; i < kN; ++i) {
      ASSERT_EQ(hits[j][i].load(), 1) << "job " << j << " index " << i;
    }
  }
}

// A worker held back *after* it has read its job (job 0) — between reading a job and claiming
// its units — claims nothing of it when it runs on, even while a later job is running with units
// left: the ranges it finds carry the later job's tag. Job 0's units are taken by the others and
// 48 more jobs run while worker 1 waits; job 49 lets it go from inside its first unit and keeps
// running (each unit sleeps 200 µs). Every job's body stays alive, so a unit of job 49 run with
// job 0's body would show as a second hit in job 0 (or a missing one in job 49).
TEST(ThreadPool, AWorkerLateAfterReadingItsJobClaimsNothingOfALaterOne) {
  constexpr int kThreads = 4;
  constexpr int kJobs = 50;
  constexpr size_t kN = 64;
  ThreadPool pool(kThreads);
  HeldWorker held;
  held.HoldAt(pool, /*after_reading_the_job=*/true);
  std::vector<std::vector<std::atomic<int>>> hits(kJobs);
  for (auto& h : hits) h = std::vector<std::atomic<int>>(kN);
  std::vector<std::function<void(size_t, size_t, int)>> bodies;
  for (int j = 0; j < kJobs; ++j) {
    bodies.emplace_back([&, j](size_t b, size_t e, int) {
      if (j == kJobs - 1) {
        held.release = true;
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
      for (size_t i = b; i < e; ++i) ++hits[static_cast<size_t>(j)][i];
    });
  }
  pool.ParallelForBalanced(kN, 1, bodies[0]);
  ASSERT_TRUE(held.WaitUntilHeld()) << "worker 1 never read job 0";
  for (int j = 1; j < kJobs; ++j) pool.ParallelForBalanced(kN, 1, bodies[static_cast<size_t>(j)]);
  EXPECT_FALSE(held.timed_out.load()) << "a balanced join waited for the held worker";
  // A static job: worker 1 has come back and checked in before it returns.
  pool.ParallelFor(kThreads, 1, [](size_t, size_t, int) {});
  for (size_t j = 0; j < hits.size(); ++j) {
    for (size_t i = 0; i < kN; ++i) {
      ASSERT_EQ(hits[j][i].load(), 1) << "job " << j << " index " << i;
    }
  }
}

}  // namespace
}  // namespace dashi
