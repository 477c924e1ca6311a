#include "core_ref/parallel/thread_pool.h"

#include <algorithm>
#include <chrono>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace dashi {
namespace {

// A hint to the core that this is a spin-wait loop (frees pipeline resources for a sibling
// hyperthread and avoids a memory-order mis-speculation on exit).
inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

// Waits until pred() holds: spins (checking every iteration) for up to `spin`, then calls
// block() repeatedly (it returns once pred() may have changed). The spin covers the gap between
// the short parallel sections of one LES step without a trip through the kernel; blocking keeps
// an idle pool, or one with more threads than cores (spin 0), from burning the machine.
template <typename Pred, typename Block>
void WaitUntil(std::chrono::nanoseconds spin, Pred pred, Block block) {
  using Clock = std::chrono::steady_clock;
  if (pred()) return;
  if (spin.count() > 0) {
    const Clock::time_point start = Clock::now();
    do {
      for (int k = 0; k < 64; ++k) {
        if (pred()) return;
        CpuRelax();
      }
    } while (Clock::now() - start < spin);
  }
  while (!pred()) block();
}

constexpr std::chrono::nanoseconds kSpin = std::chrono::microseconds(100);

constexpr uint64_t kUnitBits = 20;
constexpr uint64_t kUnitMask = (uint64_t{1} << kUnitBits) - 1;
constexpr uint64_t kTagShift = 2 * kUnitBits;
constexpr uint64_t kTagMask = (uint64_t{1} << (64 - kTagShift)) - 1;  // 24 bits of generation

inline uint64_t PackRange(uint64_t lo, uint64_t hi, uint32_t generation) {
  return lo | (hi << kUnitBits) | ((generation & kTagMask) << kTagShift);
}

std::atomic<void (*)(int)> worker_start_hook{nullptr};

}  // namespace

void ThreadPool::SetWorkerStartHook(void (*hook)(int worker)) {
  worker_start_hook.store(hook, std::memory_order_release);
}

ThreadPool::ThreadPool(int threads) : threads_(std::max(threads, 1)) {
  // Spinning only pays when every thread has a core of its own.
  const unsigned cores = std::thread::hardware_concurrency();
  spin_ = (cores == 0 || static_cast<unsigned>(threads_) <= cores) ? kSpin
                                                                   : std::chrono::nanoseconds(0);
  next_unit_ = std::make_unique<UnitCounter[]>(static_cast<size_t>(threads_));
  for (int w = 1; w < threads_; ++w) workers_.emplace_back([this, w] { WorkerLoop(w); });
}

ThreadPool::~ThreadPool() {
  stop_.store(true, std::memory_order_relaxed);
  generation_.fetch_add(1, std::memory_order_seq_cst);
  generation_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void ThreadPool::Chunk(const Job& job, size_t w, size_t* begin, size_t* end) const {
  // Chunk w holds units [w·units/t, (w+1)·units/t): contiguous, sizes differing by at most one.
  const size_t t = static_cast<size_t>(threads_);
  *begin = std::min(job.n, (w * job.units / t) * job.grain);
  *end = std::min(job.n, ((w + 1) * job.units / t) * job.grain);
}

bool ThreadPool::ReadJob(uint32_t g, Job* job) const {
  if (g == kWriting) return false;  // a generation published without a job (see Run)
  const JobSlot& slot = slots_[g & 1];
  if (slot.gen.load(std::memory_order_acquire) != g) return false;
  job->body = slot.body.load(std::memory_order_relaxed);
  job->n = slot.n.load(std::memory_order_relaxed);
  job->grain = slot.grain.load(std::memory_order_relaxed);
  job->units = slot.units.load(std::memory_order_relaxed);
  job->balanced = slot.balanced.load(std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_acquire);
  return slot.gen.load(std::memory_order_relaxed) == g;
}

void ThreadPool::WorkerLoop(int worker) {
  if (void (*hook)(int) = worker_start_hook.load(std::memory_order_acquire)) hook(worker);
  uint32_t seen = 0;
  while (true) {
    WaitUntil(spin_, [&] { return generation_.load(std::memory_order_acquire) != seen; },
              [&] {
                // Registered as a sleeper before the last check: the caller's seq_cst bump and
                // sleepers_ load then either see this sleeper (and notify) or this check sees
                // the bump. atomic::wait itself returns as soon as the value differs.
                sleepers_.fetch_add(1, std::memory_order_seq_cst);
                if (generation_.load(std::memory_order_seq_cst) == seen) generation_.wait(seen);
                sleepers_.fetch_sub(1, std::memory_order_relaxed);
              });
    seen = generation_.load(std::memory_order_acquire);
    if (stop_.load(std::memory_order_relaxed)) return;
    if (job_hook_for_testing_) job_hook_for_testing_(worker, seen, /*job_read=*/false);
    Job job;
    // A job no longer in its slot has finished without this worker (only balanced jobs can:
    // a static one waits for every worker).
    if (!ReadJob(seen, &job)) continue;
    if (job_hook_for_testing_) job_hook_for_testing_(worker, seen, /*job_read=*/true);
    if (job.balanced) {
      RunBalancedShare(worker, seen, job);
      continue;
    }
    RunChunk(worker, job);
    // The last one to finish wakes the caller if it went to sleep (seq_cst: either this load
    // sees caller_sleeping_ or the caller's check after setting it sees pending_ == 0).
    if (pending_.fetch_sub(1, std::memory_order_seq_cst) == 1 &&
        caller_sleeping_.load(std::memory_order_seq_cst)) {
      pending_.notify_all();
    }
  }
}

void ThreadPool::RunChunk(int w, const Job& job) const {
  size_t begin, end;
  Chunk(job, static_cast<size_t>(w), &begin, &end);
  if (begin < end) (*job.body)(begin, end, w);
}

void ThreadPool::RunBalancedShare(int w, uint32_t g, const Job& job) const {
  // Own chunk first, from its front; then the others' in turn, each from its back, one unit at a
  // time (the owner keeps walking forward through memory, and a thief meets it only at the end).
  // A claim succeeds only while the range still carries job g's tag: a worker that arrives after
  // job g has finished (its ranges now tagged with a later job) claims nothing. A successful
  // claim means job g is still running (that unit is not done), so `job` is job g's.
  const size_t t = static_cast<size_t>(threads_);
  const uint64_t tag = g & kTagMask;
  const uint32_t units = static_cast<uint32_t>(job.units);
  for (size_t k = 0; k < t; ++k) {
    const size_t v = (static_cast<size_t>(w) + k) % t;
    std::atomic<uint64_t>& range = next_unit_[v].range;
    uint64_t r = range.load(std::memory_order_relaxed);
    while (true) {
      if ((r >> kTagShift) != tag) break;
      const uint64_t lo = r & kUnitMask, hi = (r >> kUnitBits) & kUnitMask;
      if (lo >= hi) break;
      const uint64_t claimed = k == 0 ? lo : hi - 1;
      const uint64_t next = k == 0 ? PackRange(lo + 1, hi, g) : PackRange(lo, hi - 1, g);
      if (!range.compare_exchange_weak(r, next, std::memory_order_relaxed)) continue;
      const size_t u = static_cast<size_t>(claimed);
      (*job.body)(u * job.grain, std::min(job.n, (u + 1) * job.grain), w);
      // A read-modify-write (seq_cst, so also release): the caller's acquire load of the last
      // count sees every unit's writes. The unit that completes the job wakes the caller if it
      // went to sleep (seq_cst, as for pending_).
      if (done_units_.fetch_add(1, std::memory_order_seq_cst) + 1 == units &&
          caller_sleeping_.load(std::memory_order_seq_cst)) {
        done_units_.notify_all();
      }
      r = range.load(std::memory_order_relaxed);
    }
  }
}

void ThreadPool::Run(size_t n, size_t grain, bool balanced,
                     const std::function<void(size_t, size_t, int)>& body) const {
  grain = balanced ? BalancedGrain(n, grain) : std::max<size_t>(grain, 1);
  const size_t units = (n + grain - 1) / grain;
  if (threads_ == 1 || units <= 1) {
    if (n > 0) body(0, n, 0);
    return;
  }
  // Job g goes to slot g mod 2. The previous job in that slot (g − 2) has finished, and so has
  // g − 1, so no worker can claim a unit through it any more; a late worker may still read it,
  // which the slot's generation (kWriting meanwhile) tells it.
  uint32_t g = generation_.load(std::memory_order_relaxed) + 1;
  if (g == kWriting) {
    // kWriting marks a slot being written, so no job may carry it: publish that generation
    // without a job (a worker that sees it finds no slot holding it and waits for the next).
    generation_.fetch_add(1, std::memory_order_seq_cst);
    ++g;
  }
  JobSlot& slot = slots_[g & 1];
  slot.gen.store(kWriting, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  slot.body.store(&body, std::memory_order_relaxed);
  slot.n.store(n, std::memory_order_relaxed);
  slot.grain.store(grain, std::memory_order_relaxed);
  slot.units.store(units, std::memory_order_relaxed);
  slot.balanced.store(balanced, std::memory_order_relaxed);
  slot.gen.store(g, std::memory_order_release);
  if (balanced) {
    const size_t t = static_cast<size_t>(threads_);
    for (size_t w = 0; w < t; ++w) {
      next_unit_[w].range.store(PackRange(w * units / t, (w + 1) * units / t, g),
                                std::memory_order_relaxed);
    }
    done_units_.store(0, std::memory_order_relaxed);
  } else {
    pending_.store(threads_ - 1, std::memory_order_relaxed);
  }
  generation_.fetch_add(1, std::memory_order_seq_cst);  // publishes job g (release)
  if (sleepers_.load(std::memory_order_seq_cst) > 0) generation_.notify_all();
  const Job job{&body, n, grain, units, balanced};
  if (balanced) {
    RunBalancedShare(0, g, job);
    const uint32_t all = static_cast<uint32_t>(units);
    WaitUntil(spin_, [&] { return done_units_.load(std::memory_order_acquire) == all; }, [&] {
      caller_sleeping_.store(true, std::memory_order_seq_cst);
      const uint32_t done = done_units_.load(std::memory_order_seq_cst);
      if (done != all) done_units_.wait(done);  // returns at once if a unit finished since
      caller_sleeping_.store(false, std::memory_order_relaxed);
    });
    return;
  }
  RunChunk(0, job);
  WaitUntil(spin_, [&] { return pending_.load(std::memory_order_acquire) == 0; }, [&] {
    caller_sleeping_.store(true, std::memory_order_seq_cst);
    const int left = pending_.load(std::memory_order_seq_cst);
    if (left != 0) pending_.wait(left);  // returns at once if a worker has finished since
    caller_sleeping_.store(false, std::memory_order_relaxed);
  });
}

void ThreadPool::ParallelFor(size_t n, size_t grain,
                             const std::function<void(size_t, size_t, int)>& body) const {
  Run(n, grain, /*balanced=*/false, body);
}

void ThreadPool::ParallelForBalanced(size_t n, size_t grain,
                                     const std::function<void(size_t, size_t, int)>& body) const {
  Run(n, grain, /*balanced=*/true, body);
}

size_t BalancedGrain(size_t n, size_t grain) {
  grain = std::max<size_t>(grain, 1);
  const size_t units = n / grain + (n % grain != 0);
  constexpr size_t kMaxUnits = (size_t{1} << kUnitBits) - 1;
  // The smallest factor f with ⌈units / f⌉ <= kMaxUnits, i.e. f = ⌈units / kMaxUnits⌉ (1 below).
  const size_t factor = units <= kMaxUnits ? 1 : units / kMaxUnits + (units % kMaxUnits != 0);
  return grain * factor;
}

namespace {

std::atomic<void (*)(size_t, int64_t)> section_timing_hook{nullptr};

void DispatchUntimed(const ThreadPool* pool, size_t n, size_t grain, bool balanced,
                     const std::function<void(size_t, size_t, int)>& body) {
  if (pool == nullptr || pool->threads() <= 1) {
    if (n > 0) body(0, n, 0);
  } else if (balanced) {
    pool->ParallelForBalanced(n, grain, body);
  } else {
    pool->ParallelFor(n, grain, body);
  }
}

void Dispatch(const ThreadPool* pool, size_t n, size_t grain, bool balanced,
              const std::function<void(size_t, size_t, int)>& body) {
  void (*hook)(size_t, int64_t) = section_timing_hook.load(std::memory_order_relaxed);
  if (hook == nullptr) {
    DispatchUntimed(pool, n, grain, balanced, body);
    return;
  }
  const auto start = std::chrono::steady_clock::now();
  DispatchUntimed(pool, n, grain, balanced, body);
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::steady_clock::now() - start)
                      .count();
  const size_t g = std::max<size_t>(grain, 1);
  hook(n / g + (n % g != 0), static_cast<int64_t>(ns));
}

}  // namespace

void SetSectionTimingHook(void (*hook)(size_t units, int64_t nanoseconds)) {
  section_timing_hook.store(hook, std::memory_order_relaxed);
}

void ParallelFor(const ThreadPool* pool, size_t n, size_t grain,
                 const std::function<void(size_t, size_t, int)>& body) {
  Dispatch(pool, n, grain, /*balanced=*/false, body);
}

void ParallelForBalanced(const ThreadPool* pool, size_t n, size_t grain,
                         const std::function<void(size_t, size_t, int)>& body) {
  Dispatch(pool, n, grain, /*balanced=*/true, body);
}

}  // namespace dashi
