#include "cuda_compare.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "cuda_test_target.h"
#include "vdla/compiler/compile.h"

namespace vdla::cuda::testing {

double scaledError(const rt::Tensor& got, const rt::Tensor& want) {
  if (got.dtype() != rt::DType::F32) {
    for (int64_t i = 0; i < want.numElements(); ++i)
      if (std::memcmp(static_cast<const char*>(got.raw()) + i * rt::dtypeSize(got.dtype()),
                      static_cast<const char*>(want.raw()) + i * rt::dtypeSize(want.dtype()),
                      rt::dtypeSize(got.dtype())))
        return 1.0;
    return 0.0;
  }
  double max_err = 0, scale = 1e-6;
  for (int64_t i = 0; i < want.numElements(); ++i) {
    const double w = want.data<float>()[i], g = got.data<float>()[i];
    if (std::isnan(w) && std::isnan(g)) continue;
    max_err = std::max(max_err, std::fabs(g - w));
    if (std::isnan(g) != std::isnan(w)) max_err = INFINITY;
    scale = std::max(scale, std::fabs(w));
  }
  return max_err / scale;
}

void expectClose(const std::vector<rt::Tensor>& got, const std::vector<rt::Tensor>& want, double tol,
                 const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i].shape(), want[i].shape()) << what;
    EXPECT_LE(scaledError(got[i], want[i]), tol) << what << " output " << i;
  }
}

rt::Artifact compileCuda(ir::Graph& g, bool optimize, bool tf32) {
  CompileOptions o;
  o.target = "cuda";
  o.optimize = optimize;
  o.cuda.tf32_tensor_cores = tf32;
  rt::Artifact a = compileGraph(g, o);
  prepareArtifact(a);
  return a;
}

}  // namespace vdla::cuda::testing
