#include "vdla/runtime/native/thread_pool.h"

#include <cstdlib>
#include <string>

namespace vdla::rt::native {

namespace {

int defaultThreads() {
  if (const char* env = std::getenv("VDLA_NUM_THREADS")) {
    const int n = std::atoi(env);
    if (n > 0) return n;
  }
  const unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : static_cast<int>(hw);
}

// Range `part` of `parts` nearly equal contiguous ranges of [0, count).
void rangeOf(int64_t count, int64_t parts, int64_t part, int64_t* begin, int64_t* end) {
  const int64_t base = count / parts, extra = count % parts;
  *begin = part * base + (part < extra ? part : extra);
  *end = *begin + base + (part < extra ? 1 : 0);
}

extern "C" void poolParallelFor(void* pool, int64_t count, vdla_task_fn task, void* closure) {
  static_cast<ThreadPool*>(pool)->parallelFor(count, task, closure);
}

}  // namespace

ThreadPool::ThreadPool(int num_threads) {
  const int n = num_threads > 0 ? num_threads : defaultThreads();
  for (int i = 1; i < n; ++i) workers_.emplace_back([this, i] { workerLoop(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  start_cv_.notify_all();
  for (std::thread& t : workers_) t.join();
}

ThreadPool& ThreadPool::global() {
  static ThreadPool pool;
  return pool;
}

void ThreadPool::workerLoop(int index) {
  uint64_t seen = 0;
  for (;;) {
    int64_t count;
    vdla_task_fn task;
    void* closure;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      start_cv_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      count = count_;
      task = task_;
      closure = closure_;
    }
    int64_t begin, end;
    rangeOf(count, numThreads(), index, &begin, &end);
    if (begin < end) task(closure, begin, end, index);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (--pending_ == 0) done_cv_.notify_one();
    }
  }
}

void ThreadPool::parallelFor(int64_t count, vdla_task_fn task, void* closure) {
  if (count <= 0) return;
  if (workers_.empty() || count == 1) {
    task(closure, 0, count, 0);
    return;
  }
  std::lock_guard<std::mutex> run_lock(run_mutex_);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    count_ = count;
    task_ = task;
    closure_ = closure;
    pending_ = static_cast<int>(workers_.size());
    ++generation_;
  }
  start_cv_.notify_all();
  int64_t begin, end;
  rangeOf(count, numThreads(), 0, &begin, &end);
  task(closure, begin, end, 0);
  std::unique_lock<std::mutex> lock(mutex_);
  done_cv_.wait(lock, [&] { return pending_ == 0; });
}

vdla_native_ctx ThreadPool::context(uint8_t* workspace) const {
  vdla_native_ctx ctx;
  ctx.pool = const_cast<ThreadPool*>(this);
  ctx.parallel_for = poolParallelFor;
  ctx.workspace = workspace;
  ctx.num_threads = numThreads();
  return ctx;
}

}  // namespace vdla::rt::native
