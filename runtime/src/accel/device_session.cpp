#include "vdla/runtime/accel/device_session.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "vdla/hw/isa.h"
#include "vdla/runtime/accel/packed_layout.h"
#include "vdla/runtime/executor.h"
#include "vdla/sim/program_stats.h"

namespace vdla::rt::accel {

namespace {

const std::vector<uint8_t>& blob(const Artifact& a, const char* name) {
  auto it = a.blobs.find(name);
  if (it == a.blobs.end())
    throw ArtifactError("artifact '" + a.model_name + "': target vdla without its '" + name + "' section");
  return it->second;
}

uint64_t roundUp(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

InputTransform transformFromAttrs(const AttributeMap& attrs) {
  InputTransform t;
  const std::vector<int64_t> pad = attrs.getInts("host_pads", {0, 0, 0, 0});
  if (pad.size() != 4) throw KernelError("host_pads must have 4 values");
  t.pad_top = pad[0];
  t.pad_left = pad[1];
  t.pad_bottom = pad[2];
  t.pad_right = pad[3];
  t.pad_value = static_cast<int8_t>(attrs.getInt("host_pad_value", 0));
  t.space_to_depth = attrs.getInt("host_space_to_depth", 1);
  if (t.space_to_depth < 1) throw KernelError("host_space_to_depth must be at least 1");
  t.unfold_columns = attrs.getInt("host_unfold_columns", 1);
  if (t.unfold_columns < 1) throw KernelError("host_unfold_columns must be at least 1");
  const std::vector<int64_t> im2col = attrs.getInts("host_im2col", {});
  if (!im2col.empty()) {
    if (im2col.size() != 4) throw KernelError("host_im2col must be kh,kw,sh,sw");
    t.im2col = true;
    t.kh = im2col[0];
    t.kw = im2col[1];
    t.sh = im2col[2];
    t.sw = im2col[3];
  }
  return t;
}

}  // namespace

DeviceSession::DeviceSession(const Artifact& artifact, driver::Device& device, std::chrono::milliseconds timeout,
                             bool all_outputs_to_host)
    : device_(device), timeout_(timeout), all_outputs_to_host_(all_outputs_to_host) {
  const hw::HwConfig& cfg = device.config();
  checkArtifactDevice(artifact, cfg, "artifact '" + artifact.model_name + "'");
  try {
    module_ = deserializeDeviceModule(blob(artifact, kProgramsBlob), cfg);
  } catch (const ArtifactError&) {
    throw;
  } catch (const std::exception& e) {
    throw ArtifactError("artifact '" + artifact.model_name + "': " + e.what());
  }
  const std::vector<uint8_t>& constants = blob(artifact, kConstantsBlob);
  constants_ = device.allocate(std::max<uint64_t>(constants.size(), 1));
  if (!constants.empty()) device.write(constants_, 0, constants.data(), constants.size());
  io_ = device.allocate(std::max<uint64_t>(module_.io_bytes, 1));

  // All programs in one buffer, each starting on an instruction boundary.
  std::vector<std::vector<uint8_t>> streams;
  uint64_t total = 0;
  for (const DeviceProgram& p : module_.programs) {
    streams.push_back(relocateProgram(p, cfg, constants_.phys_addr, io_.phys_addr));
    total += roundUp(streams.back().size(), 64);
  }
  insns_ = device.allocate(std::max<uint64_t>(total, 1));
  uint64_t offset = 0;
  for (const std::vector<uint8_t>& s : streams) {
    device.write(insns_, offset, s.data(), s.size());
    program_addr_.push_back(insns_.phys_addr + offset);
    step_params_.emplace_back();
    offset += roundUp(s.size(), 64);
  }
}

DeviceSession::~DeviceSession() {
  for (driver::Buffer* b : {&constants_, &io_, &insns_})
    if (b->size) device_.release(*b);
}

void DeviceSession::registerKernels(KernelRegistry& registry) {
  registry.add(kConvKernel, [this](const KernelArgs& args) { runConv(args); });
}

DeviceSession::StepParams DeviceSession::readStepParams(const AttributeMap& attrs) const {
  const hw::HwConfig& cfg = device_.config();
  StepParams p;
  p.transform = transformFromAttrs(attrs);
  // The input's packing: block_in channels for a convolution; for a program
  // that loads it into the accumulators (pooling, additions) the output packing
  // of the layers around it (block_out, or block_in with an output interleave).
  p.x_block = attrs.getInt("x_block", cfg.block_in);
  if (p.x_block != cfg.block_in && p.x_block != cfg.block_out)
    throw KernelError("x_block " + std::to_string(p.x_block) + " is neither the config's block_in nor its block_out");
  // The output's packing, which a residual shares: block_out, or block_in for
  // a layer that interleaves its output blocks into the next layer's entries.
  p.y_block = attrs.getInt("y_block", cfg.block_out);
  if (p.y_block != cfg.block_in && p.y_block != cfg.block_out)
    throw KernelError("y_block " + std::to_string(p.y_block) + " is neither the config's block_in nor its block_out");
  p.x_offset = attrs.getInt("x_offset");
  p.r_offset = attrs.getInt("r_offset", 0);
  p.y_offset = attrs.getInt("y_offset");
  p.x_resident = attrs.getInt("x_resident", 0) != 0;
  p.has_residual = attrs.getInt("has_residual", 0) != 0;
  p.r_resident = attrs.getInt("r_resident", 0) != 0;
  p.y_to_host = attrs.getInt("y_to_host", 1) != 0;
  p.chain_program = attrs.getInt("chain_program", -1);
  if (p.chain_program >= 0) p.chain_starts = attrs.getInts("chain_starts");
  p.chained = attrs.getInt("chained", 0) != 0;
  if (p.chained && p.chain_program >= 0) throw KernelError("a step both starts a chain and is chained");
  // A chained step ran with the chain's first step: nothing of its may come
  // from the host.
  if (p.chained && (!p.x_resident || (p.has_residual && !p.r_resident)))
    throw KernelError("a chained step reads an input the host uploads");
  if (p.x_resident && !p.transform.identity())
    throw KernelError("an input the host must transform cannot be resident on the device");
  return p;
}

namespace {

// A chain's run split into its layers by the module activity: a layer ends
// when the last of its instructions (its barrier included) ends, and takes
// the cycles from the end of the layer before; each keeps the activity of its
// own instructions, counted from its start. The counts that follow from the
// program text (instructions, bytes, multiply-adds) are each layer's own
// instructions'; the load, compute and store modules' busy and waiting
// cycles are their activity's; GEMM and ALU cycles are shared out as the
// layers' GEMMs and ALU passes were busy, and what the activity does not
// show (fetch, the waits for DRAM within busy cycles) as the layers' share
// of the run. Without activity the first layer takes the whole run and the
// others have no counters of their own.
std::vector<sim::ExecutionStats> splitChainStats(const sim::ExecutionStats& chain, const DeviceProgram& program,
                                                 const std::vector<int64_t>& starts, const hw::HwConfig& cfg) {
  const size_t n = starts.size();
  if (n == 0) throw KernelError("a chain without layers");
  std::vector<sim::ExecutionStats> out(n);
  out[0] = chain;
  out[0].activity.clear();
  if (chain.activity.empty()) return out;  // the others: no counters of their own
  auto layerOf = [&](uint32_t insn) {
    return size_t(std::upper_bound(starts.begin(), starts.end(), int64_t(insn)) - starts.begin()) - 1;
  };
  using Module = sim::ExecutionStats::ModuleCycles;
  auto moduleOf = [](auto& c, uint8_t m) -> auto& { return m == 0 ? c.load : m == 1 ? c.compute : c.store; };
  std::vector<int64_t> end(n, 0);
  std::vector<uint64_t> gemm_busy(n, 0), alu_busy(n, 0);
  std::vector<sim::ExecutionStats::CycleCounters> modules(n);
  for (const sim::ExecutionStats::ActivityInterval& a : chain.activity) {
    const size_t k = layerOf(a.instruction);
    if (k >= n || a.module > 2) continue;
    end[k] = std::max(end[k], a.end);
    const uint64_t length = uint64_t(std::max<int64_t>(0, a.end - a.begin));
    Module& m = moduleOf(modules[k], a.module);
    if (a.busy)
      m.busy += length;
    else if (a.what == "wait: token")
      m.wait_token += length;
    else if (a.what == "wait: queue room")
      m.wait_room += length;
    if (!a.busy || a.instruction >= program.insns.size()) continue;
    const hw::Instruction& insn = program.insns[a.instruction];
    // (The chain's empty GEMMs that carry its tokens multiply nothing.)
    if (hw::gemmMacs(insn, cfg) > 0)
      gemm_busy[k] += length;
    else if (insn.opcode == hw::Opcode::Alu)
      alu_busy[k] += length;
  }
  const int64_t total = int64_t(chain.cycles);
  std::vector<int64_t> begin(n, 0);
  std::vector<uint64_t> layer_cycles(n, 0);
  int64_t before = 0;
  for (size_t k = 0; k < n; ++k) {
    // (The last layer ends with the run.)
    const int64_t e = k + 1 == n ? std::max(total, before) : std::clamp(end[k], before, std::max(total, before));
    const size_t first = size_t(starts[k]), last = k + 1 < n ? size_t(starts[k + 1]) : program.insns.size();
    if (first > last || last > program.insns.size()) throw KernelError("a chain's layer starts are out of order");
    sim::ExecutionStats& s = out[k];
    s = sim::programStats(cfg, std::vector<hw::Instruction>(program.insns.begin() + ptrdiff_t(first),
                                                            program.insns.begin() + ptrdiff_t(last)));
    begin[k] = before;
    s.cycles = layer_cycles[k] = uint64_t(e - before);
    s.has_cycle_counters = true;
    s.cycle_counters = modules[k];
    before = e;
  }
  // A chain counter shared out in proportion to `weights`: each layer's
  // share rounded down (never past what is left), what rounding left to the
  // last, so that the shares add up to the chain's count.
  auto shareOut = [&](uint64_t whole, const std::vector<uint64_t>& weights, auto field) {
    double all = 0;
    for (uint64_t w : weights) all += double(w);
    uint64_t left = whole;
    for (size_t k = 0; k < n; ++k) {
      const uint64_t part = all > 0 ? std::min(left, uint64_t(double(whole) * (double(weights[k]) / all))) : 0;
      field(out[k].cycle_counters) = part;
      left -= part;
    }
    field(out[n - 1].cycle_counters) += left;
  };
  const sim::ExecutionStats::CycleCounters& whole = chain.cycle_counters;
  shareOut(whole.gemm_uop_cycles, gemm_busy, [](auto& c) -> uint64_t& { return c.gemm_uop_cycles; });
  shareOut(whole.alu_cycles, alu_busy, [](auto& c) -> uint64_t& { return c.alu_cycles; });
  // What the activity does not show: fetch's cycles as the layers' share of
  // the run, each module's waits for DRAM (within its busy cycles) as its
  // share of that module's busy cycles.
  shareOut(whole.fetch.busy, layer_cycles, [](auto& c) -> uint64_t& { return c.fetch.busy; });
  shareOut(whole.fetch.wait_room, layer_cycles, [](auto& c) -> uint64_t& { return c.fetch.wait_room; });
  shareOut(whole.fetch.wait_dram, layer_cycles, [](auto& c) -> uint64_t& { return c.fetch.wait_dram; });
  for (uint8_t m = 0; m < 3; ++m) {
    std::vector<uint64_t> busy(n);
    for (size_t k = 0; k < n; ++k) busy[k] = moduleOf(modules[k], m).busy;
    shareOut(moduleOf(whole, m).wait_dram, busy, [&](auto& c) -> uint64_t& { return moduleOf(c, m).wait_dram; });
  }
  for (const sim::ExecutionStats::ActivityInterval& a : chain.activity) {
    const size_t k = layerOf(a.instruction);
    if (k >= n) continue;
    sim::ExecutionStats::ActivityInterval shifted = a;
    shifted.begin -= begin[k];
    shifted.end -= begin[k];
    out[k].activity.push_back(std::move(shifted));
  }
  return out;
}

}  // namespace

void DeviceSession::runConv(const KernelArgs& args) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point t0 = Clock::now();
  const AttributeMap& attrs = args.attributes();
  const hw::HwConfig& cfg = device_.config();
  const int64_t program = attrs.getInt("program");
  if (program < 0 || program >= static_cast<int64_t>(module_.programs.size()))
    throw KernelError("program " + std::to_string(program) + " is not in the artifact");

  std::optional<StepParams>& cached = step_params_.at(size_t(program));
  if (!cached) {
    cached = readStepParams(attrs);
    cached->x_kept_bytes = uint64_t(packedGeometry(args.input(0).shape(), cfg.batch, cached->x_block).bytes());
    if (cached->has_residual)
      cached->r_kept_bytes = uint64_t(packedGeometry(args.input(1).shape(), cfg.batch, cached->y_block).bytes());
    cached->y_bytes = uint64_t(packedGeometry(args.output(0).shape(), cfg.batch, cached->y_block).bytes());
  }
  const StepParams& sp = *cached;

  // Inputs: X, then the residual when present; each from the host unless an
  // earlier layer left it in the arena.
  LayerRun run;
  const InputTransform& transform = sp.transform;
  // Transforms (when the layer needs it) and packs in one pass.
  auto upload = [&](const Tensor& t, const InputTransform& transform, int64_t block, int64_t offset) {
    const PackedGeometry g = packedGeometry(transformedShape(t.shape(), transform), cfg.batch, block);
    if (offset < 0 || uint64_t(offset + g.bytes()) > module_.io_bytes)
      throw KernelError("activation of " + std::to_string(g.bytes()) + " bytes at arena offset " +
                        std::to_string(offset) + " is outside the arena");
    staging_.resize(static_cast<size_t>(g.bytes()));
    packTransformedActivation(t, transform, cfg.batch, block, staging_.data());
    device_.write(io_, static_cast<uint64_t>(offset), staging_.data(), staging_.size());
    run.uploaded_bytes += staging_.size();
    const uint64_t copied = uint64_t(unfoldCopiedBytes({g.n, g.c, g.h, g.w}, transform, block));
    run.packed_data_bytes += uint64_t(g.n * g.c * g.h * g.w) - copied;
    run.unfolded_bytes += copied;
  };
  if (!sp.x_resident) {
    // What the host rearranges: the transformed tensor, never materialised on its own.
    if (!transform.identity())
      run.transformed_bytes += uint64_t(numElements(transformedShape(args.input(0).shape(), transform)));
    upload(args.input(0), transform, sp.x_block, sp.x_offset);
  } else {
    run.kept_bytes += sp.x_kept_bytes;
  }
  if (sp.has_residual) {
    if (!sp.r_resident)
      upload(args.input(1), InputTransform{}, sp.y_block, sp.r_offset);
    else
      run.kept_bytes += sp.r_kept_bytes;
  }

  // A chain's first step runs the whole chain; its other steps have run
  // then. With every output wanted on the host each step runs its own.
  const int64_t launched = all_outputs_to_host_ ? program : sp.chain_program >= 0 ? sp.chain_program : program;
  if (launched >= static_cast<int64_t>(module_.programs.size()))
    throw KernelError("chain program " + std::to_string(launched) + " is not in the artifact");
  const DeviceProgram& p = module_.programs[static_cast<size_t>(launched)];
  const Clock::time_point t1 = Clock::now();
  driver::RunResult r;
  if (!sp.chained || all_outputs_to_host_) {
    r = device_.run(program_addr_[static_cast<size_t>(launched)], static_cast<uint32_t>(p.insns.size()), timeout_);
    if (!r.ok()) throw KernelError("device run of program '" + p.name + "' failed: " + r.message);
    chain_stats_.clear();
    chain_next_ = 0;
    if (launched != program) {
      chain_stats_ = splitChainStats(r.stats, p, sp.chain_starts, cfg);
      r.stats = chain_stats_.at(chain_next_++);
    }
  } else if (chain_next_ < chain_stats_.size()) {
    r.stats = chain_stats_[chain_next_++];
  }
  const Clock::time_point t2 = Clock::now();

  Tensor& y = args.output(0);
  const PackedGeometry g = packedGeometry(y.shape(), cfg.batch, sp.y_block);
  const int64_t y_offset = sp.y_offset;
  if (y_offset < 0 || uint64_t(y_offset) + sp.y_bytes > module_.io_bytes)
    throw KernelError("output is outside the activation arena");
  // An output only offloaded layers read stays in the arena; its host tensor
  // is left as it is (all_outputs_to_host brings it back for checks).
  if (sp.y_to_host || all_outputs_to_host_) {
    downloads_.resize(static_cast<size_t>(sp.y_bytes));
    device_.read(io_, static_cast<uint64_t>(y_offset), downloads_.data(), downloads_.size());
    unpackActivation(downloads_.data(), g, y);
    run.downloaded_bytes += downloads_.size();
  } else {
    run.kept_bytes += sp.y_bytes;
  }
  auto seconds = [](Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); };
  run.name = p.name;
  run.result = std::move(r);
  run.host_before_seconds = seconds(t0, t1);
  run.run_seconds = seconds(t1, t2);
  run.host_after_seconds = seconds(t2, Clock::now());
  runs_.push_back(std::move(run));
}

}  // namespace vdla::rt::accel
