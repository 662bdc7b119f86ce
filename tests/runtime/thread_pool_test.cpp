// The thread pool behind generated CPU code: every index of a parallel loop
// runs exactly once on a valid thread, across pool sizes and loop sizes, for
// long runs of back-to-back loops (workers polling), after idle pauses
// longer than the polling (workers asleep), and with several callers.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "vdla/runtime/native/thread_pool.h"

namespace vdla::rt::native {
namespace {

struct Marks {
  std::vector<std::atomic<int>> hits;
  std::atomic<int> bad_thread{0};
  int64_t threads = 0;
  explicit Marks(int64_t count, int64_t num_threads) : hits(count), threads(num_threads) {}
};

extern "C" void markRange(void* closure, int64_t begin, int64_t end, int64_t thread) {
  Marks* m = static_cast<Marks*>(closure);
  if (thread < 0 || thread >= m->threads || begin > end) m->bad_thread.fetch_add(1);
  for (int64_t i = begin; i < end; ++i) m->hits[i].fetch_add(1);
}

void expectEachOnce(ThreadPool& pool, int64_t count) {
  Marks marks(count, pool.numThreads());
  pool.parallelFor(count, markRange, &marks);
  EXPECT_EQ(marks.bad_thread.load(), 0);
  for (int64_t i = 0; i < count; ++i) ASSERT_EQ(marks.hits[i].load(), 1) << "index " << i << " of " << count;
}

TEST(ThreadPool, EveryIndexOnceForAnySize) {
  for (int threads : {1, 2, 3, 4}) {
    ThreadPool pool(threads);
    EXPECT_EQ(pool.numThreads(), threads);
    for (int64_t count : {0, 1, 2, 3, 5, 7, 64, 1001}) expectEachOnce(pool, count);
  }
}

extern "C" void addRange(void* closure, int64_t begin, int64_t end, int64_t) {
  static_cast<std::atomic<int64_t>*>(closure)->fetch_add(end - begin);
}

TEST(ThreadPool, ManyShortLoopsBackToBack) {
  // The pattern of a network's steps: thousands of tiny loops, the workers
  // polling between them.
  ThreadPool pool(2);
  std::atomic<int64_t> total{0};
  for (int i = 0; i < 20000; ++i) pool.parallelFor(3, addRange, &total);
  EXPECT_EQ(total.load(), 60000);
}

TEST(ThreadPool, LoopsAfterIdlePauses) {
  // Pauses past the polling time put the workers to sleep; each loop must
  // wake them.
  ThreadPool pool(3);
  for (int i = 0; i < 5; ++i) {
    std::this_thread::sleep_for(std::chrono::microseconds(ThreadPool::kSpinMicros * 3));
    expectEachOnce(pool, 100);
  }
}

TEST(ThreadPool, CallersOnSeveralThreadsAreSerialised) {
  ThreadPool pool(2);
  std::atomic<int64_t> total{0};
  std::vector<std::thread> callers;
  for (int c = 0; c < 3; ++c)
    callers.emplace_back([&] {
      for (int i = 0; i < 2000; ++i) pool.parallelFor(10, addRange, &total);
    });
  for (std::thread& t : callers) t.join();
  EXPECT_EQ(total.load(), 3 * 2000 * 10);
}

}  // namespace
}  // namespace vdla::rt::native
