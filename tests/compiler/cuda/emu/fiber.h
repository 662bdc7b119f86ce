// Fibers for the emulated GPU threads: a stack and a saved stack pointer,
// switched without a system call. (ucontext's swapcontext saves the signal
// mask with a system call on every switch, which dominated the emulation's
// run time: a convolution switches threads at every K step.) x86-64 has a
// hand-written switch; other hosts use ucontext.
#pragma once

#include <cstddef>

#if !defined(__x86_64__)
#include <ucontext.h>
#endif

namespace vdla_emu {

struct FiberContext {
#if defined(__x86_64__)
  void* sp = nullptr;
#else
  ucontext_t uc;
#endif
};

// Makes `f` start `entry` (which must never return) on [stack, stack + bytes).
void makeFiber(FiberContext& f, char* stack, size_t bytes, void (*entry)());
// Saves the running context in `from` and continues `to`.
void switchFiber(FiberContext& from, FiberContext& to);
// From a signal handler that interrupted a fiber: makes the handler's return
// continue in `entry` (which must never return) on [stack, stack + bytes)
// instead of at the fault.
void redirectAfterSignal(void* signal_ucontext, char* stack, size_t bytes, void (*entry)());

}  // namespace vdla_emu
