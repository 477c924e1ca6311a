#include "core_ref/parallel/thread_pool.h"

#include <algorithm>

namespace dashi {

ThreadPool::ThreadPool(int threads) : threads_(std::max(threads, 1)) {
  chunks_.assign(static_cast<size_t>(threads_), {0, 0});
  for (int w = 1; w < threads_; ++w) workers_.emplace_back([this, w] { WorkerLoop(w); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    ++generation_;
  }
  start_cv_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void ThreadPool::WorkerLoop(int worker) {
  size_t seen = 0;
  while (true) {
    std::pair<size_t, size_t> chunk;
    const std::function<void(size_t, size_t, int)>* body;
    {
      std::unique_lock<std::mutex> lock(mu_);
      start_cv_.wait(lock, [&] { return generation_ != seen; });
      seen = generation_;
      if (stop_) return;
      chunk = chunks_[static_cast<size_t>(worker)];
      body = body_;
    }
    if (chunk.first < chunk.second) (*body)(chunk.first, chunk.second, worker);
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (--pending_ == 0) done_cv_.notify_one();
    }
  }
}

void ThreadPool::ParallelFor(size_t n, size_t grain,
                             const std::function<void(size_t, size_t, int)>& body) const {
  grain = std::max<size_t>(grain, 1);
  const size_t units = (n + grain - 1) / grain;
  const size_t t = static_cast<size_t>(threads_);
  if (threads_ == 1 || units <= 1) {
    if (n > 0) body(0, n, 0);
    return;
  }
  // Chunk w holds units [w·units/t, (w+1)·units/t): contiguous, sizes differing by at most one.
  auto bound = [&](size_t w) { return std::min(n, (w * units / t) * grain); };
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (size_t w = 0; w < t; ++w) chunks_[w] = {bound(w), bound(w + 1)};
    body_ = &body;
    pending_ = threads_ - 1;
    ++generation_;
  }
  start_cv_.notify_all();
  if (bound(0) < bound(1)) body(bound(0), bound(1), 0);
  std::unique_lock<std::mutex> lock(mu_);
  done_cv_.wait(lock, [&] { return pending_ == 0; });
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
