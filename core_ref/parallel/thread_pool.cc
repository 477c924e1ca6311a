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

}  // namespace

ThreadPool::ThreadPool(int threads) : threads_(std::max(threads, 1)) {
  // Spinning only pays when every thread has a core of its own.
  const unsigned cores = std::thread::hardware_concurrency();
  spin_ = (cores == 0 || static_cast<unsigned>(threads_) <= cores) ? kSpin
                                                                   : std::chrono::nanoseconds(0);
  for (int w = 1; w < threads_; ++w) workers_.emplace_back([this, w] { WorkerLoop(w); });
}

ThreadPool::~ThreadPool() {
  stop_.store(true, std::memory_order_relaxed);
  generation_.fetch_add(1, std::memory_order_seq_cst);
  generation_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void ThreadPool::Chunk(size_t w, size_t* begin, size_t* end) const {
  // Chunk w holds units [w·units/t, (w+1)·units/t): contiguous, sizes differing by at most one.
  const size_t t = static_cast<size_t>(threads_);
  *begin = std::min(n_, (w * units_ / t) * grain_);
  *end = std::min(n_, ((w + 1) * units_ / t) * grain_);
}

void ThreadPool::WorkerLoop(int worker) {
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
    size_t begin, end;
    Chunk(static_cast<size_t>(worker), &begin, &end);
    if (begin < end) (*body_)(begin, end, worker);
    // The last one to finish wakes the caller if it went to sleep (seq_cst: either this load
    // sees caller_sleeping_ or the caller's check after setting it sees pending_ == 0).
    if (pending_.fetch_sub(1, std::memory_order_seq_cst) == 1 &&
        caller_sleeping_.load(std::memory_order_seq_cst)) {
      pending_.notify_all();
    }
  }
}

void ThreadPool::ParallelFor(size_t n, size_t grain,
                             const std::function<void(size_t, size_t, int)>& body) const {
  grain = std::max<size_t>(grain, 1);
  const size_t units = (n + grain - 1) / grain;
  if (threads_ == 1 || units <= 1) {
    if (n > 0) body(0, n, 0);
    return;
  }
  // Every worker takes part in every job (an empty chunk included), so that none can still be
  // reading the job's fields when the next one is written.
  body_ = &body;
  n_ = n;
  grain_ = grain;
  units_ = units;
  pending_.store(threads_ - 1, std::memory_order_relaxed);
  generation_.fetch_add(1, std::memory_order_seq_cst);  // publishes the job (release)
  if (sleepers_.load(std::memory_order_seq_cst) > 0) generation_.notify_all();
  size_t begin, end;
  Chunk(0, &begin, &end);
  if (begin < end) body(begin, end, 0);
  WaitUntil(spin_, [&] { return pending_.load(std::memory_order_acquire) == 0; }, [&] {
    caller_sleeping_.store(true, std::memory_order_seq_cst);
    const int left = pending_.load(std::memory_order_seq_cst);
    if (left != 0) pending_.wait(left);  // returns at once if a worker has finished since
    caller_sleeping_.store(false, std::memory_order_relaxed);
  });
  body_ = nullptr;
}

void ParallelFor(const ThreadPool* pool, size_t n, size_t grain,
                 const std::function<void(size_t, size_t, int)>& body) {
  if (pool == nullptr || pool->threads() <= 1) {
    if (n > 0) body(0, n, 0);
    return;
  }
  pool->ParallelFor(n, grain, body);
}

}  // namespace dashi
