// Matrix products: Gemm, MatMul (numpy.matmul semantics), MatMulInteger and
// QLinearMatMul. The integer forms subtract zero points (per tensor, per row of
// A, per column of B) and accumulate exactly in int32; QLinearMatMul
// requantises with the float a_scale * b_scale / y_scale, rounding half to even;
// com.microsoft.QGemm adds an int32 C and the alpha of Gemm. Einsum contracts
// any equation (accumulating in double).
#include "common.h"
#include "vdla/runtime/einsum_equation.h"
#include "gemm.h"
#include "register.h"

namespace vdla::rt::ref {

namespace {

// numpy.matmul geometry: 1-D operands are promoted to [1,K] / [K,1].
struct MatMulGeometry {
  int64_t m, k, n;
  Shape a_batch, b_batch, batch, output;
};

MatMulGeometry resolveMatMul(const Shape& a, const Shape& b) {
  require(!a.empty() && !b.empty(), "operands must have rank >= 1");
  Shape a2 = a.size() == 1 ? Shape{1, a[0]} : a;
  Shape b2 = b.size() == 1 ? Shape{b[0], 1} : b;
  MatMulGeometry g;
  g.m = a2[a2.size() - 2];
  g.k = a2.back();
  g.n = b2.back();
  require(b2[b2.size() - 2] == g.k, "inner dimensions of " + shapeToString(a) + " and " + shapeToString(b) + " differ");
  g.a_batch.assign(a2.begin(), a2.end() - 2);
  g.b_batch.assign(b2.begin(), b2.end() - 2);
  const size_t rank = std::max(g.a_batch.size(), g.b_batch.size());
  g.batch.assign(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i + g.a_batch.size() >= rank ? g.a_batch[i + g.a_batch.size() - rank] : 1;
    const int64_t db = i + g.b_batch.size() >= rank ? g.b_batch[i + g.b_batch.size() - rank] : 1;
    require(da == db || da == 1 || db == 1,
            "batch dimensions of " + shapeToString(a) + " and " + shapeToString(b) + " do not broadcast");
    g.batch[i] = da == 1 ? db : da;
  }
  g.output = g.batch;
  if (a.size() > 1) g.output.push_back(g.m);
  if (b.size() > 1) g.output.push_back(g.n);
  return g;
}

// C[batch][M][N] = A[batch'][M][K] * B[batch''][K][N] with broadcast batches.
template <typename T>
void batchedMatMul(const MatMulGeometry& g, const T* A, const T* B, T* C) {
  std::fill_n(C, numElements(g.batch) * g.m * g.n, T(0));
  forEachBroadcast(g.batch, g.a_batch, g.b_batch, [&](int64_t i, int64_t ia, int64_t ib) {
    gemmAccumulate<T>(g.m, g.n, g.k, A + ia * g.m * g.k, g.k, B + ib * g.k * g.n, g.n, C + i * g.m * g.n, g.n);
  });
}

void matMulF32(const KernelArgs& a) {
  const Tensor& x = a.input(0);
  const Tensor& w = a.input(1);
  Tensor& y = a.output(0);
  requireDType(x, DType::F32, "input A");
  requireDType(w, DType::F32, "input B");
  MatMulGeometry g = resolveMatMul(x.shape(), w.shape());
  requireShape(y, g.output);
  batchedMatMul<float>(g, x.data<float>(), w.data<float>(), y.data<float>());
  readActivation(a.attributes()).apply(y.data<float>(), y.numElements());
}

// Row-major copy of the transpose of a [rows][cols] matrix.
std::vector<float> transposed(const float* p, int64_t rows, int64_t cols) {
  std::vector<float> t(static_cast<size_t>(rows * cols));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) t[c * rows + r] = p[r * cols + c];
  return t;
}

// Y = alpha * A' * B' + beta * C, A' = transA ? A^T : A, B' likewise.
void gemmF32(const KernelArgs& a) {
  const AttributeMap& attrs = a.attributes();
  const Tensor& ta = a.input(0);
  const Tensor& tb = a.input(1);
  Tensor& y = a.output(0);
  requireDType(ta, DType::F32, "input A");
  requireDType(tb, DType::F32, "input B");
  require(ta.rank() == 2 && tb.rank() == 2, "A and B must be 2-D");
  const bool trans_a = attrs.getInt("transA", 0) != 0, trans_b = attrs.getInt("transB", 0) != 0;
  const int64_t m = trans_a ? ta.dim(1) : ta.dim(0), k = trans_a ? ta.dim(0) : ta.dim(1);
  const int64_t n = trans_b ? tb.dim(0) : tb.dim(1);
  require((trans_b ? tb.dim(1) : tb.dim(0)) == k, "inner dimensions of A and B differ");
  requireShape(y, {m, n});
  std::vector<float> at, bt;
  const float* pa = ta.data<float>();
  const float* pb = tb.data<float>();
  if (trans_a) pa = (at = transposed(pa, k, m)).data();
  if (trans_b) pb = (bt = transposed(pb, n, k)).data();
  float* py = y.data<float>();
  std::fill_n(py, m * n, 0.0f);
  gemmAccumulate<float>(m, n, k, pa, k, pb, n, py, n);
  const float alpha = static_cast<float>(attrs.getFloat("alpha", 1.0));
  const float beta = static_cast<float>(attrs.getFloat("beta", 1.0));
  if (alpha != 1.0f)
    for (int64_t i = 0; i < m * n; ++i) py[i] *= alpha;
  if (a.hasInput(2)) {
    const Tensor& c = a.input(2);
    requireDType(c, DType::F32, "input C");
    require(c.rank() <= 2, "C must have rank <= 2");
    const float* pc = c.data<float>();
    forEachBroadcast({m, n}, {m, n}, c.shape(), [&](int64_t i, int64_t, int64_t ic) { py[i] += beta * pc[ic]; });
  }
  readActivation(attrs).apply(py, m * n);
}

// (q - zp) as int32 with zp per tensor, per row (axis -2, `rows` of them) or
// per column (axis -1) of the trailing matrix.
std::vector<int32_t> centeredMatrix(const Tensor& q, const std::vector<int32_t>& zp, bool per_row, int64_t rows,
                                    int64_t cols) {
  std::vector<int32_t> v = toInt32(q);
  if (zp.size() == 1) {
    for (auto& e : v) e -= zp[0];
  } else {
    for (size_t i = 0; i < v.size(); ++i) {
      const int64_t index = static_cast<int64_t>(i);
      v[i] -= per_row ? zp[(index / cols) % rows] : zp[index % cols];
    }
  }
  return v;
}

// int32 product of (A - a_zp) and (B - b_zp).
std::vector<int32_t> integerMatMul(const Tensor& ta, const Tensor* a_zp, const Tensor& tb, const Tensor* b_zp,
                                   MatMulGeometry* geometry) {
  require(ta.dtype() == DType::U8 || ta.dtype() == DType::I8, "input A must be u8 or i8");
  require(tb.dtype() == DType::U8 || tb.dtype() == DType::I8, "input B must be u8 or i8");
  MatMulGeometry g = resolveMatMul(ta.shape(), tb.shape());
  const std::vector<int32_t> az = readZeroPoints(a_zp, g.m, "a_zero_point");
  const std::vector<int32_t> bz = readZeroPoints(b_zp, g.n, "b_zero_point");
  const std::vector<int32_t> ac = centeredMatrix(ta, az, true, g.m, g.k);
  const std::vector<int32_t> bc = centeredMatrix(tb, bz, false, g.k, g.n);
  std::vector<int32_t> acc(static_cast<size_t>(numElements(g.batch) * g.m * g.n));
  batchedMatMul<int32_t>(g, ac.data(), bc.data(), acc.data());
  *geometry = g;
  return acc;
}

void matMulInteger(const KernelArgs& a) {
  Tensor& y = a.output(0);
  requireDType(y, DType::I32, "output Y");
  MatMulGeometry g;
  std::vector<int32_t> acc = integerMatMul(a.input(0), a.hasInput(2) ? &a.input(2) : nullptr, a.input(1),
                                           a.hasInput(3) ? &a.input(3) : nullptr, &g);
  requireShape(y, g.output);
  std::copy(acc.begin(), acc.end(), y.data<int32_t>());
}

void qlinearMatMul(const KernelArgs& a) {
  Tensor& y = a.output(0);
  MatMulGeometry g;
  std::vector<int32_t> acc = integerMatMul(a.input(0), a.hasInput(2) ? &a.input(2) : nullptr, a.input(3),
                                           a.hasInput(5) ? &a.input(5) : nullptr, &g);
  requireShape(y, g.output);
  const std::vector<float> a_scale = readScales(a.input(1), g.m, "a_scale");
  const std::vector<float> b_scale = readScales(a.input(4), g.n, "b_scale");
  const std::vector<float> y_scale = readScales(a.input(6), g.m, "y_scale");
  const std::vector<int32_t> y_zp = readZeroPoints(a.hasInput(7) ? &a.input(7) : nullptr, g.m, "y_zero_point");
  if (a.hasInput(7)) require(a.input(7).dtype() == y.dtype(), "y_zero_point's type must be the output's");
  for (size_t i = 0; i < acc.size(); ++i) {
    const int64_t row = (static_cast<int64_t>(i) / g.n) % g.m, col = static_cast<int64_t>(i) % g.n;
    const float scale = param(a_scale, row) * param(b_scale, col) / param(y_scale, row);
    storeQuantized(y, static_cast<int64_t>(i), static_cast<float>(acc[i]) * scale, param(y_zp, row));
  }
}

// com.microsoft.QGemm as onnxruntime computes it (contrib_ops quant_gemm.cc):
// acc = C + sum (a - a_zp)(b - b_zp) in int32; scale[n] = alpha * a_scale *
// b_scale[n] (then / y_scale) in float; quantised y = sat(round_half_even(acc *
// scale) + y_zp), float y = acc * scale.
void qgemm(const KernelArgs& a) {
  const AttributeMap& attrs = a.attributes();
  const Tensor& ta = a.input(0);
  const Tensor& tb = a.input(3);
  Tensor& y = a.output(0);
  require(ta.rank() == 2 && tb.rank() == 2, "A and B must be 2-D");
  require(ta.dtype() == DType::U8 || ta.dtype() == DType::I8, "input A must be u8 or i8");
  require(tb.dtype() == DType::U8 || tb.dtype() == DType::I8, "input B must be u8 or i8");
  const bool trans_a = attrs.getInt("transA", 0) != 0, trans_b = attrs.getInt("transB", 0) != 0;
  const int64_t m = trans_a ? ta.dim(1) : ta.dim(0), k = trans_a ? ta.dim(0) : ta.dim(1);
  const int64_t n = trans_b ? tb.dim(0) : tb.dim(1);
  require((trans_b ? tb.dim(1) : tb.dim(0)) == k, "inner dimensions of A and B differ");
  requireShape(y, {m, n});
  const float a_scale = readScales(a.input(1), 1, "a_scale")[0];
  const int32_t a_zp = readZeroPoints(a.hasInput(2) ? &a.input(2) : nullptr, 1, "a_zero_point")[0];
  const std::vector<float> b_scale = readScales(a.input(4), n, "b_scale");
  const std::vector<int32_t> b_zp = readZeroPoints(a.hasInput(5) ? &a.input(5) : nullptr, n, "b_zero_point");
  const std::vector<int32_t> qa = toInt32(ta), qb = toInt32(tb);
  // (a - a_zp) as [M][K] and (b - b_zp) as [K][N].
  std::vector<int32_t> ac(static_cast<size_t>(m * k)), bc(static_cast<size_t>(k * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t p = 0; p < k; ++p) ac[i * k + p] = qa[trans_a ? p * m + i : i * k + p] - a_zp;
  for (int64_t p = 0; p < k; ++p)
    for (int64_t j = 0; j < n; ++j) bc[p * n + j] = qb[trans_b ? j * k + p : p * n + j] - param(b_zp, j);
  std::vector<int32_t> acc(static_cast<size_t>(m * n), 0);
  if (a.hasInput(6)) {
    const Tensor& c = a.input(6);
    requireDType(c, DType::I32, "input C");
    require(c.rank() <= 2, "C must have rank <= 2");
    const int32_t* pc = c.data<int32_t>();
    forEachBroadcast({m, n}, {m, n}, c.shape(), [&](int64_t i, int64_t, int64_t ic) { acc[i] = pc[ic]; });
  }
  gemmAccumulate<int32_t>(m, n, k, ac.data(), k, bc.data(), n, acc.data(), n);
  const float alpha = static_cast<float>(attrs.getFloat("alpha", 1.0));
  const bool quantised = a.hasInput(7);
  const float y_scale = quantised ? readScales(a.input(7), 1, "y_scale")[0] : 1.0f;
  std::vector<float> scale(b_scale.size());
  for (size_t j = 0; j < scale.size(); ++j) {
    scale[j] = alpha * a_scale * b_scale[j];
    if (quantised) scale[j] /= y_scale;
  }
  if (quantised) {
    require(y.dtype() == ta.dtype(), "a quantised output Y must have A's type");
    const int32_t y_zp = readZeroPoints(a.hasInput(8) ? &a.input(8) : nullptr, 1, "y_zero_point")[0];
    for (int64_t i = 0; i < m * n; ++i) storeQuantized(y, i, static_cast<float>(acc[i]) * param(scale, i % n), y_zp);
  } else {
    requireDType(y, DType::F32, "output Y");
    float* py = y.data<float>();
    for (int64_t i = 0; i < m * n; ++i) py[i] = static_cast<float>(acc[i]) * param(scale, i % n);
  }
}

// Einsum: every output element sums, over the contracted labels, the product
// of one element of each operand. A label repeated in one operand (a diagonal)
// adds its strides; an ellipsis dimension of extent 1 broadcasts (stride 0).
void einsum(const KernelArgs& a) {
  std::vector<Shape> shapes;
  for (size_t i = 0; i < a.inputs.size(); ++i) {
    const std::string what = "operand " + std::to_string(i);
    requireDType(a.input(i), DType::F32, what.c_str());
    shapes.push_back(a.input(i).shape());
  }
  const EinsumEquation e = resolveEinsum(a.attributes().getString("equation"), shapes);
  Tensor& y = a.output(0);
  requireDType(y, DType::F32, "output");
  requireShape(y, e.outputShape());
  const size_t labels = e.extents.size(), n = a.inputs.size();
  std::vector<std::vector<int64_t>> stride(n, std::vector<int64_t>(labels, 0));
  for (size_t i = 0; i < n; ++i) {
    int64_t s = 1;
    for (size_t d = shapes[i].size(); d-- > 0;) {
      const size_t l = static_cast<size_t>(e.operands[i][d]);
      if (!(shapes[i][d] == 1 && e.extents[l] != 1)) stride[i][l] += s;
      s *= shapes[i][d];
    }
  }
  std::vector<const float*> data(n);
  for (size_t i = 0; i < n; ++i) data[i] = a.input(i).data<float>();
  int64_t summed_count = 1;
  for (int l : e.summed) summed_count *= e.extents[static_cast<size_t>(l)];
  std::vector<int64_t> base(n), offset(n), count(e.summed.size());
  float* out = y.data<float>();
  const int64_t outputs = y.numElements();
  for (int64_t o = 0; o < outputs; ++o) {
    // The output element's position: its labels in row-major order.
    std::fill(base.begin(), base.end(), 0);
    for (int64_t rest = o, k = static_cast<int64_t>(e.output.size()) - 1; k >= 0; --k) {
      const size_t l = static_cast<size_t>(e.output[static_cast<size_t>(k)]);
      const int64_t v = rest % e.extents[l];
      rest /= e.extents[l];
      for (size_t i = 0; i < n; ++i) base[i] += v * stride[i][l];
    }
    offset = base;
    std::fill(count.begin(), count.end(), 0);
    double acc = 0;
    for (int64_t t = 0; t < summed_count; ++t) {
      double p = 1;
      for (size_t i = 0; i < n; ++i) p *= static_cast<double>(data[i][offset[i]]);
      acc += p;
      // Next contracted position: an odometer over the summed labels, last fastest.
      for (size_t k = e.summed.size(); k-- > 0;) {
        const size_t l = static_cast<size_t>(e.summed[k]);
        for (size_t i = 0; i < n; ++i) offset[i] += stride[i][l];
        if (++count[k] < e.extents[l]) break;
        for (size_t i = 0; i < n; ++i) offset[i] -= stride[i][l] * e.extents[l];
        count[k] = 0;
      }
    }
    out[o] = static_cast<float>(acc);
  }
}

}  // namespace

void registerMatMul(KernelRegistry& r) {
  r.add("ref.Einsum", einsum);
  r.add("ref.Gemm", gemmF32);
  r.add("ref.MatMul", matMulF32);
  r.add("ref.MatMulInteger", matMulInteger);
  r.add("ref.QLinearMatMul", qlinearMatMul);
  r.add("ref.com.microsoft.QGemm", qgemm);
}

}  // namespace vdla::rt::ref
