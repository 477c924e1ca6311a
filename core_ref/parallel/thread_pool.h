// A fixed pool of std::thread workers that splits an index range into one contiguous chunk per
// thread and waits for all of them (a barrier per call). Used by the 2D FFT passes and the LES's
// pointwise loops, where every index writes its own outputs: results are bit-identical for any
// thread count because no value ever depends on which thread computed it (reductions stay
// serial, in their fixed order, with the caller).
//
//   ThreadPool pool(4);
//   pool.ParallelFor(rows, /*grain=*/16, [&](size_t begin, size_t end, int worker) {
//     for (size_t r = begin; r < end; ++r) ...;   // worker in [0, pool.threads())
//   });
#ifndef DASHI_CORE_REF_PARALLEL_THREAD_POOL_H_
#define DASHI_CORE_REF_PARALLEL_THREAD_POOL_H_

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
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
  // multiples of `grain` (>= 1), at most one chunk per thread, and returns when all are done.
  // The caller runs chunk 0. Not reentrant: one ParallelFor at a time per pool. `body` must not
  // throw.
  void ParallelFor(size_t n, size_t grain,
                   const std::function<void(size_t begin, size_t end, int worker)>& body) const;

 private:
  void WorkerLoop(int worker);

  int threads_;
  std::vector<std::thread> workers_;
  mutable std::mutex mu_;
  mutable std::condition_variable start_cv_, done_cv_;
  mutable const std::function<void(size_t, size_t, int)>* body_ = nullptr;
  mutable std::vector<std::pair<size_t, size_t>> chunks_;  // per worker; empty range: idle
  mutable size_t generation_ = 0;
  mutable int pending_ = 0;
  bool stop_ = false;
};

// body(begin, end, worker) over [0, n): through `pool` when it is non-null and has more than one
// thread, else as one call body(0, n, 0).
void ParallelFor(const ThreadPool* pool, size_t n, size_t grain,
                 const std::function<void(size_t begin, size_t end, int worker)>& body);

}  // namespace dashi

#endif  // DASHI_CORE_REF_PARALLEL_THREAD_POOL_H_
