// What each phase of the accelerator lowering decided, as its stage prints it
// under --print-after-all: one line per node or program, in graph order, so
// that two compilations can be compared with diff.
#include <algorithm>

#include "vdla/compiler/accel/lowering.h"
#include "vdla/compiler/accel/program_chain.h"
#include "vdla/hw/token_ports.h"

namespace vdla::accel {

namespace {

const ArenaBuffer* findBuffer(const AccelLowering& l, size_t step, char role) {
  for (const ArenaBuffer& b : l.buffers)
    if (b.step == step && b.role == role) return &b;
  return nullptr;
}

}  // namespace

void printPartition(std::ostream& out, const AccelLowering& l) {
  const size_t offloaded =
      size_t(std::count_if(l.offloads.begin(), l.offloads.end(), [](const auto& o) { return o.has_value(); }));
  out << "partition: " << offloaded << " of " << l.decisions.size() << " nodes on the accelerator\n";
  for (size_t s = 0; s < l.decisions.size(); ++s) {
    const LayerDecision& d = l.decisions[s];
    out << "  [" << s << "] " << d.name << " " << d.op << ": ";
    if (!d.offloaded) {
      out << "cpu (" << d.reason << ")\n";
      continue;
    }
    const TilePlan& p = d.plan;
    if (l.offloads[s] && l.offloads[s]->pool) {
      out << "accelerator, max pooling, tile " << p.rows << " rows"
          << (p.residual_via_input ? ", the input through INP" : "") << ", " << p.threads << " thread"
          << (p.threads == 1 ? "" : "s") << ", estimate " << int64_t(d.estimate.cycles) << " cycles\n";
      continue;
    }
    if (l.offloads[s] && l.offloads[s]->global_pool) {
      const ScaledForm& f = l.offloads[s]->global_pool->form;
      out << "accelerator, global average pooling ((sum << " << f.pre_shift << ") + " << f.c << ") * " << f.m << " >> "
          << f.shift << ", tile " << p.rows << " channel blocks, " << p.threads << " thread"
          << (p.threads == 1 ? "" : "s") << ", estimate " << int64_t(d.estimate.cycles) << " cycles\n";
      continue;
    }
    if (l.offloads[s] && l.offloads[s]->add) {
      const IntegerAddForm& f = l.offloads[s]->add->form;
      out << "accelerator, addition (" << f.ma << "*A + " << f.mb << "*B + " << f.k << ") >> " << f.shift << ", tile "
          << p.rows << " entries" << (p.residual_via_input ? ", the operands through INP" : "") << ", " << p.threads
          << " thread" << (p.threads == 1 ? "" : "s") << ", estimate " << int64_t(d.estimate.cycles) << " cycles\n";
      continue;
    }
    out << "accelerator, "
        << (d.im2col           ? "im2col"
            : d.space_to_depth ? "space-to-depth"
                               : "direct")
        << (d.unfold_columns > 1 ? ", columns unfolded by " + std::to_string(d.unfold_columns) : std::string())
        << (p.dwgemm ? " on DWGEMM" : "")
        << (l.offloads[s] && l.offloads[s]->form.layer.post_add ? ", with the addition after it fused" : "")
        << (l.offloads[s] && l.offloads[s]->form.layer.expansion
                ? ", with its expansion '" + l.offloads[s]->form.layer.expansion->name +
                      "' fused (STORE INP, bands of " + std::to_string(p.rows) + " rows)"
                : std::string())
        << ", tile " << p.rows << "x" << p.cols << " px x " << p.oc_blocks << " oc x " << p.ic_blocks << " ic blocks"
        << (p.keep_alu_pass ? ", requantising in the ALU" : "")
        << (p.residual_via_input ? ", the residual through INP" : "") << ", " << p.threads << " thread"
        << (p.threads == 1 ? "" : "s") << ", " << d.macs << " MACs, estimate " << int64_t(d.estimate.cycles)
        << " cycles\n";
  }
}

void printArena(std::ostream& out, const AccelLowering& l) {
  out << "activation arena: " << l.arena_bytes << " bytes, " << l.buffers.size() << " places\n";
  for (size_t s = 0; s < l.offloads.size(); ++s) {
    if (!l.offloads[s]) continue;
    const Offload& o = *l.offloads[s];
    out << "  [" << s << "] " << l.decisions[s].name << ": x @" << o.placement.x_offset
        << (o.x_resident ? " resident" : " uploaded");
    if (o.hasResidual()) out << ", r @" << o.placement.r_offset << (o.r_resident ? " resident" : " uploaded");
    out << ", y @" << o.placement.y_offset;
    if (const ArenaBuffer* y = findBuffer(l, s, 'y'))
      out << " (" << y->bytes << " bytes, live to step " << y->last << ")";
    out << (o.y_to_host ? " to host" : " stays on the device") << "\n";
  }
}

void printChains(std::ostream& out, const rt::Artifact& a, const AccelLowering& l) {
  size_t chains = 0;
  for (const rt::ArtifactStep& step : a.steps) chains += step.attrs.getInt(kChainProgramAttr, -1) >= 0;
  out << "program chains: " << chains << "\n";
  for (size_t s = 0; s < a.steps.size(); ++s) {
    const rt::ArtifactStep& step = a.steps[s];
    if (step.attrs.getInt(kChainProgramAttr, -1) >= 0)
      out << "  [" << s << "] " << step.name << ": starts chain program " << step.attrs.getInt(kChainProgramAttr)
          << " of " << step.attrs.getInts(kChainStartsAttr).size() << " layers\n";
    else if (step.attrs.getInt(kChainedAttr, 0) != 0)
      out << "  [" << s << "] " << step.name << ": chained, "
          << int64_t(s < l.decisions.size() ? l.decisions[s].chain_overlap : 0)
          << " cycles of overlap with the layer before by the cost model\n";
  }
}

void printProgramTokens(std::ostream& out, const std::vector<ProgramTokens>& tokens) {
  out << "token check: " << tokens.size() << " programs free of deadlock, tokens balanced\n";
  for (size_t i = 0; i < tokens.size(); ++i) {
    out << "  program " << i << " '" << tokens[i].name << "':";
    for (int q = 0; q < hw::kNumTokenQueues; ++q)
      out << (q ? "," : "") << " " << hw::tokenQueueName(hw::TokenQueue(q)) << " " << tokens[i].result.tokens[q]
          << " (max " << tokens[i].result.max_occupancy[q] << ")";
    out << "\n";
  }
}

}  // namespace vdla::accel
