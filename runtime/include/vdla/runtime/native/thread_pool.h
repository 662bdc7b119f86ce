// The worker threads behind vdla_native_ctx::parallel_for. Generated CPU code
// splits its loops through this pool, so the runtime (and not the code) owns
// every thread and the generated code links no threading library.
//
// A network runs dozens of parallel loops of tens of microseconds each, one
// after the other; waking a sleeping thread through the kernel costs about
// as much as such a loop. So a worker that finished its share keeps polling
// for the next loop for a while (kSpinMicros) before it sleeps on a
// condition variable, and the caller polls for the workers' completion the
// same way. Only the first loop after an idle pause pays the wake-up.
//
// Each thread starts on its own contiguous part of a loop (the first thread
// on the first part: generated code arranges its tasks so that a thread
// reads what it wrote in the loop before) and claims it a few indices at a
// time from the front. A thread that runs out takes over the back half of
// the rest of another thread's part, so that a thread slowed down by the
// machine (another process, an interrupt, a late wake-up) or given the
// costlier indices does not hold up the loop.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "vdla/runtime/native_abi.h"

namespace vdla::rt::native {

class ThreadPool {
 public:
  // How long an idle worker (and a caller waiting for its workers) polls
  // before it sleeps: longer than the serial code between two parallel
  // loops of a network, short enough that an idle process stops burning CPU
  // at once. The environment variable VDLA_SPIN_US overrides it (0: sleep
  // at once, as a machine shared with other busy processes may prefer).
  static constexpr int64_t kSpinMicros = 300;

  // num_threads counts the calling thread; 0 means VDLA_NUM_THREADS from the
  // environment, else the number of hardware threads.
  explicit ThreadPool(int num_threads = 0);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // The pool shared by every executor of the process.
  static ThreadPool& global();

  int numThreads() const { return static_cast<int>(workers_.size()) + 1; }
  // Calls task(closure, begin, end, thread) on ranges that cover [0, count)
  // once, the caller being thread 0; returns when all are done. Calls from
  // several threads at once are serialised.
  void parallelFor(int64_t count, vdla_task_fn task, void* closure);
  // Whether idle threads take over other threads' indices (the default;
  // VDLA_POOL_STEAL=0 turns it off: each thread then runs exactly its own
  // contiguous part, for comparisons).
  bool stealing() const { return stealing_; }

  // One call of a loop's task on one thread, for traces: the loop's number
  // (counting every parallelFor of the pool), the thread, the indices and
  // when it ran (seconds of std::chrono::steady_clock since its epoch).
  struct TaskSpan {
    int64_t loop = 0;
    int thread = 0;
    int64_t begin = 0, end = 0;
    double start_seconds = 0, end_seconds = 0;
  };
  // Records a TaskSpan per task call from the next loop on (off by default:
  // a branch per call when off). Not while a loop runs.
  void setTracing(bool on) { tracing_ = on; }
  // The spans recorded so far, every thread's, which are then forgotten.
  // Not while a loop runs.
  std::vector<TaskSpan> takeSpans();

  // A context for generated code that uses this pool.
  vdla_native_ctx context(uint8_t* workspace) const;

 private:
  void workerLoop(int index);
  // Runs this thread's part of the current loop, then other threads' rest.
  void runParts(int thread);
  // task_ on [begin, end) as `thread`, recording its span when tracing.
  void runTask(int64_t begin, int64_t end, int thread);

  // A thread's unclaimed indices [begin, end) of the current loop, packed
  // as begin | end << 32 so that the owner (claiming at the front) and a
  // thief (taking the back half) agree through one compare-and-swap; one
  // cache line each.
  struct alignas(64) Part {
    std::atomic<uint64_t> range{0};
  };

  std::vector<std::thread> workers_;
  std::vector<Part> parts_;  // one per thread, the caller's first
  bool stealing_ = true;
  bool tracing_ = false;
  int64_t loops_ = 0;                         // loops started, numbering the spans
  std::vector<std::vector<TaskSpan>> spans_;  // per thread, written only by it
  std::mutex run_mutex_;                      // one parallel loop at a time
  // Sleepers wait on the condition variables under mutex_; the atomics are
  // what the polling threads read.
  std::mutex mutex_;
  std::condition_variable start_cv_, done_cv_;
  std::atomic<uint64_t> generation_{0};  // bumped (release) when a loop's fields are set
  std::atomic<int> pending_{0};          // workers still running the current loop
  std::atomic<bool> stop_{false};
  // The current loop; written only while no worker runs one.
  int64_t count_ = 0;
  vdla_task_fn task_ = nullptr;
  void* closure_ = nullptr;
};

}  // namespace vdla::rt::native
