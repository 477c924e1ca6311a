// A fixed pool of std::thread workers that splits an index range into one contiguous chunk per
// thread and waits for all of them (a barrier per call); ParallelForBalanced starts from the same
// chunks and lets a thread that is done take the unclaimed units of the others. Used by the 2D FFT
// passes and the LES's pointwise loops, where every index writes its own outputs: results are
// bit-identical for any thread count and any assignment of units to threads because no value ever
// depends on which thread computed it (reductions stay serial, or are combined by the caller in a
// fixed order).
//
//   ThreadPool pool(4);
//   pool.ParallelFor(rows, /*grain=*/16, [&](size_t begin, size_t end, int worker) {
//     for (size_t r = begin; r < end; ++r) ...;   // worker in [0, pool.threads())
//   });
//
// A call costs about a microsecond, not a wake-up through the kernel: idle workers spin on an
// atomic generation counter for up to 100 µs before they block (std::atomic::wait), and the
// caller waits for the join on an atomic countdown the same way. A run of short ParallelFor calls
// (an LES step is a few dozen) therefore never goes through the kernel. A pool with more threads
// than the machine has hardware threads never spins (it would take the core from the thread it
// waits for). Besides the spin, only ParallelForBalanced's choice of thread per unit depends on
// timing.
#ifndef DASHI_CORE_REF_PARALLEL_THREAD_POOL_H_
#define DASHI_CORE_REF_PARALLEL_THREAD_POOL_H_

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

namespace dashi {

class ThreadPool {
 public:
  // `threads` >= 1 (values below are taken as 1): the calling thread plus threads − 1 workers.
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int threads() const { return threads_; }

  // Calls body(begin, end, worker) on contiguous chunks covering [0, n), chunk boundaries at
  // multiples of `grain` (>= 1), at most one chunk per thread (chunk w, on worker w, holds units
  // [w·u/T, (w+1)·u/T) of the u = ⌈n/grain⌉ units: a function of n, grain and T only), and
  // returns when all are done. The caller runs chunk 0. Not reentrant: one ParallelFor at a time
  // per pool, from one thread. `body` must not throw.
  void ParallelFor(size_t n, size_t grain,
                   const std::function<void(size_t begin, size_t end, int worker)>& body) const;

  // The same cover of [0, n) by units of `grain`, balanced at run time: every thread starts on
  // its ParallelFor chunk, one unit per body call, and a thread that has finished its own chunk
  // takes the unclaimed units of the others' from their ends (each unit is claimed once, by a
  // compare-and-swap on its chunk's range of unclaimed units). Which thread runs a unit, and how many calls a thread
  // gets, then depends on timing: use it only where every index writes its own outputs and
  // `worker` selects thread-local state, never a partial result combined later. It keeps a
  // section from waiting for its slowest core (on a shared virtual machine some cores run a
  // step 1.3–1.4× slower than others). With 2^31 units or more the units are made larger
  // (BalancedGrain), still multiples of `grain`.
  void ParallelForBalanced(
      size_t n, size_t grain,
      const std::function<void(size_t begin, size_t end, int worker)>& body) const;

 private:
  void WorkerLoop(int worker);
  // Publishes the job, runs the caller's share and waits for the join.
  void Run(size_t n, size_t grain, bool balanced,
           const std::function<void(size_t, size_t, int)>& body) const;
  // Worker w's share of the current job: its chunk, or (balanced) its chunk then the others'
  // unclaimed units.
  void RunShare(int w) const;
  // [begin, end) of worker w's chunk for the current job.
  void Chunk(size_t w, size_t* begin, size_t* end) const;

  int threads_;
  std::vector<std::thread> workers_;
  // The job, written by the caller before it bumps generation_ (release) and read by the workers
  // after they see the new generation (acquire).
  mutable const std::function<void(size_t, size_t, int)>* body_ = nullptr;
  mutable size_t n_ = 0, grain_ = 1, units_ = 0;
  mutable bool balanced_ = false;
  // Balanced jobs: the unclaimed units [lo, hi) of each worker's chunk as lo | hi << 32, one
  // cache line each.
  struct alignas(64) UnitCounter {
    std::atomic<uint64_t> range{0};
  };
  std::unique_ptr<UnitCounter[]> next_unit_;
  std::chrono::nanoseconds spin_;  // how long a waiting thread spins before it blocks
  // Bumped once per job (and once to stop); workers wait for it to change. On a cache line of
  // its own, as is pending_: the workers' countdown must not disturb the line they spin on.
  alignas(64) mutable std::atomic<uint32_t> generation_{0};
  // Workers blocked in generation_.wait(): the caller notifies only when there are some.
  mutable std::atomic<int> sleepers_{0};
  std::atomic<bool> stop_{false};
  // Workers that have not finished the current job; the caller waits for 0.
  alignas(64) mutable std::atomic<int> pending_{0};
  // Whether the caller sleeps in pending_.wait(): the last worker to finish notifies it then.
  mutable std::atomic<bool> caller_sleeping_{false};
};

// body(begin, end, worker) over [0, n): through `pool` when it is non-null and has more than one
// thread, else as one call body(0, n, 0).
void ParallelFor(const ThreadPool* pool, size_t n, size_t grain,
                 const std::function<void(size_t begin, size_t end, int worker)>& body);

// The same with ThreadPool::ParallelForBalanced (one call body(0, n, 0) without a pool).
void ParallelForBalanced(const ThreadPool* pool, size_t n, size_t grain,
                         const std::function<void(size_t begin, size_t end, int worker)>& body);

// The unit size ParallelForBalanced uses for n indices in units of `grain` (>= 1): `grain`, or
// the smallest multiple of it that leaves fewer than 2^31 units (its packed ranges hold 32-bit
// unit indices).
size_t BalancedGrain(size_t n, size_t grain);

}  // namespace dashi

#endif  // DASHI_CORE_REF_PARALLEL_THREAD_POOL_H_
