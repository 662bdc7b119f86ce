// The worker threads behind vdla_native_ctx::parallel_for. Generated CPU code
// splits its loops through this pool, so the runtime (and not the code) owns
// every thread and the generated code links no threading library.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "vdla/runtime/native_abi.h"

namespace vdla::rt::native {

class ThreadPool {
 public:
  // num_threads counts the calling thread; 0 means VDLA_NUM_THREADS from the
  // environment, else the number of hardware threads.
  explicit ThreadPool(int num_threads = 0);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // The pool shared by every executor of the process.
  static ThreadPool& global();

  int numThreads() const { return static_cast<int>(workers_.size()) + 1; }
  // Calls task(closure, begin, end, thread) on contiguous ranges covering
  // [0, count), the caller taking range 0; returns when all are done. Calls
  // from several threads at once are serialised.
  void parallelFor(int64_t count, vdla_task_fn task, void* closure);

  // A context for generated code that uses this pool.
  vdla_native_ctx context(uint8_t* workspace) const;

 private:
  void workerLoop(int index);

  std::vector<std::thread> workers_;
  std::mutex run_mutex_;  // one parallel loop at a time
  std::mutex mutex_;
  std::condition_variable start_cv_, done_cv_;
  uint64_t generation_ = 0;
  int pending_ = 0;
  bool stop_ = false;
  int64_t count_ = 0;
  vdla_task_fn task_ = nullptr;
  void* closure_ = nullptr;
};

}  // namespace vdla::rt::native
