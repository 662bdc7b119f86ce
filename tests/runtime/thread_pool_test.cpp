// The thread pool behind generated CPU code: every index of a parallel loop
// runs exactly once on a valid thread, across pool sizes and loop sizes, for
// long runs of back-to-back loops (workers polling), after idle pauses
// longer than the polling (workers asleep), and with several callers; idle
// threads take over a slow thread's indices, and do not with stealing off;
// traced task spans cover every index of every loop once.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
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

// Records which thread ran each index; index 0 sleeps, so that the first
// thread is held up in its first claim.
struct Owners {
  std::vector<std::atomic<int>> thread;
  std::vector<std::atomic<int>> hits;
  explicit Owners(int64_t count) : thread(count), hits(count) {}
};

extern "C" void recordOwner(void* closure, int64_t begin, int64_t end, int64_t thread) {
  Owners* o = static_cast<Owners*>(closure);
  for (int64_t i = begin; i < end; ++i) {
    if (i == 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    o->thread[i].store(static_cast<int>(thread));
    o->hits[i].fetch_add(1);
  }
}

// Runs 400 indices on two threads; returns how many of the first thread's
// part (indices 0-199) another thread ran.
int64_t takenFromFirstThread(ThreadPool& pool) {
  Owners owners(400);
  pool.parallelFor(400, recordOwner, &owners);
  int64_t taken = 0;
  for (int64_t i = 0; i < 400; ++i) {
    EXPECT_EQ(owners.hits[i].load(), 1) << "index " << i;
    if (i < 200 && owners.thread[i].load() != 0) ++taken;
    if (i >= 200 && !pool.stealing()) {
      EXPECT_EQ(owners.thread[i].load(), 1) << "index " << i;
    }
  }
  return taken;
}

TEST(ThreadPool, IdleThreadsTakeOverASlowThreadsIndices) {
  ThreadPool pool(2);
  ASSERT_TRUE(pool.stealing());
  // The first thread claims an eighth of its part (25 indices) and sleeps in
  // the first; the second finishes its part and takes over the back half of
  // the rest, then half of what is left, and so on.
  EXPECT_GE(takenFromFirstThread(pool), 100);
}

TEST(ThreadPool, StealingCanBeTurnedOff) {
  setenv("VDLA_POOL_STEAL", "0", 1);
  ThreadPool pool(2);
  unsetenv("VDLA_POOL_STEAL");
  ASSERT_FALSE(pool.stealing());
  EXPECT_EQ(takenFromFirstThread(pool), 0);
}

extern "C" void unevenWork(void* closure, int64_t begin, int64_t end, int64_t thread) {
  Marks* m = static_cast<Marks*>(closure);
  if (thread < 0 || thread >= m->threads || begin >= end) m->bad_thread.fetch_add(1);
  for (int64_t i = begin; i < end; ++i) {
    // Work that grows with the index, so that the later parts run longer and
    // threads keep taking over from each other.
    volatile int64_t spin = 0;
    for (int64_t k = 0; k < (i % 97) * 20; ++k) spin = spin + k;
    m->hits[i].fetch_add(1);
  }
}

TEST(ThreadPool, EveryIndexOnceWhileThreadsTakeOverEachOther) {
  for (int threads : {2, 3, 4}) {
    ThreadPool pool(threads);
    for (int round = 0; round < 300; ++round) {
      const int64_t count = 1 + (round * 37) % 700;
      Marks marks(count, threads);
      pool.parallelFor(count, unevenWork, &marks);
      ASSERT_EQ(marks.bad_thread.load(), 0);
      for (int64_t i = 0; i < count; ++i)
        ASSERT_EQ(marks.hits[i].load(), 1) << "index " << i << " of " << count << " on " << threads << " threads";
    }
  }
}

TEST(ThreadPool, TracedSpansCoverEveryIndexOnce) {
  for (int threads : {1, 2, 3}) {
    ThreadPool pool(threads);
    std::atomic<int64_t> total{0};
    pool.parallelFor(10, addRange, &total);  // not traced
    EXPECT_TRUE(pool.takeSpans().empty());
    pool.setTracing(true);
    const std::vector<int64_t> counts = {1, 5, 300, 64};
    for (int64_t count : counts) {
      Marks marks(count, threads);
      pool.parallelFor(count, unevenWork, &marks);
    }
    pool.setTracing(false);
    const std::vector<ThreadPool::TaskSpan> spans = pool.takeSpans();
    EXPECT_TRUE(pool.takeSpans().empty());
    // Spans of loops 2-5 (the untraced loop was 1), each index once.
    std::vector<std::vector<int>> seen;
    for (int64_t count : counts) seen.emplace_back(count, 0);
    for (const ThreadPool::TaskSpan& s : spans) {
      ASSERT_GE(s.loop, 2);
      ASSERT_LE(s.loop, 5);
      ASSERT_GE(s.thread, 0);
      ASSERT_LT(s.thread, threads);
      ASSERT_LE(s.start_seconds, s.end_seconds);
      std::vector<int>& hits = seen[static_cast<size_t>(s.loop - 2)];
      ASSERT_LT(s.begin, s.end);
      ASSERT_LE(s.end, static_cast<int64_t>(hits.size()));
      for (int64_t i = s.begin; i < s.end; ++i) ++hits[static_cast<size_t>(i)];
    }
    for (const std::vector<int>& hits : seen)
      for (size_t i = 0; i < hits.size(); ++i)
        ASSERT_EQ(hits[i], 1) << "index " << i << " on " << threads << " threads";
  }
}

}  // namespace
}  // namespace vdla::rt::native
