#include "vdla/compiler/passes/strip_qdq.h"

#include <optional>
#include <utility>

#include "pass_utils.h"

namespace vdla::passes {

namespace {

// (q - zero_point) * scale, per tensor or along `axis`, as DequantizeLinear.
rt::Tensor dequantize(const rt::Tensor& q, const rt::Tensor& scale, const rt::Tensor* zero_point, int64_t axis) {
  const std::vector<double> values = detail::toDoubles(q);
  const std::vector<double> scales = detail::toDoubles(scale);
  const std::vector<double> zeros = zero_point ? detail::toDoubles(*zero_point) : std::vector<double>(scales.size(), 0);
  const rt::Shape& shape = q.shape();
  if (axis < 0) axis += static_cast<int64_t>(shape.size());
  int64_t inner = 1;
  for (size_t d = static_cast<size_t>(axis) + 1; d < shape.size(); ++d) inner *= shape[d];
  const int64_t channels = scales.size() == 1 ? 1 : shape.at(static_cast<size_t>(axis));
  rt::Tensor out(rt::DType::F32, shape);
  float* dst = out.data<float>();
  for (size_t i = 0; i < values.size(); ++i) {
    const size_t c = channels == 1 ? 0 : static_cast<size_t>((static_cast<int64_t>(i) / inner) % channels);
    // The float arithmetic of DequantizeLinear: (float)(q - zp) * scale.
    dst[i] = static_cast<float>(values[i] - zeros[c]) * static_cast<float>(scales[c]);
  }
  return out;
}

// A quantiser whose zero point is the lowest code clamps at 0 from below:
// that is a Relu or Relu6 the quantisation tool folded into the range (a
// QDQ model has no Clip node left for them). Stripping keeps that clamp,
// [0, scale * (qmax - qmin)]; other quantisers only bound the calibrated
// range and go without a trace.
std::optional<std::pair<float, float>> foldedActivationRange(const ir::Node& quantize) {
  const ir::Value* out = quantize.output(0);
  const auto scale = detail::scalarConstant(quantize.input(1));
  if (!scale || !out->hasType()) return std::nullopt;
  const auto zero = quantize.input(2) ? detail::scalarConstant(quantize.input(2)) : std::optional<double>(0.0);
  if (!zero) return std::nullopt;
  double qmin = 0, qmax = 0;
  switch (out->type().dtype) {
    case rt::DType::U8: qmin = 0, qmax = 255; break;
    case rt::DType::I8: qmin = -128, qmax = 127; break;
    default: return std::nullopt;
  }
  if (*zero != qmin) return std::nullopt;
  return std::make_pair(0.0f, static_cast<float>(*scale * (qmax - qmin)));
}

}  // namespace

bool stripQdq(ir::Graph& graph) {
  bool changed = false;
  for (ir::Node* dq : graph.nodes()) {
    if (dq->qualifiedOp() != "DequantizeLinear") continue;
    ir::Value* data = dq->input(0);
    const rt::Tensor* q = detail::constantOf(data);
    const rt::Tensor* scale = detail::constantOf(dq->input(1));
    if (q && scale) {
      if (dq->attrs().getInt("block_size", 0) != 0) continue;  // blocked quantisation: left as it is
      const rt::Tensor* zp = dq->input(2) ? detail::constantOf(dq->input(2)) : nullptr;
      if (dq->input(2) && !zp) continue;
      rt::Tensor w = dequantize(*q, *scale, zp, dq->attrs().getInt("axis", 1));
      ir::Value* c = graph.addConstant(graph.uniqueName(dq->output(0)->name() + ".f32"), std::move(w));
      detail::replaceValue(graph, dq->output(0), c);
      graph.removeNode(dq);
      changed = true;
      continue;
    }
    ir::Node* quantize = data->producer();
    if (quantize && quantize->qualifiedOp() == "QuantizeLinear") {
      ir::Value* real = quantize->input(0);
      if (auto range = foldedActivationRange(*quantize)) {
        ir::Value* lo =
            graph.addConstant(graph.uniqueName(quantize->name() + ".min"), rt::Tensor::scalar<float>(range->first));
        ir::Value* hi =
            graph.addConstant(graph.uniqueName(quantize->name() + ".max"), rt::Tensor::scalar<float>(range->second));
        real = graph.insertNodeBefore(dq, "Clip", {real, lo, hi}, 1, {}, graph.uniqueName(quantize->name() + ".clip"))
                   ->output(0);
        detail::inferNodeTypes(*real->producer());
      }
      detail::replaceValue(graph, dq->output(0), real);
      graph.removeNode(dq);
      if (graph.users(data).empty() && !graph.isGraphOutput(data)) graph.removeNode(quantize);
      changed = true;
    }
  }
  return changed;
}

}  // namespace vdla::passes
