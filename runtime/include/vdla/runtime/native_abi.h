/* The one calling convention between code that the compiler generates for a
 * CPU (target "llvm": JIT in process, or a shared library loaded with dlopen)
 * and the runtime that calls it. Plain C so that generated code, the x86-64
 * runtime and the cross-compiled ARM runtime agree on it without sharing any
 * library; the compiler emits these structures with the target's data layout.
 *
 * Every step of an artifact is one function
 *     void <symbol>(void* const* tensors, const vdla_native_ctx* ctx);
 * `tensors` holds the step's input data pointers, then its output data
 * pointers, in the step's order (NULL for a missing optional input). Shapes
 * and element types are compiled into the code. Generated code is
 * multi-threaded only through ctx->parallel_for, which the runtime implements
 * with its own thread pool, so that it links nothing.
 */
#ifndef VDLA_RUNTIME_NATIVE_ABI_H
#define VDLA_RUNTIME_NATIVE_ABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped on any incompatible change; a library exports it as the
 * int32 symbol vdla_native_abi_version. */
#define VDLA_NATIVE_ABI_VERSION 1

/* One worker's share of a parallel loop: indices [begin, end). `thread` is in
 * [0, num_threads) and selects the worker's private workspace. */
typedef void (*vdla_task_fn)(void* closure, int64_t begin, int64_t end, int64_t thread);

typedef struct vdla_native_ctx {
  void* pool;
  /* Runs task over ranges that cover [0, count) once each (a thread may be
   * called for several ranges: idle threads take over others' indices) and
   * returns when every range is done. Indices must not depend on which
   * thread runs them, beyond the private workspace `thread` selects. */
  void (*parallel_for)(void* pool, int64_t count, vdla_task_fn task, void* closure);
  /* The step's scratch memory, 64-byte aligned: first the shared part
   * (attribute "workspace_shared" bytes), then one part of
   * "workspace_thread" bytes per thread. Not zeroed. */
  uint8_t* workspace;
  int64_t num_threads;
} vdla_native_ctx;

typedef void (*vdla_step_fn)(void* const* tensors, const vdla_native_ctx* ctx);

#ifdef __cplusplus
}
#endif

#endif /* VDLA_RUNTIME_NATIVE_ABI_H */
