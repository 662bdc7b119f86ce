#include "vdla/runtime/native/thread_pool.h"

#include <algorithm>
#include <chrono>
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

// Tells the core that this is a polling loop (frees the pipeline for a
// sibling hyper-thread and saves power).
inline void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
  asm volatile("yield");
#endif
}

// ThreadPool::kSpinMicros, or VDLA_SPIN_US when set.
int64_t spinMicros() {
  static const int64_t us = [] {
    const char* env = std::getenv("VDLA_SPIN_US");
    return env ? std::atoll(env) : ThreadPool::kSpinMicros;
  }();
  return us;
}

// Polls `ready` for up to spinMicros(); whether it became true. After the
// first few microseconds each poll yields the core: when other processes
// keep the machine busy, the thread being waited for may be queued behind
// the polling one on the same core, and pure busy-waiting would hold it off
// for a whole scheduler time slice.
template <typename Ready>
bool spinUntil(const Ready& ready) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  const Clock::time_point busy_until = start + std::chrono::microseconds(4);
  const Clock::time_point deadline = start + std::chrono::microseconds(spinMicros());
  for (;;) {
    for (int i = 0; i < 16; ++i) {
      if (ready()) return true;
      cpuRelax();
    }
    const Clock::time_point now = Clock::now();
    if (now >= deadline) return ready();
    if (now >= busy_until) std::this_thread::yield();
  }
}

extern "C" void poolParallelFor(void* pool, int64_t count, vdla_task_fn task, void* closure) {
  static_cast<ThreadPool*>(pool)->parallelFor(count, task, closure);
}

// How much of its unclaimed part a thread claims at a time: an eighth (at
// least one index), so that a loop of a thousand tiny indices costs a few
// dozen compare-and-swaps and what a thief finds is at most an eighth
// short of the rest.
constexpr uint64_t kClaimDivisor = 8;

uint64_t packRange(uint64_t begin, uint64_t end) { return begin | end << 32; }
uint64_t rangeBegin(uint64_t r) { return r & 0xffffffffu; }
uint64_t rangeEnd(uint64_t r) { return r >> 32; }

bool stealingEnabled() {
  const char* env = std::getenv("VDLA_POOL_STEAL");
  return !env || std::string(env) != "0";
}

}  // namespace

ThreadPool::ThreadPool(int num_threads) : stealing_(stealingEnabled()) {
  const int n = num_threads > 0 ? num_threads : defaultThreads();
  parts_ = std::vector<Part>(static_cast<size_t>(n));
  spans_.resize(static_cast<size_t>(n));
  for (int i = 1; i < n; ++i) workers_.emplace_back([this, i] { workerLoop(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_.store(true);
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
    auto ready = [&] {
      return stop_.load(std::memory_order_acquire) || generation_.load(std::memory_order_acquire) != seen;
    };
    if (!spinUntil(ready)) {
      // The generation is bumped under mutex_, so it cannot change between
      // this check and the wait.
      std::unique_lock<std::mutex> lock(mutex_);
      start_cv_.wait(lock, ready);
    }
    if (stop_.load(std::memory_order_acquire)) return;
    seen = generation_.load(std::memory_order_acquire);
    runParts(index);
    if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      // Under the mutex, so that a caller that checked pending_ and is about
      // to sleep cannot miss the notification.
      std::lock_guard<std::mutex> lock(mutex_);
      done_cv_.notify_one();
    }
  }
}

double steadySeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void ThreadPool::runTask(int64_t begin, int64_t end, int thread) {
  if (!tracing_) {
    task_(closure_, begin, end, thread);
    return;
  }
  TaskSpan span;
  span.loop = loops_;
  span.thread = thread;
  span.begin = begin;
  span.end = end;
  span.start_seconds = steadySeconds();
  task_(closure_, begin, end, thread);
  span.end_seconds = steadySeconds();
  spans_[static_cast<size_t>(thread)].push_back(span);
}

std::vector<ThreadPool::TaskSpan> ThreadPool::takeSpans() {
  std::vector<TaskSpan> all;
  for (std::vector<TaskSpan>& mine : spans_) {
    all.insert(all.end(), mine.begin(), mine.end());
    mine.clear();
  }
  return all;
}

void ThreadPool::runParts(int thread) {
  const int n = numThreads();
  if (!stealing_ || count_ >= (int64_t{1} << 32)) {
    int64_t begin, end;
    rangeOf(count_, n, thread, &begin, &end);
    if (begin < end) runTask(begin, end, thread);
    return;
  }
  std::atomic<uint64_t>& own = parts_[static_cast<size_t>(thread)].range;
  for (;;) {
    // This thread's part, from the front.
    uint64_t r = own.load(std::memory_order_acquire);
    while (rangeBegin(r) < rangeEnd(r)) {
      const uint64_t begin = rangeBegin(r), end = rangeEnd(r);
      const uint64_t take = std::max<uint64_t>(1, (end - begin) / kClaimDivisor);
      if (own.compare_exchange_weak(r, packRange(begin + take, end), std::memory_order_acq_rel)) {
        runTask(static_cast<int64_t>(begin), static_cast<int64_t>(begin + take), thread);
        r = own.load(std::memory_order_acquire);
      }
    }
    // Then the back half of the rest of the next thread that has some; it
    // becomes this thread's part (others may take from it in turn).
    bool took = false;
    for (int v = 1; v < n && !took; ++v) {
      std::atomic<uint64_t>& other = parts_[static_cast<size_t>((thread + v) % n)].range;
      uint64_t o = other.load(std::memory_order_acquire);
      while (rangeBegin(o) < rangeEnd(o)) {
        const uint64_t begin = rangeBegin(o), end = rangeEnd(o);
        const uint64_t split = end - (end - begin + 1) / 2;
        if (other.compare_exchange_weak(o, packRange(begin, split), std::memory_order_acq_rel)) {
          own.store(packRange(split, end), std::memory_order_release);
          took = true;
          break;
        }
      }
    }
    if (!took) return;
  }
}

void ThreadPool::parallelFor(int64_t count, vdla_task_fn task, void* closure) {
  if (count <= 0) return;
  std::lock_guard<std::mutex> run_lock(run_mutex_);
  ++loops_;
  if (workers_.empty() || count == 1) {
    task_ = task;
    closure_ = closure;
    runTask(0, count, 0);
    return;
  }
  // Every worker has finished the previous loop (pending_ reached 0), so
  // none reads these fields now.
  count_ = count;
  task_ = task;
  closure_ = closure;
  for (int t = 0; t < numThreads(); ++t) {
    int64_t begin, end;
    rangeOf(count, numThreads(), t, &begin, &end);
    parts_[static_cast<size_t>(t)].range.store(packRange(static_cast<uint64_t>(begin), static_cast<uint64_t>(end)),
                                               std::memory_order_relaxed);
  }
  pending_.store(static_cast<int>(workers_.size()), std::memory_order_relaxed);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    generation_.fetch_add(1, std::memory_order_release);
  }
  start_cv_.notify_all();  // no system call when every worker is polling
  runParts(0);
  auto done = [&] { return pending_.load(std::memory_order_acquire) == 0; };
  if (!spinUntil(done)) {
    std::unique_lock<std::mutex> lock(mutex_);
    done_cv_.wait(lock, done);
  }
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
