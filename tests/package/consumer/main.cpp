// Uses the installed toolkit from outside it: builds the zoo's ResNet-18 at a
// small input size, compiles it for the reference executor and for the CPU
// back end (LLVM), runs both on the same seeded input and checks that the
// logits agree; then compiles it for the accelerator and runs it on the
// functional simulator, checking its class scores against the fp32 ones.
#include <cmath>
#include <cstdio>
#include <memory>

#include "vdla/api/model_source.h"
#include "vdla/api/version.h"
#include "vdla/compiler/compile.h"
#include "vdla/compiler/synthetic_input.h"
#include "vdla/driver/device.h"
#include "vdla/runtime/executor.h"

namespace {

vdla::rt::Tensor runOnce(const char* target, const vdla::rt::Tensor& input, vdla::driver::Device* device) {
  vdla::api::ModelOptions mo;
  mo.image_size = 64;
  std::unique_ptr<vdla::ir::Graph> graph = vdla::api::loadModelGraph("resnet18", vdla::api::ModelKind::Zoo, mo);
  vdla::CompileOptions co;
  co.target = target;
  co.hw_config = "tiny";
  vdla::CompileReport report;
  const vdla::rt::Artifact artifact = vdla::compileGraph(*graph, co, &report);
  vdla::rt::ExecutorOptions eo;
  eo.device = device;
  std::unique_ptr<vdla::rt::Executor> executor =
      report.kernels ? std::make_unique<vdla::rt::Executor>(artifact, *report.kernels, eo)
                     : std::make_unique<vdla::rt::Executor>(artifact, eo);
  return executor->run({input}).at(0);
}

double maxAbsDiff(const vdla::rt::Tensor& a, const vdla::rt::Tensor& b) {
  double d = 0;
  for (int64_t i = 0; i < a.numElements(); ++i) d = std::fmax(d, std::fabs(a.getAsDouble(i) - b.getAsDouble(i)));
  return d;
}

}  // namespace

int main() {
  std::printf("vdla %s\n", vdla::api::version());
  const vdla::rt::Tensor input = vdla::seededUniformInput({vdla::rt::DType::F32, {1, 3, 64, 64}});
  const vdla::rt::Tensor ref = runOnce("ref", input, nullptr);
  const vdla::rt::Tensor llvm = runOnce("llvm", input, nullptr);
  const std::unique_ptr<vdla::driver::Device> fsim = vdla::driver::createDevice("fsim", vdla::hw::loadConfig("tiny"));
  const vdla::rt::Tensor accel = runOnce("vdla", input, fsim.get());
  if (ref.shape() != llvm.shape() || ref.shape() != accel.shape()) {
    std::printf("FAIL: output shapes differ\n");
    return 1;
  }
  double scale = 0;
  for (int64_t i = 0; i < ref.numElements(); ++i) scale = std::fmax(scale, std::fabs(ref.getAsDouble(i)));
  const double llvm_err = maxAbsDiff(ref, llvm), accel_err = maxAbsDiff(ref, accel);
  std::printf("logits: %lld values, max |ref| %.4g; llvm max error %.3g; int8 on fsim max error %.3g\n",
              static_cast<long long>(ref.numElements()), scale, llvm_err, accel_err);
  // fp32 CPU code agrees closely; int8 quantisation stays within a fraction of the logits' range.
  if (!(llvm_err <= 1e-3 * std::fmax(1.0, scale)) || !(accel_err <= 0.25 * scale)) {
    std::printf("FAIL: outputs disagree\n");
    return 1;
  }
  std::printf("OK\n");
  return 0;
}
