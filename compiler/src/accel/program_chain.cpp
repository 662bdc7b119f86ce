#include "vdla/compiler/accel/program_chain.h"

#include <cstdint>
#include <stdexcept>
#include <string>

#include "vdla/runtime/accel/device_session.h"

namespace vdla::accel {
namespace {

using hw::Instruction;
using hw::Memory;
using hw::Module;
using hw::Opcode;
using rt::accel::DeviceProgram;
using rt::accel::Region;

bool hasFlags(const Instruction& i) { return i.pop_prev || i.pop_next || i.push_prev || i.push_next; }

// Empty instructions that only carry tokens: a GEMM of no iterations
// (compute), a LOAD and a STORE of no entries.
Instruction emptyGemm() {
  Instruction i;
  i.opcode = Opcode::Gemm;
  return i;
}
Instruction emptyLoad() {
  Instruction i;
  i.opcode = Opcode::Load;
  i.memory = Memory::Input;
  return i;
}
Instruction emptyStore() {
  Instruction i;
  i.opcode = Opcode::Store;
  i.memory = Memory::Output;
  return i;
}

struct Emitter {
  DeviceProgram& out;
  std::vector<size_t> origin;  // per instruction: its index in its layer's program (SIZE_MAX: a carrier)
  void emit(const Instruction& i, Region r, size_t from = SIZE_MAX) {
    out.insns.push_back(i);
    out.regions.push_back(r);
    origin.push_back(from);
  }
};

// The parts of a layer's program that may run ahead of the barrier, by
// instruction index. Load groups are runs of loads that end with a push to
// compute (a load tile); those that pop nothing write buffer halves that are
// free from the start, so their weight loads may move ahead; the rest of each
// such group follows the barrier in order, its push on its last load.
struct Split {
  std::vector<size_t> early_loads;    // weight loads of the leading groups that pop nothing
  std::vector<size_t> early_compute;  // leading micro-op and parameter loads
  std::vector<std::vector<size_t>> groups;  // those groups' other loads
  std::vector<bool> moved;                  // any of the above
};

Split splitProgram(const DeviceProgram& p) {
  Split s;
  s.moved.assign(p.insns.size(), false);
  bool compute_prefix = true, load_groups = true;
  std::vector<size_t> group;
  for (size_t k = 0; k + 1 < p.insns.size(); ++k) {
    const Instruction& i = p.insns[k];
    const Module m = hw::moduleOf(i);
    if (m == Module::Compute && compute_prefix) {
      if (i.opcode == Opcode::Load && (i.memory == Memory::Uop || i.memory == Memory::Acc) &&
          p.regions[k] == Region::Constants && !hasFlags(i)) {
        s.early_compute.push_back(k);
        s.moved[k] = true;
      } else {
        compute_prefix = false;
      }
    } else if (m == Module::Load && load_groups) {
      if (i.pop_next) {
        load_groups = false;  // this group and the rest stay where they are
        continue;
      }
      group.push_back(k);
      if (!i.push_next) continue;
      std::vector<size_t> rest;
      for (size_t g : group) {
        s.moved[g] = true;
        const bool weight = p.insns[g].memory == Memory::Weight && p.regions[g] == Region::Constants;
        (weight ? s.early_loads : rest).push_back(g);
      }
      s.groups.push_back(std::move(rest));
      group.clear();
      // Only the first tile's: weights of later tiles moved ahead would
      // delay the first tile's input once the layer before has drained.
      load_groups = false;
    }
  }
  // Loads after the last push that pop nothing (none in a well-formed
  // program) stay where they are.
  return s;
}

}  // namespace

ChainedProgram chainPrograms(const std::vector<const DeviceProgram*>& programs, const std::string& name) {
  if (programs.empty()) throw std::logic_error("chainPrograms: no programs");
  ChainedProgram c;
  c.program.name = name;
  Emitter em{c.program, {}};
  for (size_t n = 0; n < programs.size(); ++n) {
    const DeviceProgram& p = *programs[n];
    const std::string where = "chain '" + name + "', program '" + p.name + "'";
    if (p.insns.empty() || p.insns.back().opcode != Opcode::Finish || hasFlags(p.insns.back()) ||
        p.regions.size() != p.insns.size())
      throw std::logic_error(where + ": does not end with a plain FINISH");
    for (size_t k = 0; k + 1 < p.insns.size(); ++k)
      if (p.insns[k].opcode == Opcode::Finish) throw std::logic_error(where + ": FINISH before its end");
    c.layer_starts.push_back(static_cast<uint32_t>(c.program.insns.size()));

    // "compute done" rides on the layer's last GEMM or DWGEMM where that one
    // pushes nothing to load (the only instructions that read INP and WGT):
    // the ALU passes after it leave both buffers to the next layer.
    size_t done_at = SIZE_MAX;
    if (n + 1 < programs.size())
      for (size_t k = p.insns.size(); k-- > 0;)
        if (p.insns[k].opcode == Opcode::Gemm || p.insns[k].opcode == Opcode::DwGemm) {
          if (!p.insns[k].push_prev) done_at = k;
          break;
        }
    const size_t first_own = c.program.insns.size();
    if (n == 0) {
      for (size_t k = 0; k + 1 < p.insns.size(); ++k) em.emit(p.insns[k], p.regions[k], k);
    } else {
      const Split s = splitProgram(p);
      Instruction pop = emptyLoad();
      pop.pop_next = true;  // "compute done" of the layer before
      em.emit(pop, Region::None);
      for (size_t k : s.early_loads) {
        Instruction i = p.insns[k];
        i.push_next = false;  // the group's push goes on its last load below
        em.emit(i, p.regions[k], k);
      }
      for (size_t k : s.early_compute) em.emit(p.insns[k], p.regions[k], k);
      Instruction barrier = emptyGemm();
      barrier.pop_next = true;   // "store done" of the layer before
      barrier.push_prev = true;  // "data ready"
      em.emit(barrier, Region::None);
      Instruction ready = emptyLoad();
      ready.pop_next = true;
      em.emit(ready, Region::None);
      for (const std::vector<size_t>& group : s.groups) {
        for (size_t k : group) {
          Instruction i = p.insns[k];
          i.push_next = k == group.back();
          em.emit(i, p.regions[k], k);
        }
        if (group.empty()) {
          // A group of weights alone: its push rides on an empty load.
          Instruction push = emptyLoad();
          push.push_next = true;
          em.emit(push, Region::None);
        }
      }
      for (size_t k = 0; k + 1 < p.insns.size(); ++k)
        if (!s.moved[k]) em.emit(p.insns[k], p.regions[k], k);
    }
    if (n + 1 < programs.size()) {
      if (done_at != SIZE_MAX) {
        bool marked = false;
        for (size_t k = first_own; k < c.program.insns.size() && !marked; ++k)
          if (em.origin[k] == done_at) {
            c.program.insns[k].push_prev = true;
            marked = true;
          }
        if (!marked) throw std::logic_error(where + ": its last GEMM was lost");
      } else {
        Instruction compute_done = emptyGemm();
        compute_done.push_prev = true;
        em.emit(compute_done, Region::None);
      }
      Instruction store_done = emptyStore();
      store_done.push_prev = true;
      em.emit(store_done, Region::None);
    } else {
      em.emit(p.insns.back(), p.regions.back());
    }
  }
  return c;
}

size_t chainArtifactSteps(rt::Artifact& artifact, rt::accel::DeviceModule& module) {
  auto onDevice = [](const rt::ArtifactStep& s) { return s.kernel == rt::accel::kConvKernel; };
  auto readsOnlyTheArena = [](const rt::ArtifactStep& s) {
    return s.attrs.getInt("x_resident", 0) != 0 &&
           (s.attrs.getInt("has_residual", 0) == 0 || s.attrs.getInt("r_resident", 0) != 0);
  };
  size_t chains = 0;
  std::vector<rt::ArtifactStep>& steps = artifact.steps;
  for (size_t first = 0; first < steps.size();) {
    size_t last = first;
    if (onDevice(steps[first]))
      while (last + 1 < steps.size() && onDevice(steps[last + 1]) && steps[last].attrs.getInt("y_to_host", 1) == 0 &&
             readsOnlyTheArena(steps[last + 1]))
        ++last;
    if (last > first) {
      std::vector<const DeviceProgram*> programs;
      for (size_t s = first; s <= last; ++s) {
        const int64_t p = steps[s].attrs.getInt("program");
        if (p < 0 || size_t(p) >= module.programs.size())
          throw std::logic_error("step '" + steps[s].name + "' names no program of the module");
        programs.push_back(&module.programs[size_t(p)]);
      }
      ChainedProgram chain =
          chainPrograms(programs, "chain " + steps[first].name + " .. " + steps[last].name);
      steps[first].attrs.set(kChainProgramAttr, static_cast<int64_t>(module.programs.size()));
      for (size_t s = first + 1; s <= last; ++s) steps[s].attrs.set(kChainedAttr, int64_t(1));
      module.programs.push_back(std::move(chain.program));
      ++chains;
    }
    first = last + 1;
  }
  return chains;
}

}  // namespace vdla::accel
