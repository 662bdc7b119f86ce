// Stage "quantize": post-training int8 quantisation of an fp32 graph for the
// accelerator, calibrated on the given samples or, without any, on seeded
// synthetic ones.
#include <stdexcept>

#include "vdla/compiler/quant/calibration.h"
#include "vdla/compiler/quant/quantize.h"
#include "vdla/compiler/stages.h"

namespace vdla {

namespace {

// Seeded standard-normal samples shaped like the graph inputs (f32 only).
std::vector<std::vector<rt::Tensor>> syntheticSamples(const ir::Graph& graph, size_t count) {
  std::vector<std::vector<rt::Tensor>> samples(count);
  uint64_t state = 0x9e3779b97f4a7c15ull;
  auto next = [&]() {  // splitmix64
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  };
  for (auto& sample : samples)
    for (const ir::Value* in : graph.inputs()) {
      if (in->type().dtype != rt::DType::F32)
        throw std::runtime_error("calibration: input '" + in->name() + "' is not f32; give calibration samples");
      rt::Tensor t(in->type());
      float* d = t.data<float>();
      for (int64_t i = 0; i < t.numElements(); ++i) {
        // Sum of four uniforms, scaled to unit variance: close enough to normal.
        double s = 0;
        for (int k = 0; k < 4; ++k) s += double(next() >> 11) / double(1ull << 53);
        d[i] = static_cast<float>((s - 2.0) * 1.7320508);
      }
      sample.push_back(std::move(t));
    }
  return samples;
}

}  // namespace

bool isQuantizedForAccelerator(const ir::Graph& graph) {
  bool any_qconv = false;
  for (const ir::Node* n : graph.nodes()) {
    const std::string op = n->qualifiedOp();
    if (op == "vdla.QConv") any_qconv = true;
    if (op == "Conv" || op == "Gemm" || op == "MatMul") return false;
  }
  return any_qconv;
}

TargetStage stages::quantize() {
  return {"quantize", StageKind::Graph, StagePhase::Quantize, [](TargetState& s) {
            // A converted model (qlinear-to-qconv) keeps its own parameters.
            if (s.report.converted_qlinear || isQuantizedForAccelerator(s.graph)) return false;
            const std::vector<std::vector<rt::Tensor>> samples =
                s.options.calibration.empty() ? syntheticSamples(s.graph, 4) : s.options.calibration;
            quant::CalibrationOptions copts;
            copts.progress = s.options.calibration_progress;
            const quant::CalibrationTable table = quant::calibrate(s.graph, samples, copts);
            s.report.quantization = quant::quantizeGraph(s.graph, table, s.options.quantize);
            s.report.quantized = true;
            s.report.calibration_samples = samples.size();
            return true;
          }};
}

}  // namespace vdla
