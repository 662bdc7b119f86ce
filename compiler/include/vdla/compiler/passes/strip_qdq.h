// Strips a QDQ model back to fp32: weights stored quantised (a constant read
// through DequantizeLinear) become fp32 constants, and every activation
// quantiser (QuantizeLinear -> DequantizeLinear) disappears, so the graph is
// the float network the model was quantised from, up to the rounding of its
// weights. A quantiser whose range starts at 0 stands for a Relu/Relu6 that
// was folded into it; it becomes a Clip to that range. Used to quantise a published model with the project's own
// calibration instead of its shipped parameters (PipelineOptions::strip_qdq).
#pragma once

#include "vdla/compiler/ir/graph.h"

namespace vdla::passes {

bool stripQdq(ir::Graph& graph);

}  // namespace vdla::passes
