#include "fiber.h"

#include <cstdint>

#if defined(__x86_64__)
#include <ucontext.h>  // the signal context's registers
#endif

namespace vdla_emu {

#if defined(__x86_64__)

extern "C" void vdlaEmuSwitch(void** save_sp, void* new_sp);

// System V: rbx, rbp, r12-r15 are callee-saved; everything else the caller
// of switchFiber has given up by calling it.
asm(R"(
  .text
  .globl vdlaEmuSwitch
  .hidden vdlaEmuSwitch
  .type vdlaEmuSwitch, @function
vdlaEmuSwitch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size vdlaEmuSwitch, .-vdlaEmuSwitch
)");

void makeFiber(FiberContext& f, char* stack, size_t bytes, void (*entry)()) {
  // The top, 16-byte aligned: a zero return address for `entry`, `entry`
  // itself for vdlaEmuSwitch's ret, six zero registers below. After the ret
  // the stack is aligned as at any function's entry (rsp + 8 a multiple of 16).
  auto* top = reinterpret_cast<uint64_t*>((reinterpret_cast<uintptr_t>(stack + bytes)) & ~uintptr_t{15});
  top[-1] = 0;
  top[-2] = reinterpret_cast<uint64_t>(entry);
  for (int i = 3; i <= 8; ++i) top[-i] = 0;
  f.sp = top - 8;
}

void switchFiber(FiberContext& from, FiberContext& to) { vdlaEmuSwitch(&from.sp, to.sp); }

void redirectAfterSignal(void* signal_ucontext, char* stack, size_t bytes, void (*entry)()) {
  auto* uc = static_cast<ucontext_t*>(signal_ucontext);
  const uintptr_t top = reinterpret_cast<uintptr_t>(stack + bytes) & ~uintptr_t{15};
  uc->uc_mcontext.gregs[REG_RSP] = static_cast<greg_t>(top - 8);
  uc->uc_mcontext.gregs[REG_RIP] = static_cast<greg_t>(reinterpret_cast<uintptr_t>(entry));
}

#else

void makeFiber(FiberContext& f, char* stack, size_t bytes, void (*entry)()) {
  getcontext(&f.uc);
  f.uc.uc_stack.ss_sp = stack;
  f.uc.uc_stack.ss_size = bytes;
  f.uc.uc_link = nullptr;
  makecontext(&f.uc, entry, 0);
}

void switchFiber(FiberContext& from, FiberContext& to) { swapcontext(&from.uc, &to.uc); }

void redirectAfterSignal(void*, char* stack, size_t bytes, void (*entry)()) {
  // Leaving a handler through setcontext works with glibc on these hosts.
  static thread_local FiberContext exit_ctx;
  makeFiber(exit_ctx, stack, bytes, entry);
  setcontext(&exit_ctx.uc);
}

#endif

}  // namespace vdla_emu
