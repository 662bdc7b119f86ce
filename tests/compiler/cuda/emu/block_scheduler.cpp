#include "block_scheduler.h"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "fiber.h"

namespace vdla_emu {

namespace {

constexpr size_t kStackBytes = 64 * 1024;  // kernels keep a few hundred bytes of locals

enum class State { Ready, AtBarrier, AtWarp, Done };

struct Fiber {
  VdlaEmuThread t;  // first: the hooks receive &t and cast back
  FiberContext ctx;
  char* stack = nullptr;
  State state = State::Ready;
  int line = 0;
};

struct Warp {
  uint64_t slots[2][32];
  unsigned gen = 0;
  unsigned waiting = 0;  // lanes that arrived at the current exchange
  unsigned mask = 0;     // the lanes the current exchange needs
  unsigned lanes = 0;    // the lanes that exist (a partial last warp has fewer)
  int line = 0;
};

struct Scheduler {
  std::vector<Fiber> fibers;
  std::vector<Warp> warps;
  FiberContext main;
  const GridLaunch* launch = nullptr;
  int current = -1;
  std::string error;
  bool faulted = false;
  uintptr_t fault_address = 0;
  int fault_signal = 0;
};

thread_local Scheduler* active = nullptr;

// Fiber stacks, kept across launches: each with an inaccessible page below it
// so that an overflow faults instead of corrupting a neighbour.
struct Stacks {
  char* base = nullptr;
  size_t count = 0;
  char* get(size_t i) {
    if (i >= count) grow(i + 1);
    return base + i * (kStackBytes + pageBytes()) + pageBytes();
  }
  static size_t pageBytes() { return static_cast<size_t>(sysconf(_SC_PAGESIZE)); }
  void grow(size_t n) {
    n = n < 1024 ? 1024 : n;
    if (base) munmap(base, count * (kStackBytes + pageBytes()));
    const size_t each = kStackBytes + pageBytes();
    void* p = mmap(nullptr, n * each, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
      std::perror("vdla cuda emulation: fiber stacks");
      std::abort();
    }
    base = static_cast<char*>(p);
    count = n;
    for (size_t i = 0; i < n; ++i) mprotect(base + i * each, pageBytes(), PROT_NONE);
  }
};
thread_local Stacks stacks;

std::string threadName(const Fiber& f) {
  return "thread (" + std::to_string(f.t.thread_idx.x) + "," + std::to_string(f.t.thread_idx.y) + "," +
         std::to_string(f.t.thread_idx.z) + ")";
}

// Leaves the running fiber for the scheduler.
void yieldToScheduler(Scheduler& s, Fiber& f) { switchFiber(f.ctx, s.main); }

void fiberMain() {
  Scheduler& s = *active;
  Fiber& f = s.fibers[static_cast<size_t>(s.current)];
  s.launch->kernel->run(s.launch->params);
  f.state = State::Done;
  yieldToScheduler(s, f);
}

void barrierHook(VdlaEmuThread* self, int line) {
  Scheduler& s = *static_cast<Scheduler*>(self->scheduler);
  Fiber& f = *reinterpret_cast<Fiber*>(self);
  f.state = State::AtBarrier;
  f.line = line;
  yieldToScheduler(s, f);
}

const uint64_t* warpExchangeHook(VdlaEmuThread* self, unsigned mask, uint64_t value, int line) {
  Scheduler& s = *static_cast<Scheduler*>(self->scheduler);
  Fiber& f = *reinterpret_cast<Fiber*>(self);
  const size_t index = static_cast<size_t>(&f - s.fibers.data());
  Warp& w = s.warps[index / 32];
  const unsigned lane = self->lane;
  auto fail = [&](const std::string& what) {
    s.error = threadName(f) + ": warp " + std::to_string(index / 32) + ", line " + std::to_string(line) + ": " + what;
    f.state = State::Done;
    yieldToScheduler(s, f);
  };
  char hex[32];
  std::snprintf(hex, sizeof(hex), "0x%08x", mask);
  if (!(mask >> lane & 1u)) fail(std::string("the lane is not in its own shuffle mask ") + hex);
  if (mask & ~w.lanes)
    fail(std::string("shuffle mask ") + hex + " names lanes that do not exist (the block's last warp has " +
         std::to_string(__builtin_popcount(w.lanes)) + " threads)");
  if (w.waiting == 0) {
    w.mask = mask;
    w.line = line;
  } else if (mask != w.mask) {
    fail("lanes of one warp exchange with different masks");
  }
  const unsigned gen = w.gen;
  w.slots[gen & 1][lane] = value;
  w.waiting |= 1u << lane;
  f.state = State::AtWarp;
  f.line = line;
  yieldToScheduler(s, f);
  // Released: every lane has deposited. The slots of this generation stay
  // untouched until every lane has arrived at its next exchange.
  return w.slots[gen & 1];
}

// Where a faulting fiber continues: it is abandoned.
void faultExit() {
  Scheduler& s = *active;
  Fiber& f = s.fibers[static_cast<size_t>(s.current)];
  f.state = State::Done;
  yieldToScheduler(s, f);
}

void onFault(int sig, siginfo_t* info, void* uctx) {
  Scheduler* s = active;
  if (!s || s->current < 0) {
    // Not an emulated thread: the fault is not ours to explain.
    signal(sig, SIG_DFL);
    return;
  }
  s->faulted = true;
  s->fault_signal = sig;
  s->fault_address = reinterpret_cast<uintptr_t>(info->si_addr);
  redirectAfterSignal(uctx, s->fibers[static_cast<size_t>(s->current)].stack, kStackBytes, faultExit);
}

// Releases the waiting lanes of completed warp exchanges; "" or an error.
bool releaseWarps(Scheduler& s, std::string& error) {
  bool released = false;
  for (size_t wi = 0; wi < s.warps.size(); ++wi) {
    Warp& w = s.warps[wi];
    if (!w.waiting) continue;
    if (w.waiting == w.mask) {
      for (unsigned l = 0; l < 32; ++l)
        if (w.mask >> l & 1u) s.fibers[wi * 32 + l].state = State::Ready;
      ++w.gen;
      w.waiting = 0;
      released = true;
      continue;
    }
    for (unsigned l = 0; l < 32; ++l)
      if ((w.mask >> l & 1u) && s.fibers[wi * 32 + l].state == State::Done) {
        error = "warp " + std::to_string(wi) + ": lanes wait at a warp shuffle (line " + std::to_string(w.line) +
                ") that lane " + std::to_string(l) + " never reaches (it has exited)";
        return false;
      }
  }
  return released;
}

// Releases a barrier every live thread waits at; "" or an error when the
// threads can make no progress.
void releaseBarrierOrFail(Scheduler& s, std::string& error) {
  size_t done = 0, at_barrier = 0, at_warp = 0;
  const Fiber* first = nullptr;
  for (const Fiber& f : s.fibers) {
    done += f.state == State::Done;
    at_warp += f.state == State::AtWarp;
    if (f.state == State::AtBarrier) {
      ++at_barrier;
      if (!first) first = &f;
    }
  }
  const std::string n = std::to_string(s.fibers.size());
  if (at_barrier && at_barrier + done == s.fibers.size()) {
    if (done) {
      error = "divergent __syncthreads: " + std::to_string(at_barrier) + " of " + n + " threads wait at line " +
              std::to_string(first->line) + " but " + std::to_string(done) + " have exited (a GPU would hang)";
      return;
    }
    for (const Fiber& f : s.fibers)
      if (f.line != first->line) {
        error = "divergent __syncthreads: " + threadName(*first) + " waits at line " + std::to_string(first->line) +
                ", " + threadName(f) + " at line " + std::to_string(f.line);
        return;
      }
    for (Fiber& f : s.fibers) f.state = State::Ready;
    return;
  }
  error = "deadlock: " + std::to_string(at_barrier) + " of " + n + " threads wait at __syncthreads, " +
          std::to_string(at_warp) + " at warp shuffles whose other lanes wait elsewhere";
}

// Runs fiber i until it blocks, exits or faults.
void resume(Scheduler& s, size_t i) {
  s.current = static_cast<int>(i);
  *s.launch->current = &s.fibers[i].t;
  switchFiber(s.main, s.fibers[i].ctx);
}

std::string runBlock(Scheduler& s, VdlaEmuDim block_idx) {
  const GridLaunch& l = *s.launch;
  const size_t n = s.fibers.size();
  for (size_t i = 0; i < n; ++i) {
    Fiber& f = s.fibers[i];
    f.state = State::Ready;
    f.line = 0;
    f.t.thread_idx = {static_cast<unsigned>(i % l.block.x), static_cast<unsigned>(i / l.block.x % l.block.y),
                      static_cast<unsigned>(i / (l.block.x * l.block.y))};
    f.t.block_idx = block_idx;
    f.stack = stacks.get(i);
    makeFiber(f.ctx, f.stack, kStackBytes, fiberMain);
  }
  for (Warp& w : s.warps) w.waiting = 0;
  std::string error;
  // Passes alternate between ascending and descending thread order, so that
  // a value read from shared memory before the barrier that should publish
  // it reads stale data whichever thread writes it (a missing barrier
  // changes results instead of going unnoticed).
  for (bool descending = false;; descending = !descending) {
    for (size_t k = 0; k < n; ++k) {
      const size_t i = descending ? n - 1 - k : k;
      if (s.fibers[i].state != State::Ready) continue;
      resume(s, i);
      if (s.faulted) {
        s.current = -1;
        const std::string where = l.describe_address(s.fault_address);
        char addr[32];
        std::snprintf(addr, sizeof(addr), "0x%llx", static_cast<unsigned long long>(s.fault_address));
        return threadName(s.fibers[i]) + ": " + (s.fault_signal == SIGBUS ? "bus error" : "invalid memory access") +
               " at " + addr +
               (where.empty() ? " (not next to any argument; a stack overflow or a wild pointer)" : ": " + where);
      }
      if (!s.error.empty()) return s.error;
    }
    s.current = -1;
    bool all_done = true;
    for (const Fiber& f : s.fibers) all_done &= f.state == State::Done;
    if (all_done) return "";
    if (releaseWarps(s, error)) continue;
    if (!error.empty()) return error;
    releaseBarrierOrFail(s, error);
    if (!error.empty()) return error;
  }
}

// The fault handler runs on its own stack, so that a fiber's stack overflow
// can be reported too.
void ensureAltStack() {
  thread_local bool done = false;
  if (done) return;
  stack_t st{};
  st.ss_size = 64 * 1024;
  st.ss_sp = std::malloc(st.ss_size);  // kept for the thread's life
  sigaltstack(&st, nullptr);
  done = true;
}

}  // namespace

std::string runGrid(const GridLaunch& launch) {
  const size_t threads = size_t{launch.block.x} * launch.block.y * launch.block.z;
  if (threads == 0 || threads > 1024) return "a block of " + std::to_string(threads) + " threads";
  Scheduler s;
  s.launch = &launch;
  s.fibers.resize(threads);
  s.warps.resize((threads + 31) / 32);
  for (size_t i = 0; i < threads; ++i) {
    VdlaEmuThread& t = s.fibers[i].t;
    t.block_dim = launch.block;
    t.grid_dim = launch.grid;
    t.lane = static_cast<unsigned>(i % 32);
    t.scheduler = &s;
    t.barrier = barrierHook;
    t.warp_exchange = warpExchangeHook;
    s.warps[i / 32].lanes |= 1u << (i % 32);
  }
  stacks.get(threads - 1);
  ensureAltStack();
  struct sigaction act {
  }, old_segv{}, old_bus{};
  act.sa_sigaction = onFault;
  act.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
  sigemptyset(&act.sa_mask);
  sigaction(SIGSEGV, &act, &old_segv);
  sigaction(SIGBUS, &act, &old_bus);
  Scheduler* outer = active;
  active = &s;
  std::string error;
  for (unsigned z = 0; z < launch.grid.z && error.empty(); ++z)
    for (unsigned y = 0; y < launch.grid.y && error.empty(); ++y)
      for (unsigned x = 0; x < launch.grid.x && error.empty(); ++x) {
        error = runBlock(s, {x, y, z});
        if (!error.empty())
          error = "block (" + std::to_string(x) + "," + std::to_string(y) + "," + std::to_string(z) + "), " + error;
      }
  active = outer;
  *launch.current = nullptr;
  sigaction(SIGSEGV, &old_segv, nullptr);
  sigaction(SIGBUS, &old_bus, nullptr);
  return error;
}

}  // namespace vdla_emu
