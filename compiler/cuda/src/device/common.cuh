// Device helpers shared by every generated kernel. The generator prepends the
// device library (these .cuh files, embedded at build time) to the translation
// unit it hands to NVRTC, so they may use only what NVRTC offers without a
// host standard library: builtins, math functions and templates.
//
// Shapes are compile-time constants of a per-step parameter struct `P`, so
// every division by a dimension is by a constant the compiler strength-reduces.
// Indices are 32-bit: the generator refuses tensors of 2^31 elements or more.

namespace vdla {

// Fused activations (Conv, Gemm, Add): kind 0 none, 1 Relu, 2 Clip. Clip's
// bounds are optional (an infinite bound in the graph is "absent" here), so
// that no infinity literal is needed.
// Applies the activation described by P::act_kind/act_has_lo/... (the
// generator emits them as static constexpr members of the step's struct).
template <class P>
__device__ __forceinline__ float activate(float v) {
  if (P::act_kind == 1) return v > 0.0f ? v : 0.0f;
  if (P::act_kind == 2) {
    if (P::act_has_lo) v = v < P::act_lo ? P::act_lo : v;
    if (P::act_has_hi) v = v > P::act_hi ? P::act_hi : v;
  }
  return v;
}

// The second activation of a fused residual Add (Conv -> Add{activation}).
template <class P>
__device__ __forceinline__ float activate2(float v) {
  if (P::act2_kind == 1) return v > 0.0f ? v : 0.0f;
  return v;
}

// Sliding windows (convolution, pooling) are 3-D: D, H, W, OD, OH, OW, KD,
// KH, KW, SD, SH, SW, PD, PH, PW (begin pads), DD, DH, DW in P, unit depth for
// 2-D ones. The window of output position p (within one plane) starts at
// input coordinates (id0, ih0, iw0), padding included.
template <class P>
struct WindowOrigin {
  int id0, ih0, iw0;
  __device__ __forceinline__ explicit WindowOrigin(int p) {
    const int od = p / (P::OH * P::OW);
    const int r = p - od * (P::OH * P::OW);
    const int oh = r / P::OW;
    const int ow = r - oh * P::OW;
    id0 = od * P::SD - P::PD;
    ih0 = oh * P::SH - P::PH;
    iw0 = ow * P::SW - P::PW;
  }
};

__device__ __forceinline__ int globalThread() { return blockIdx.x * blockDim.x + threadIdx.x; }
__device__ __forceinline__ int gridThreads() { return gridDim.x * blockDim.x; }

// Warp-wide reductions (all 32 lanes take part).
__device__ __forceinline__ float warpSum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
__device__ __forceinline__ float warpMax(float v) {
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

}  // namespace vdla
