#include "vdla/compiler/accel/program_chain.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "vdla/hw/token_ports.h"
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
  size_t emit(const Instruction& i, Region r) {
    out.insns.push_back(i);
    out.regions.push_back(r);
    return out.insns.size() - 1;
  }
};

// A token the chain adds: the instruction that pushes it and the one meant to
// pop it.
struct AddedToken {
  size_t push = SIZE_MAX, pop = SIZE_MAX;
  const char* what = "";
};

// Tokens are counts: a pop takes the push of its own rank on its queue. The
// chain's pairing rests on how the code generators order their tokens; this
// checks that every token the chain added is popped where it was meant to be
// (the token check proves the chain free of deadlock, not this).
void checkPairing(const DeviceProgram& chain, const std::vector<AddedToken>& added) {
  const size_t n = chain.insns.size();
  // Per instruction and queue, the rank of its push and of its pop (0: none).
  std::vector<std::array<uint64_t, hw::kNumTokenQueues>> push_rank(n), pop_rank(n);
  std::array<uint64_t, hw::kNumTokenQueues> pushes{}, pops{};
  for (size_t k = 0; k < n; ++k) {
    const Instruction& i = chain.insns[k];
    const hw::TokenPorts ports = hw::tokenPorts(hw::moduleOf(i));
    push_rank[k].fill(0);
    pop_rank[k].fill(0);
    auto count = [](bool flag, int queue, std::array<uint64_t, hw::kNumTokenQueues>& totals,
                    std::array<uint64_t, hw::kNumTokenQueues>& rank) {
      if (flag && queue >= 0) rank[size_t(queue)] = ++totals[size_t(queue)];
    };
    count(i.pop_prev, ports.pop_prev, pops, pop_rank[k]);
    count(i.pop_next, ports.pop_next, pops, pop_rank[k]);
    count(i.push_prev, ports.push_prev, pushes, push_rank[k]);
    count(i.push_next, ports.push_next, pushes, push_rank[k]);
  }
  for (const AddedToken& t : added) {
    bool paired = false;
    for (size_t q = 0; q < hw::kNumTokenQueues && t.push < n && t.pop < n; ++q)
      paired = paired || (push_rank[t.push][q] != 0 && push_rank[t.push][q] == pop_rank[t.pop][q]);
    if (!paired)
      throw std::logic_error("chain '" + chain.name + "': the " + t.what + " token pushed by instruction " +
                             std::to_string(t.push) + " is not the one instruction " + std::to_string(t.pop) + " pops");
  }
}

// The parts of a layer's program that may run ahead of the barrier, by
// instruction index. The first load group (the loads up to the first push to
// compute, a load tile) pops nothing, so it writes buffer halves that are
// free from the start: its weight loads may move ahead, and the rest of it
// follows the barrier (or the early relay) in order, its push on its last
// load. (Later groups stay: weights of a second tile moved ahead delay the
// first tile's input once the layer before has drained.)
struct Split {
  std::vector<size_t> early_loads;          // weight loads of the leading groups that pop nothing
  std::vector<size_t> early_compute;        // leading micro-op and parameter loads
  std::vector<std::vector<size_t>> groups;  // the first load group's other loads (one group or none)
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

// The bytes of the activation arena a LOAD or STORE touches, as one range
// from its first row's start to its last row's end (a superset for a
// transfer of rows with gaps between them: safe for a dependence test).
struct ByteRange {
  uint64_t lo = UINT64_MAX, hi = 0;
  bool empty() const { return lo >= hi; }
  bool intersects(const ByteRange& r) const { return !empty() && !r.empty() && lo < r.hi && r.lo < hi; }
};

ByteRange arenaBytes(const Instruction& i, Region region, const hw::HwConfig& cfg) {
  if (region != Region::Io || i.y_size == 0 || i.x_size == 0) return {};
  const uint64_t entry = cfg.entryBytes(i.memory);
  const uint64_t lo = i.dram_base * entry;
  return {lo, lo + ((uint64_t(i.y_size) - 1) * i.x_stride + i.x_size) * entry};
}

// Where a layer relays to the load module that the stores the next layer's
// first load tile reads have reached DRAM, so that this tile loads while the
// layer drains instead of after its last store. The store's push after the
// tile group holding the last store the tile reads is popped by compute (its
// K-th pop from store); right after that pop compute pushes one more token to
// load, and the load module pops it in the place of the same rank among its
// pops (before the pop that would otherwise take that push).
struct EarlyRelay {
  bool early = false;            // the next layer's first tile needs no other wait on this layer's stores
  size_t push_after = SIZE_MAX;  // compute instruction after which the relay is pushed (SIZE_MAX: none needed)
  size_t pop_before = SIZE_MAX;  // load instruction before which it is popped
  bool pop_at_end = false;       // ... or after the layer's last instruction
};

EarlyRelay planEarlyRelay(const DeviceProgram& p, const std::vector<ByteRange>& next_reads, size_t done_at,
                          const hw::HwConfig& cfg) {
  EarlyRelay r;
  const size_t end = p.insns.size() - 1;  // FINISH
  size_t last_store = SIZE_MAX;
  for (size_t k = 0; k < end; ++k) {
    if (p.insns[k].opcode != Opcode::Store) continue;
    const ByteRange written = arenaBytes(p.insns[k], p.regions[k], cfg);
    for (const ByteRange& read : next_reads)
      if (written.intersects(read)) last_store = k;
  }
  if (last_store == SIZE_MAX) {
    r.early = true;  // it reads nothing this layer writes
    return r;
  }
  size_t pushes = 0, group_end = SIZE_MAX;
  for (size_t k = 0; k < end && group_end == SIZE_MAX; ++k)
    if (p.insns[k].opcode == Opcode::Store && p.insns[k].push_prev) {
      ++pushes;
      if (k >= last_store) group_end = k;
    }
  if (group_end == SIZE_MAX) return r;  // one of the last tiles, whose stores push nothing
  size_t pops = 0, compute_pushes = 0;
  for (size_t k = 0; k < end; ++k) {
    const Instruction& i = p.insns[k];
    if (hw::moduleOf(i) != Module::Compute) continue;
    compute_pushes += i.push_prev;
    if (i.pop_next && ++pops == pushes) {
      if (done_at != SIZE_MAX && done_at <= k) return r;  // no earlier than "compute done"
      r.push_after = k;
      break;
    }
  }
  if (r.push_after == SIZE_MAX) return r;
  size_t load_pops = 0;
  for (size_t k = 0; k < end; ++k)
    if (p.insns[k].opcode == Opcode::Load && hw::moduleOf(p.insns[k]) == Module::Load && p.insns[k].pop_next &&
        ++load_pops == compute_pushes + 1) {
      r.pop_before = k;
      break;
    }
  r.pop_at_end = r.pop_before == SIZE_MAX;
  r.early = true;
  return r;
}

// "compute done" rides on a layer's last GEMM or DWGEMM where that one pushes
// nothing to load (the only instructions that read INP and WGT): the ALU
// passes after it leave both buffers to the next layer. SIZE_MAX: on an
// empty GEMM after the layer's compute.
size_t computeDoneAt(const DeviceProgram& p) {
  for (size_t k = p.insns.size(); k-- > 0;)
    if (p.insns[k].opcode == Opcode::Gemm || p.insns[k].opcode == Opcode::DwGemm)
      return p.insns[k].push_prev ? SIZE_MAX : k;
  return SIZE_MAX;
}

}  // namespace

ChainedProgram chainPrograms(const std::vector<const DeviceProgram*>& programs, const hw::HwConfig& cfg,
                             const std::string& name) {
  if (programs.empty()) throw std::logic_error("chainPrograms: no programs");
  const size_t n_programs = programs.size();
  std::vector<Split> splits(n_programs);
  for (size_t n = 0; n < n_programs; ++n) {
    const DeviceProgram& p = *programs[n];
    const std::string where = "chain '" + name + "', program '" + p.name + "'";
    if (p.insns.empty() || p.insns.back().opcode != Opcode::Finish || hasFlags(p.insns.back()) ||
        p.regions.size() != p.insns.size())
      throw std::logic_error(where + ": does not end with a plain FINISH");
    for (size_t k = 0; k + 1 < p.insns.size(); ++k)
      if (p.insns[k].opcode == Opcode::Finish) throw std::logic_error(where + ": FINISH before its end");
    splits[n] = splitProgram(p);
  }

  ChainedProgram c;
  c.program.name = name;
  Emitter em{c.program};
  bool first_tile_early = false;  // the layer's first tile waits for no store of the layer before
  std::vector<AddedToken> added;
  AddedToken compute_done{SIZE_MAX, SIZE_MAX, "\"compute done\""}, store_done{SIZE_MAX, SIZE_MAX, "\"store done\""};
  for (size_t n = 0; n < n_programs; ++n) {
    const DeviceProgram& p = *programs[n];
    const Split& s = splits[n];
    const bool last = n + 1 == n_programs;
    c.layer_starts.push_back(static_cast<uint32_t>(c.program.insns.size()));
    const size_t done_at = last ? SIZE_MAX : computeDoneAt(p);
    EarlyRelay relay;
    if (!last) {
      // What the next layer's first load tile reads, transfer by transfer.
      std::vector<ByteRange> next_reads;
      const DeviceProgram& next = *programs[n + 1];
      for (const std::vector<size_t>& group : splits[n + 1].groups)
        for (size_t k : group) next_reads.push_back(arenaBytes(next.insns[k], next.regions[k], cfg));
      relay = planEarlyRelay(p, next_reads, done_at, cfg);
    }
    AddedToken early{SIZE_MAX, SIZE_MAX, "early relay"};
    auto emitOwn = [&](size_t k) {
      if (k == relay.pop_before) {
        Instruction pop = emptyLoad();
        pop.pop_next = true;  // the relay: the stores the next layer's first tile reads are done
        early.pop = em.emit(pop, Region::None);
      }
      Instruction i = p.insns[k];
      if (k == done_at) i.push_prev = true;  // "compute done"
      const size_t at = em.emit(i, p.regions[k]);
      if (k == done_at) compute_done.push = at;
      if (k == relay.push_after) {
        Instruction push = emptyGemm();
        push.push_prev = true;
        early.push = em.emit(push, Region::None);
      }
    };
    auto emitGroups = [&]() {
      for (const std::vector<size_t>& group : s.groups) {
        for (size_t k : group) {
          Instruction i = p.insns[k];
          i.push_next = k == group.back();
          em.emit(i, p.regions[k]);
        }
        if (group.empty()) {
          // A group of weights alone: its push rides on an empty load.
          Instruction push = emptyLoad();
          push.push_next = true;
          em.emit(push, Region::None);
        }
      }
    };

    if (n == 0) {
      for (size_t k = 0; k + 1 < p.insns.size(); ++k) emitOwn(k);
    } else {
      Instruction pop = emptyLoad();
      pop.pop_next = true;  // "compute done" of the layer before
      compute_done.pop = em.emit(pop, Region::None);
      added.push_back(compute_done);
      for (size_t k : s.early_loads) {
        Instruction i = p.insns[k];
        i.push_next = false;  // the group's push goes on its last load below
        em.emit(i, p.regions[k]);
      }
      if (first_tile_early) emitGroups();
      for (size_t k : s.early_compute) emitOwn(k);
      Instruction barrier = emptyGemm();
      barrier.pop_next = true;   // "store done" of the layer before
      barrier.push_prev = true;  // "data ready"
      store_done.pop = em.emit(barrier, Region::None);
      added.push_back(store_done);
      Instruction ready = emptyLoad();
      ready.pop_next = true;
      added.push_back({store_done.pop, em.emit(ready, Region::None), "\"data ready\""});
      if (!first_tile_early) emitGroups();
      for (size_t k = 0; k + 1 < p.insns.size(); ++k)
        if (!s.moved[k]) emitOwn(k);
    }
    if (!last) {
      if (relay.pop_at_end) {
        Instruction pop = emptyLoad();
        pop.pop_next = true;
        early.pop = em.emit(pop, Region::None);
      }
      if (early.push != SIZE_MAX) added.push_back(early);
      if (done_at == SIZE_MAX) {
        Instruction carrier = emptyGemm();
        carrier.push_prev = true;
        compute_done.push = em.emit(carrier, Region::None);
      }
      Instruction carrier = emptyStore();
      carrier.push_prev = true;
      store_done.push = em.emit(carrier, Region::None);
    } else {
      em.emit(p.insns.back(), p.regions.back());
    }
    first_tile_early = relay.early;
    c.early_first_tiles += relay.early;
  }
  checkPairing(c.program, added);
  return c;
}

size_t chainArtifactSteps(rt::Artifact& artifact, rt::accel::DeviceModule& module, const hw::HwConfig& cfg) {
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
      ChainedProgram chain = chainPrograms(programs, cfg, "chain " + steps[first].name + " .. " + steps[last].name);
      steps[first].attrs.set(kChainProgramAttr, static_cast<int64_t>(module.programs.size()));
      steps[first].attrs.set(kChainStartsAttr,
                             std::vector<int64_t>(chain.layer_starts.begin(), chain.layer_starts.end()));
      for (size_t s = first + 1; s <= last; ++s) steps[s].attrs.set(kChainedAttr, int64_t(1));
      module.programs.push_back(std::move(chain.program));
      ++chains;
    }
    first = last + 1;
  }
  return chains;
}

}  // namespace vdla::accel
