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
// caller waits for the join on an atomic counter the same way. A run of short ParallelFor calls
// (an LES step is a few dozen) therefore never goes through the kernel. A pool with more threads
// than the machine has hardware threads never spins (it would take the core from the thread it
// waits for). Besides the spin, only ParallelForBalanced's choice of thread per unit depends on
// timing.
//
// Joins. ParallelFor returns when every worker has run its chunk. ParallelForBalanced returns
// when every *unit* is done, whether or not every worker has looked at the job: a worker whose
// core the host took away while it was idle (a shared virtual machine does this) holds nothing
// back, the others take its units. Such a late worker may then find the job it was woken for
// finished, or even overwritten by a later one; it runs nothing of it. Two job slots (job g in
// slot g mod 2), each validated by the generation it holds, and units claimed only from ranges
// tagged with the job's generation make this safe: a late worker can claim a unit only while its
// job is still running, and then reads that job's fields (docs/ARCHITECTURE.md, core_ref/parallel).
// The tag keeps 24 bits of the generation: a worker stalled between reading a range and its
// compare-and-swap for exactly a multiple of 2^24 jobs (tens of seconds of sections) could claim
// in a later job; nothing else has a time bound.
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
  // step 1.3–1.4× slower than others). With 2^20 units or more the units are made larger
  // (BalancedGrain), still multiples of `grain`.
  void ParallelForBalanced(
      size_t n, size_t grain,
      const std::function<void(size_t begin, size_t end, int worker)>& body) const;

  // Process-wide: `hook(worker)` runs on each worker thread (1 ≤ worker < threads()) of every
  // pool created afterwards, once, before it takes any job — for a program that places its
  // threads (les_peer_benchmark --pin pins worker w to the w-th CPU it may run on); core_ref
  // itself never sets one. nullptr (the default) = none.
  static void SetWorkerStartHook(void (*hook)(int worker));

  // Tests only (set before the first job): `hook` runs on a worker each time it wakes for a job,
  // before it reads the job (job_read false) and, if the job is still in its slot, after it has
  // read it (true), so a test can hold a worker back the way a descheduled vCPU would.
  void SetJobHookForTesting(
      std::function<void(int worker, uint32_t generation, bool job_read)> hook) {
    job_hook_for_testing_ = std::move(hook);
  }

 private:
  // One published job. Written by the caller while no worker can be using the slot (job g goes
  // to slot g mod 2 only after job g − 1, and so every job before it, has finished); `gen` is
  // kWriting while the fields change (a seqlock: a reader that sees the same generation before
  // and after reading the fields has read that job's fields).
  struct alignas(64) JobSlot {
    std::atomic<uint32_t> gen{0};
    std::atomic<const std::function<void(size_t, size_t, int)>*> body{nullptr};
    std::atomic<size_t> n{0}, grain{1}, units{0};
    std::atomic<bool> balanced{false};
  };
  struct Job {
    const std::function<void(size_t, size_t, int)>* body;
    size_t n, grain, units;
    bool balanced;
  };
  static constexpr uint32_t kWriting = ~uint32_t{0};

  void WorkerLoop(int worker);
  // Publishes the job, runs the caller's share and waits for the join.
  void Run(size_t n, size_t grain, bool balanced,
           const std::function<void(size_t, size_t, int)>& body) const;
  // Job g's fields, if slot g mod 2 still holds job g (false: the job has finished and its slot
  // may hold a later one).
  bool ReadJob(uint32_t g, Job* job) const;
  // Worker w's chunk of a static job.
  void RunChunk(int w, const Job& job) const;
  // Worker w's share of balanced job g: its chunk, then the others' unclaimed units; counts
  // every unit it runs in done_units_ and wakes the caller after the job's last unit.
  void RunBalancedShare(int w, uint32_t g, const Job& job) const;
  // [begin, end) of worker w's chunk of `job`.
  void Chunk(const Job& job, size_t w, size_t* begin, size_t* end) const;

  int threads_;
  std::vector<std::thread> workers_;
  mutable JobSlot slots_[2];
  // Balanced jobs: the unclaimed units [lo, hi) of each worker's chunk and the job's generation,
  // packed as lo | hi << 20 | (generation mod 2^24) << 40, one cache line each. A claim is a
  // compare-and-swap that keeps the tag, so it succeeds only on the job the claimer read.
  struct alignas(64) UnitCounter {
    std::atomic<uint64_t> range{0};
  };
  std::unique_ptr<UnitCounter[]> next_unit_;
  std::chrono::nanoseconds spin_;  // how long a waiting thread spins before it blocks
  // Bumped once per job (and once to stop); workers wait for it to change. On a cache line of
  // its own, as are the join counters: the workers' counting must not disturb the line they
  // spin on.
  alignas(64) mutable std::atomic<uint32_t> generation_{0};
  // Workers blocked in generation_.wait(): the caller notifies only when there are some.
  mutable std::atomic<int> sleepers_{0};
  std::atomic<bool> stop_{false};
  // Static jobs: workers that have not finished their chunk; the caller waits for 0.
  alignas(64) mutable std::atomic<int> pending_{0};
  // Balanced jobs: units done; the caller waits for the job's unit count.
  alignas(64) mutable std::atomic<uint32_t> done_units_{0};
  // Whether the caller sleeps in pending_.wait() or done_units_.wait(): the worker that
  // completes the join notifies it then.
  mutable std::atomic<bool> caller_sleeping_{false};
  // Tests only: see SetJobHookForTesting.
  std::function<void(int worker, uint32_t generation, bool job_read)> job_hook_for_testing_;
};

// Process-wide, for profiling programs (les_peer_benchmark --sections): `hook(units, ns)` runs on
// the calling thread after every section started through the two functions below (with or
// without a pool) with the section's unit count ⌈n / grain⌉ and its wall time in nanoseconds.
// core_ref never sets one; nullptr (the default) costs one relaxed load per section. `units` is
// ⌈n / grain⌉ as given (a balanced section of 2^20 units or more runs fewer, larger ones). The
// hook runs on whichever thread started the section: a section started inside another's body
// (none is, in core_ref) would call it on a worker, concurrently.
void SetSectionTimingHook(void (*hook)(size_t units, int64_t nanoseconds));

// body(begin, end, worker) over [0, n): through `pool` when it is non-null and has more than one
// thread, else as one call body(0, n, 0).
void ParallelFor(const ThreadPool* pool, size_t n, size_t grain,
                 const std::function<void(size_t begin, size_t end, int worker)>& body);

// The same with ThreadPool::ParallelForBalanced (one call body(0, n, 0) without a pool).
void ParallelForBalanced(const ThreadPool* pool, size_t n, size_t grain,
                         const std::function<void(size_t begin, size_t end, int worker)>& body);

// The unit size ParallelForBalanced uses for n indices in units of `grain` (>= 1): `grain`, or
// the smallest multiple of it that leaves fewer than 2^20 units (its packed ranges hold 20-bit
// unit indices beside a 24-bit generation tag).
size_t BalancedGrain(size_t n, size_t grain);

}  // namespace dashi

#endif  // DASHI_CORE_REF_PARALLEL_THREAD_POOL_H_
