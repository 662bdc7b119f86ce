// Program chains (program_chain.h): consecutive offloaded layers that keep
// their tensors on the device run as one program. The chain's barrier is
// proven by the token check and checked where it matters, on the devices that
// run the modules concurrently (the cycle-accurate simulator, the HLS C
// simulation): the chained network gives the outputs of the layers run one
// program at a time, in fewer cycles, and its cycles split back into layers
// that add up to the chain's.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "vdla/compiler/accel/program_chain.h"
#include "vdla/compiler/compile.h"
#include "vdla/compiler/zoo/model_zoo.h"
#include "vdla/driver/device.h"
#include "vdla/frontend/onnx_importer.h"
#include "vdla/hw/config.h"
#include "vdla/runtime/accel/device_session.h"
#include "vdla/runtime/executor.h"

namespace vdla::accel {
namespace {

using rt::accel::DeviceModule;
using rt::accel::DeviceProgram;

rt::Artifact compileZoo(const std::string& model, const std::string& config, bool chain = true,
                        CompileReport* report = nullptr) {
  zoo::ZooOptions zo;
  zo.image_size = 32;
  CompileOptions o;
  o.target = "vdla";
  o.hw_config = config;
  o.accel.chain_layers = chain;
  o.llvm_cpu_fallback = false;
  std::unique_ptr<ir::Graph> g = zoo::buildModel(model, zo);
  return compileGraph(*g, o, report);
}

rt::Tensor input(const rt::Artifact& a) {
  rt::Tensor t(a.tensors.at(size_t(a.inputs.at(0))).type);
  uint32_t s = 12345;
  for (int64_t i = 0; i < t.numElements(); ++i) {
    s = s * 1664525u + 1013904223u;
    t.data<float>()[i] = static_cast<float>(s >> 8) / float(1 << 24) * 2.0f - 1.0f;
  }
  return t;
}

struct NetworkRun {
  std::vector<rt::Tensor> outputs;
  uint64_t cycles = 0;  // summed over the steps
  std::vector<rt::StepProfile> profile;
};

NetworkRun runOn(const rt::Artifact& a, const std::string& backend, const std::string& config, bool layer_by_layer,
                 bool record_activity = false) {
  driver::DeviceOptions dopts;
  dopts.record_activity = record_activity;
  auto dev = driver::createDevice(backend, hw::loadConfig(config), dopts);
  rt::ExecutorOptions o;
  o.device = dev.get();
  o.profile = true;
  o.device_outputs_to_host = layer_by_layer;
  rt::Executor ex(a, o);
  NetworkRun r;
  r.outputs = ex.run({input(a)});
  r.profile = ex.profile();
  for (const rt::StepProfile& p : r.profile) r.cycles += p.device_stats.cycles;
  return r;
}

size_t chains(const rt::Artifact& a) {
  size_t n = 0;
  for (const rt::ArtifactStep& s : a.steps) n += s.attrs.getInt(kChainProgramAttr, -1) >= 0;
  return n;
}

TEST(ProgramChain, ChainedProgramsPassTheTokenCheckAndKeepOneFinish) {
  const rt::Artifact a = compileZoo("resnet18", "pynq");
  ASSERT_EQ(chains(a), 1u) << "every offloaded layer of ResNet-18 keeps its tensors on the device";
  const hw::HwConfig cfg = hw::loadConfig("pynq");
  const DeviceModule m = rt::accel::deserializeDeviceModule(a.blobs.at(rt::accel::kProgramsBlob), cfg);
  size_t chained_steps = 0, own_instructions = 0;
  for (const rt::ArtifactStep& s : a.steps) {
    if (s.kernel != rt::accel::kConvKernel) continue;
    own_instructions += m.programs.at(size_t(s.attrs.getInt("program"))).insns.size();
    chained_steps += s.attrs.getInt(kChainedAttr, 0);
  }
  const rt::ArtifactStep& first = a.steps.at(1);
  const DeviceProgram& chain = m.programs.at(size_t(first.attrs.getInt(kChainProgramAttr)));
  const std::vector<int64_t>& starts = first.attrs.getInts(kChainStartsAttr);
  EXPECT_EQ(starts.size(), chained_steps + 1);
  EXPECT_EQ(starts.front(), 0);
  for (size_t k = 1; k < starts.size(); ++k) EXPECT_LT(starts[k - 1], starts[k]);
  size_t finishes = 0;
  for (const hw::Instruction& i : chain.insns) finishes += i.opcode == hw::Opcode::Finish;
  EXPECT_EQ(finishes, 1u);
  EXPECT_EQ(chain.insns.back().opcode, hw::Opcode::Finish);
  // The layers' own instructions, less their FINISHes, and the barrier's
  // carriers: at most eight per boundary ("compute done" and its pop, "store
  // done", the relay GEMM and the "data ready" pop, the early relay's push
  // and pop, a weights-only tile's push).
  EXPECT_GE(chain.insns.size(), own_instructions - chained_steps);
  EXPECT_LE(chain.insns.size(), own_instructions - chained_steps + 8 * chained_steps);

  // The chain from the layers' own programs again: the same program, and on
  // ResNet-18 most first tiles load while the layer before drains.
  std::vector<const DeviceProgram*> own;
  for (const rt::ArtifactStep& s : a.steps)
    if (s.kernel == rt::accel::kConvKernel) own.push_back(&m.programs.at(size_t(s.attrs.getInt("program"))));
  const ChainedProgram again = chainPrograms(own, cfg, chain.name);
  EXPECT_EQ(again.program.insns, chain.insns);
  EXPECT_EQ(std::vector<int64_t>(again.layer_starts.begin(), again.layer_starts.end()), starts);
  EXPECT_GE(again.early_first_tiles * 2, chained_steps) << "first tiles that wait for no late store";
}

TEST(ProgramChain, RefusesProgramsWithoutTheirFinish) {
  DeviceProgram p;
  p.name = "no finish";
  hw::Instruction gemm;
  gemm.opcode = hw::Opcode::Gemm;
  p.insns = {gemm};
  p.regions = {rt::accel::Region::None};
  EXPECT_THROW(chainPrograms({&p, &p}, hw::loadConfig("pynq"), "bad"), std::logic_error);
  EXPECT_THROW(chainPrograms({}, hw::loadConfig("pynq"), "empty"), std::logic_error);
}

// The chain against the layers one program at a time, on every backend: the
// same outputs; on a timing model, fewer cycles, and the chain's cycles split
// into its layers add up to what the run took.
TEST(ProgramChain, ChainedNetworkMatchesTheLayersRunApartOnEveryDevice) {
  // (tiny's blocks differ between input and output: its layers exchange
  // every tensor through the host and never chain. ultra96's layers write
  // interleaved 32-channel entries.)
  for (const auto& [config, model] : std::vector<std::pair<std::string, std::string>>{
           {"pynq", "cnn"}, {"pynq", "resnet18"}, {"ultra96", "resnet18"}}) {
    SCOPED_TRACE(config + " " + model);
    const rt::Artifact a = compileZoo(model, config);
    ASSERT_GE(chains(a), 1u);
    for (const std::string& backend : driver::deviceBackends()) {
      SCOPED_TRACE(backend);
      const NetworkRun apart = runOn(a, backend, config, true);
      const NetworkRun chained = runOn(a, backend, config, false);
      ASSERT_EQ(apart.outputs.size(), chained.outputs.size());
      for (size_t i = 0; i < apart.outputs.size(); ++i)
        ASSERT_EQ(0, std::memcmp(apart.outputs[i].raw(), chained.outputs[i].raw(), apart.outputs[i].byteSize()));
      if (backend != "cycle") continue;
      EXPECT_LT(chained.cycles, apart.cycles) << "the chain overlaps each layer's first loads with the drain before";
      // Split by module activity, each layer's share is close to what it
      // takes on its own (overlap moves a little from one to the next).
      const NetworkRun split = runOn(a, backend, config, false, true);
      EXPECT_EQ(split.cycles, chained.cycles);
      double off = 0, own = 0;
      ASSERT_EQ(split.profile.size(), apart.profile.size());
      for (size_t k = 0; k < split.profile.size(); ++k) {
        const rt::StepProfile& p = split.profile[k];
        if (!p.on_device) continue;
        EXPECT_TRUE(p.device_stats.has_cycle_counters) << p.name;
        EXPECT_GT(p.device_stats.cycles, 0u) << p.name;
        off += std::abs(double(p.device_stats.cycles) - double(apart.profile[k].device_stats.cycles));
        own += double(apart.profile[k].device_stats.cycles);
      }
      EXPECT_LT(off, 0.1 * own) << "the layers' shares against their own programs";
      // What the program text fixes is each layer's own: the bytes it moves
      // and its multiply-adds as when it runs alone, its instructions but
      // for its barrier's; the modules' busy cycles add up to the chain's.
      uint64_t load_busy = 0, compute_busy = 0, store_busy = 0, chain_load = 0, chain_compute = 0, chain_store = 0;
      // (and the counters shared out, exactly)
      uint64_t shared[4] = {}, chain_shared[4] = {};
      auto sharedOf = [](const sim::ExecutionStats& st, int i) {
        const auto& c = st.cycle_counters;
        return i == 0 ? c.gemm_uop_cycles : i == 1 ? c.alu_cycles : i == 2 ? c.fetch.busy : c.load.wait_dram;
      };
      for (size_t k = 0; k < split.profile.size(); ++k) {
        const sim::ExecutionStats &s = split.profile[k].device_stats, &alone = apart.profile[k].device_stats;
        if (!split.profile[k].on_device) continue;
        const std::string& name = split.profile[k].name;
        EXPECT_EQ(s.dram_bytes_written, alone.dram_bytes_written) << name;
        for (int m = 0; m < hw::kNumMemoryIds; ++m)
          EXPECT_EQ(s.dram_bytes_read[m], alone.dram_bytes_read[m]) << name << ", memory " << m;
        EXPECT_EQ(s.gemm_macs, alone.gemm_macs) << name;
        // (Its FINISH goes; the barrier's empty transfers and GEMMs, the
        // token pops and pushes of its relays, come in: seven at most.)
        EXPECT_GE(s.totalInstructions() + 1, alone.totalInstructions()) << name;
        EXPECT_LE(s.totalInstructions(), alone.totalInstructions() + 7) << name;
        load_busy += s.cycle_counters.load.busy;
        compute_busy += s.cycle_counters.compute.busy;
        store_busy += s.cycle_counters.store.busy;
        const sim::ExecutionStats& whole = chained.profile[k].device_stats;
        for (int i = 0; i < 4; ++i) shared[i] += sharedOf(s, i), chain_shared[i] += sharedOf(whole, i);
        if (whole.has_cycle_counters) {
          chain_load += whole.cycle_counters.load.busy;
          chain_compute += whole.cycle_counters.compute.busy;
          chain_store += whole.cycle_counters.store.busy;
        }
      }
      EXPECT_EQ(load_busy, chain_load);
      EXPECT_EQ(compute_busy, chain_compute);
      EXPECT_EQ(store_busy, chain_store);
      for (int i = 0; i < 4; ++i) EXPECT_EQ(shared[i], chain_shared[i]) << "shared counter " << i;
      // Without activity the first step carries the chain; the others count nothing.
      size_t counted = 0;
      for (const rt::StepProfile& p : chained.profile) counted += p.on_device && p.device_stats.has_cycle_counters;
      EXPECT_EQ(counted, chains(a));
    }
  }
}

// Without latency hiding (one buffer half: every tile's loads pop) the chain
// keeps the results too.
TEST(ProgramChain, WithoutLatencyHidingMatchesTheLayersRunApart) {
  zoo::ZooOptions zo;
  zo.image_size = 32;
  CompileOptions o;
  o.target = "vdla";
  o.hw_config = "pynq";
  o.accel.latency_hiding = false;
  o.llvm_cpu_fallback = false;
  std::unique_ptr<ir::Graph> g = zoo::buildModel("cnn", zo);
  const rt::Artifact a = compileGraph(*g, o);
  ASSERT_GE(chains(a), 1u);
  const NetworkRun apart = runOn(a, "cycle", "pynq", true), chained = runOn(a, "cycle", "pynq", false);
  for (size_t i = 0; i < apart.outputs.size(); ++i)
    EXPECT_EQ(0, std::memcmp(apart.outputs[i].raw(), chained.outputs[i].raw(), apart.outputs[i].byteSize()));
  EXPECT_LT(chained.cycles, apart.cycles);
}

// The real int8 MobileNetV2 (DWGEMM layers, additions on the accelerator) on
// the cycle simulator: one chain of its layers gives the logits of the layers
// run one program at a time, bit for bit, and saves over 1% of the cycles
// with its layers apart; with expansions fused into their depthwise layers
// (expanded_depthwise.h), whose programs leave the chain little to overlap,
// it costs no more than its layers run one at a time.
TEST(ProgramChain, MobileNetV2ChainedOnTheCycleSimulator) {
  const std::string model = std::string(VDLA_SHARED_DATA_DIR) + "/models/mobilenetv2-imagenet-int8-qdq.onnx";
  if (!std::filesystem::exists(model)) GTEST_SKIP() << "shared data not present: " << model;
  for (bool fuse : {false, true}) {
    SCOPED_TRACE(fuse ? "expansions fused" : "expansions apart");
    CompileOptions o;
    o.target = "vdla";
    o.hw_config = "pynq";
    o.llvm_cpu_fallback = false;
    o.accel.fuse_expansions = fuse;
    std::unique_ptr<ir::Graph> g = frontend::importOnnxFile(model);
    const rt::Artifact a = compileGraph(*g, o);
    ASSERT_EQ(chains(a), 1u);
    const NetworkRun apart = runOn(a, "cycle", "pynq", true), chained = runOn(a, "cycle", "pynq", false);
    ASSERT_EQ(apart.outputs.size(), 1u);
    EXPECT_EQ(0, std::memcmp(apart.outputs[0].raw(), chained.outputs[0].raw(), apart.outputs[0].byteSize()));
    EXPECT_LT(double(chained.cycles), (fuse ? 1.002 : 0.99) * double(apart.cycles));
  }
}

// Turning chains off gives each step its own program, as before.
TEST(ProgramChain, OffKeepsEveryLayerInItsOwnProgram) {
  CompileReport with, without;
  const rt::Artifact a = compileZoo("cnn", "pynq", true, &with);
  const rt::Artifact b = compileZoo("cnn", "pynq", false, &without);
  EXPECT_GE(chains(a), 1u);
  EXPECT_EQ(chains(b), 0u);
  double overlap = 0;
  for (const LayerDecision& d : with.layers) overlap += d.chain_overlap;
  EXPECT_GT(overlap, 0) << "the cost model counts the overlap of chained layers";
  for (const LayerDecision& d : without.layers) EXPECT_EQ(d.chain_overlap, 0) << d.name;
}

}  // namespace
}  // namespace vdla::accel
