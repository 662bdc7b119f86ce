// Gemm and MatMul steps, both on vdla::matmul (device/gemm.cuh) with strides.
#include <algorithm>

#include "kernel_spec.h"

namespace vdla::cuda {

namespace {

std::string common(int64_t m, int64_t n, int64_t kd, int64_t a_sm, int64_t a_sk, int64_t b_sk, int64_t b_sn) {
  return constant("M", m) + constant("N", n) + constant("K", kd) + constant("a_sm", a_sm) + constant("a_sk", a_sk) +
         constant("b_sk", b_sk) + constant("b_sn", b_sn);
}

void tileLaunch(KernelSpec& k, int64_t m, int64_t n, int64_t batch) {
  k.block[0] = 256;
  k.grid[0] = ceilDiv(n, 32);
  k.grid[1] = ceilDiv(m, 32);
  k.grid[2] = batch;
}

void emitGemm(const StepContext& ctx, KernelSpec& k) {
  const rt::Shape& as = ctx.input(0).type.shape;
  const rt::Shape& bs = ctx.input(1).type.shape;
  ctx.requireF32(ctx.input(0), "input A");
  ctx.requireF32(ctx.input(1), "input B");
  ctx.requireF32(ctx.output(0), "output Y");
  ctx.require(as.size() == 2 && bs.size() == 2, "A and B must be matrices");
  const bool ta = ctx.attrs().getInt("transA", 0) != 0, tb = ctx.attrs().getInt("transB", 0) != 0;
  const int64_t m = ta ? as[1] : as[0], kd = ta ? as[0] : as[1];
  const int64_t n = tb ? bs[0] : bs[1];
  ctx.require((tb ? bs[1] : bs[0]) == kd, "inner dimensions of A and B differ");
  ctx.require(ctx.output(0).type.shape == rt::Shape({m, n}), "output shape is not [M, N]");
  std::string p = common(m, n, kd, ta ? 1 : kd, ta ? m : 1, tb ? 1 : n, tb ? kd : 1);
  p += constant("batch_rank", 0) + intArray("bdims", {}) + intArray("a_bstr", {}) + intArray("b_bstr", {});
  const bool has_c = ctx.hasInput(2);
  int64_t c_sm = 0, c_sn = 0;
  if (has_c) {
    ctx.requireF32(ctx.input(2), "input C");
    const rt::Shape& cs = ctx.input(2).type.shape;
    ctx.require(cs.size() <= 2, "C must have rank <= 2");
    // Unidirectional broadcast of C to [M, N]: strides 0 on size-1 (or absent) dims.
    const int64_t cm = cs.size() == 2 ? cs[0] : 1, cn = cs.empty() ? 1 : cs.back();
    ctx.require((cm == 1 || cm == m) && (cn == 1 || cn == n),
                "C " + rt::shapeToString(cs) + " does not broadcast to [M, N]");
    c_sn = cn == 1 ? 0 : 1;
    c_sm = cm == 1 ? 0 : cn;
  }
  p += constantB("has_c", has_c) + constant("c_sm", c_sm) + constant("c_sn", c_sn);
  p += constantF("alpha", ctx.attrs().getFloat("alpha", 1.0)) + constantF("beta", ctx.attrs().getFloat("beta", 1.0));
  p += activationParams(ctx);
  k.params = p;
  k.args = {"const float* __restrict__ a", "const float* __restrict__ b"};
  if (has_c) k.args.push_back("const float* __restrict__ c");
  k.args.push_back("float* __restrict__ y");
  k.body = std::string("vdla::matmul<P>(a, b, ") + (has_c ? "c" : "nullptr") + ", y);";
  tileLaunch(k, m, n, 1);
}

void emitMatMulOp(const StepContext& ctx, KernelSpec& k) {
  ctx.requireF32(ctx.input(0), "input A");
  ctx.requireF32(ctx.input(1), "input B");
  ctx.requireF32(ctx.output(0), "output Y");
  rt::Shape as = ctx.input(0).type.shape, bs = ctx.input(1).type.shape;
  ctx.require(!as.empty() && !bs.empty(), "MatMul operands must have rank >= 1");
  // Rank-1 operands are promoted (A to [1, K], B to [K, 1]); dropping those
  // unit dimensions again does not move any element of the output.
  if (as.size() == 1) as.insert(as.begin(), 1);
  if (bs.size() == 1) bs.push_back(1);
  const int64_t m = as[as.size() - 2], kd = as.back(), n = bs.back();
  ctx.require(bs[bs.size() - 2] == kd, "inner dimensions of A and B differ");
  const size_t rank = std::max(as.size(), bs.size()) - 2;
  std::vector<int64_t> bdims(rank), a_bstr(rank), b_bstr(rank);
  const std::vector<int64_t> a_str = rt::rowMajorStrides(as), b_str = rt::rowMajorStrides(bs);
  int64_t batch = 1;
  for (size_t d = 0; d < rank; ++d) {
    // Dimension d of the output batch, aligned from the right with each operand's batch dims.
    const int64_t ad = static_cast<int64_t>(d) - static_cast<int64_t>(rank - (as.size() - 2));
    const int64_t bd = static_cast<int64_t>(d) - static_cast<int64_t>(rank - (bs.size() - 2));
    const int64_t asz = ad >= 0 ? as[ad] : 1, bsz = bd >= 0 ? bs[bd] : 1;
    ctx.require(asz == bsz || asz == 1 || bsz == 1, "batch dimensions of A and B do not broadcast");
    bdims[d] = std::max(asz, bsz);
    a_bstr[d] = asz == 1 ? 0 : a_str[ad];
    b_bstr[d] = bsz == 1 ? 0 : b_str[bd];
    batch *= bdims[d];
  }
  ctx.require(rt::numElements(ctx.output(0).type.shape) == batch * m * n, "output has the wrong number of elements");
  ctx.require(batch <= 65535, "more than 65535 matrices in one MatMul");
  std::string p = common(m, n, kd, kd, 1, n, 1);
  p += constant("batch_rank", static_cast<int64_t>(rank)) + intArray("bdims", bdims) + intArray("a_bstr", a_bstr) +
       intArray("b_bstr", b_bstr);
  p += constantB("has_c", false) + constant("c_sm", 0) + constant("c_sn", 0) + constantF("alpha", 1.0) +
       constantF("beta", 0.0) + activationParams(ctx);
  k.params = p;
  k.args = {"const float* __restrict__ a", "const float* __restrict__ b", "float* __restrict__ y"};
  k.body = "vdla::matmul<P>(a, b, nullptr, y);";
  tileLaunch(k, m, n, batch);
}

}  // namespace

bool emitMatMul(const StepContext& ctx, KernelSpec& k) {
  if (ctx.op == "Gemm")
    emitGemm(ctx, k);
  else if (ctx.op == "MatMul")
    emitMatMulOp(ctx, k);
  else
    return false;
  return true;
}

}  // namespace vdla::cuda
