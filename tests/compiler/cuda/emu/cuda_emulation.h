// Force-included (g++ -include) when the tests compile a model's generated
// CUDA C++ for the host: it maps the CUDA language onto C++ run by the
// emulated driver, one emulated GPU thread at a time (emulated_driver.cpp,
// block_scheduler.cpp).
//
// * threadIdx/blockIdx/blockDim/gridDim read the running thread's record.
// * __shared__ is static storage: the blocks of a grid run one after another,
//   so it is shared by exactly the threads of the running block. (It is
//   not poisoned between blocks: the compiler ignores section attributes on
//   the local statics of templates, so they cannot be found.)
// * __syncthreads() and the warp shuffles/votes switch to the scheduler,
//   which resumes the threads once every participant has arrived.
// * Math functions are the host's (libm, correctly rounded or close); the
//   fast intrinsics (__expf, ...) are computed exactly, which is within
//   their documented error.
// The tensor-core path (<mma.h>, WMMA) is not emulated.
#pragma once

#include "emu_abi.h"

// The C math functions the kernels may call, declared here rather than
// through <math.h>: in C++ that pulls in <cmath>, which doubled the time to
// compile a small model's kernels (the tests compile one object per model).
extern "C" {
#define VDLA_EMU_MATH1(name)     \
  float name##f(float) noexcept; \
  double name(double) noexcept;
#define VDLA_EMU_MATH2(name)            \
  float name##f(float, float) noexcept; \
  double name(double, double) noexcept;
// clang-format off (a list of declarations, one macro per function)
VDLA_EMU_MATH1(exp)
VDLA_EMU_MATH1(exp2)
VDLA_EMU_MATH1(expm1)
VDLA_EMU_MATH1(log)
VDLA_EMU_MATH1(log2)
VDLA_EMU_MATH1(log1p)
VDLA_EMU_MATH1(sqrt)
VDLA_EMU_MATH1(cbrt)
VDLA_EMU_MATH1(sin)
VDLA_EMU_MATH1(cos)
VDLA_EMU_MATH1(tan)
VDLA_EMU_MATH1(tanh)
VDLA_EMU_MATH1(sinh)
VDLA_EMU_MATH1(cosh)
VDLA_EMU_MATH1(asin)
VDLA_EMU_MATH1(acos)
VDLA_EMU_MATH1(atan)
VDLA_EMU_MATH1(erf)
VDLA_EMU_MATH1(fabs)
VDLA_EMU_MATH1(floor)
VDLA_EMU_MATH1(ceil)
VDLA_EMU_MATH1(trunc)
VDLA_EMU_MATH1(round)
VDLA_EMU_MATH1(rint)
VDLA_EMU_MATH1(nearbyint)
VDLA_EMU_MATH2(pow)
VDLA_EMU_MATH2(fmax)
VDLA_EMU_MATH2(fmin)
VDLA_EMU_MATH2(fmod)
VDLA_EMU_MATH2(atan2)
VDLA_EMU_MATH2(copysign)
// clang-format on
float fmaf(float, float, float) noexcept;
double fma(double, double, double) noexcept;
#undef VDLA_EMU_MATH1
#undef VDLA_EMU_MATH2
}
inline bool isnan(float v) { return __builtin_isnan(v); }
inline bool isnan(double v) { return __builtin_isnan(v); }
inline bool isinf(float v) { return __builtin_isinf(v); }
inline bool isinf(double v) { return __builtin_isinf(v); }
inline bool isfinite(float v) { return __builtin_isfinite(v); }
inline bool isfinite(double v) { return __builtin_isfinite(v); }
inline bool signbit(float v) { return __builtin_signbit(v); }

#define VDLA_EMU_EXPORT __attribute__((visibility("default")))

// The running thread; set by the driver through dlsym before each switch.
extern "C" VDLA_EMU_EXPORT VdlaEmuThread* vdla_emu_current;
VdlaEmuThread* vdla_emu_current = nullptr;

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline __attribute__((always_inline))
#define __launch_bounds__(...)
#define __shared__ static
#define __align__(n) __attribute__((aligned(n)))

struct uint3 {
  unsigned x, y, z;
};
using dim3 = uint3;
// CUDA's vector type, with its 16-byte alignment (a misaligned float4 access
// faults on the GPU; here the guard checks catch what lies outside a buffer).
struct alignas(16) float4 {
  float x, y, z, w;
};

#define threadIdx (*reinterpret_cast<const uint3*>(&vdla_emu_current->thread_idx))
#define blockIdx (*reinterpret_cast<const uint3*>(&vdla_emu_current->block_idx))
#define blockDim (*reinterpret_cast<const uint3*>(&vdla_emu_current->block_dim))
#define gridDim (*reinterpret_cast<const uint3*>(&vdla_emu_current->grid_dim))
#define warpSize 32

#define __syncthreads() vdla_emu_current->barrier(vdla_emu_current, __LINE__)

namespace vdla_emu {

template <class T>
uint64_t toBits(T v) {
  static_assert(sizeof(T) <= 8 && __is_trivially_copyable(T), "a shuffled value is at most 8 bytes");
  uint64_t b = 0;
  __builtin_memcpy(&b, &v, sizeof(T));
  return b;
}
template <class T>
T fromBits(uint64_t b) {
  T v;
  __builtin_memcpy(&v, &b, sizeof(T));
  return v;
}
inline const uint64_t* exchange(unsigned mask, uint64_t v, int line) {
  return vdla_emu_current->warp_exchange(vdla_emu_current, mask, v, line);
}
// The lane a shuffle reads within a sub-warp of `width` lanes; out-of-range
// sources read the caller's own value, as on the GPU.
inline unsigned laneOf(unsigned self, int src, int width) {
  const unsigned base = self & ~unsigned(width - 1);
  return (src < 0 || src >= width) ? self : base + unsigned(src);
}

}  // namespace vdla_emu

template <class T>
T vdlaEmuShflXor(unsigned mask, T v, int lane_mask, int width, int line) {
  const uint64_t* all = vdla_emu::exchange(mask, vdla_emu::toBits(v), line);
  const unsigned self = vdla_emu_current->lane;
  const unsigned src = self ^ unsigned(lane_mask);
  // A source outside the caller's sub-warp reads the caller's own value.
  return vdla_emu::fromBits<T>(all[(src & ~unsigned(width - 1)) == (self & ~unsigned(width - 1)) ? src : self]);
}
template <class T>
T vdlaEmuShflDown(unsigned mask, T v, unsigned delta, int width, int line) {
  const uint64_t* all = vdla_emu::exchange(mask, vdla_emu::toBits(v), line);
  const unsigned self = vdla_emu_current->lane;
  const int src = int(self % unsigned(width)) + int(delta);
  return vdla_emu::fromBits<T>(all[vdla_emu::laneOf(self, src, width)]);
}
template <class T>
T vdlaEmuShflUp(unsigned mask, T v, unsigned delta, int width, int line) {
  const uint64_t* all = vdla_emu::exchange(mask, vdla_emu::toBits(v), line);
  const unsigned self = vdla_emu_current->lane;
  const int src = int(self % unsigned(width)) - int(delta);
  return vdla_emu::fromBits<T>(all[vdla_emu::laneOf(self, src, width)]);
}
template <class T>
T vdlaEmuShfl(unsigned mask, T v, int src, int width, int line) {
  const uint64_t* all = vdla_emu::exchange(mask, vdla_emu::toBits(v), line);
  const unsigned self = vdla_emu_current->lane;
  return vdla_emu::fromBits<T>(all[(self & ~unsigned(width - 1)) + unsigned(src % width)]);
}
inline unsigned vdlaEmuBallot(unsigned mask, bool pred, int line) {
  const uint64_t* all = vdla_emu::exchange(mask, pred ? 1 : 0, line);
  unsigned bits = 0;
  for (unsigned l = 0; l < 32; ++l)
    if ((mask >> l & 1u) && all[l]) bits |= 1u << l;
  return bits;
}

#define __shfl_xor_sync(mask, v, lane_mask, ...) vdlaEmuShflXor(mask, v, lane_mask, vdlaEmuWidth(__VA_ARGS__), __LINE__)
#define __shfl_down_sync(mask, v, delta, ...) vdlaEmuShflDown(mask, v, delta, vdlaEmuWidth(__VA_ARGS__), __LINE__)
#define __shfl_up_sync(mask, v, delta, ...) vdlaEmuShflUp(mask, v, delta, vdlaEmuWidth(__VA_ARGS__), __LINE__)
#define __shfl_sync(mask, v, src, ...) vdlaEmuShfl(mask, v, src, vdlaEmuWidth(__VA_ARGS__), __LINE__)
#define __ballot_sync(mask, pred) vdlaEmuBallot(mask, (pred), __LINE__)
#define __any_sync(mask, pred) (vdlaEmuBallot(mask, (pred), __LINE__) != 0u)
#define __all_sync(mask, pred) (vdlaEmuBallot(mask, (pred), __LINE__) == (mask))
inline int vdlaEmuWidth() { return 32; }
inline int vdlaEmuWidth(int w) { return w; }

// Integer min/max are device functions in CUDA (no std:: needed there).
inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
inline unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
inline unsigned max(unsigned a, unsigned b) { return a > b ? a : b; }
inline long long min(long long a, long long b) { return a < b ? a : b; }
inline long long max(long long a, long long b) { return a > b ? a : b; }
inline float min(float a, float b) { return fminf(a, b); }
inline float max(float a, float b) { return fmaxf(a, b); }

// Intrinsics: bit casts, conversions with a named rounding, fast math.
inline float __int_as_float(int v) { return vdla_emu::fromBits<float>(static_cast<uint32_t>(v)); }
inline int __float_as_int(float v) { return static_cast<int>(static_cast<uint32_t>(vdla_emu::toBits(v))); }
inline float __uint_as_float(unsigned v) { return vdla_emu::fromBits<float>(v); }
inline unsigned __float_as_uint(float v) { return static_cast<uint32_t>(vdla_emu::toBits(v)); }
inline int __float2int_rn(float v) { return static_cast<int>(nearbyintf(v)); }
inline int __float2int_rz(float v) { return static_cast<int>(truncf(v)); }
inline int __float2int_rd(float v) { return static_cast<int>(floorf(v)); }
inline int __float2int_ru(float v) { return static_cast<int>(ceilf(v)); }
inline float __int2float_rn(int v) { return static_cast<float>(v); }
inline float __expf(float v) { return expf(v); }
inline float __logf(float v) { return logf(v); }
inline float __powf(float a, float b) { return powf(a, b); }
inline float __fdividef(float a, float b) { return a / b; }
inline float __frcp_rn(float v) { return 1.0f / v; }
inline float __fsqrt_rn(float v) { return sqrtf(v); }
inline float __saturatef(float v) { return v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v); }
inline float rsqrtf(float v) { return 1.0f / sqrtf(v); }
inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
// Single operations rounded to nearest: never contracted with a neighbour.
// The host compiler contracts only within an expression, and these are calls.
__attribute__((noinline)) inline float __fadd_rn(float a, float b) { return a + b; }
__attribute__((noinline)) inline float __fsub_rn(float a, float b) { return a - b; }
__attribute__((noinline)) inline float __fmul_rn(float a, float b) { return a * b; }
__attribute__((noinline)) inline float __fdiv_rn(float a, float b) { return a / b; }

// The host entry of one kernel: unpacks cuLaunchKernel's parameter array into
// the kernel's arguments (each params[i] points to the argument's value).
namespace vdla_emu {

// (<utility> and <type_traits> would cost compile time; these are small.)
template <unsigned... I>
struct Indices {};
template <unsigned N, unsigned... I>
struct MakeIndices : MakeIndices<N - 1, N - 1, I...> {};
template <unsigned... I>
struct MakeIndices<0, I...> {
  using type = Indices<I...>;
};
template <class T>
constexpr bool pointsToConst(T*) {
  return false;
}
template <class T>
constexpr bool pointsToConst(const T*) {
  return true;
}

template <class... A, unsigned... I>
void callWith(void (*kernel)(A...), void** params, Indices<I...>) {
  kernel(*static_cast<A*>(params[I])...);
}
template <class... A>
void call(void (*kernel)(A...), void** params) {
  callWith(kernel, params, typename MakeIndices<sizeof...(A)>::type{});
}
template <class... A>
constexpr int numArgs(void (*)(A...)) {
  return static_cast<int>(sizeof...(A));
}
template <class... A>
constexpr unsigned readOnlyMask(void (*)(A...)) {
  unsigned mask = 0, bit = 0;
  ((mask |= (pointsToConst(A{}) ? 1u << bit : 0u), ++bit), ...);
  return mask;
}

}  // namespace vdla_emu

// Emitted by the code generator after each kernel, under VDLA_CUDA_EMULATION,
// with the byte size of each argument's tensor.
#define VDLA_EMU_KERNEL(name, ...)                                                                                \
  static const long long name##__emu_bytes[] = {__VA_ARGS__};                                                     \
  static void name##__emu_run(void** params) { vdla_emu::call(name, params); }                                    \
  extern "C" VDLA_EMU_EXPORT const VdlaEmuKernel name##__emu = {name##__emu_run, vdla_emu::numArgs(name),         \
                                                                name##__emu_bytes, vdla_emu::readOnlyMask(name)}; \
  static_assert(sizeof(name##__emu_bytes) / sizeof(long long) == vdla_emu::numArgs(name),                         \
                "the code generator's argument sizes do not match the kernel's arguments");
