// Program chains: consecutive offloaded layers whose tensors stay on the
// device run as one program, so that consecutive layers overlap where one
// ends and the next begins. A layer's program on its own starts with empty buffers and ends when
// its last store has written DRAM: its first tile's loads (weights, micro-ops,
// parameter vectors) wait for the launch, and the store of its last tile runs
// with the load and compute modules idle. In a chain the next layer's weights
// for its first tile, its micro-ops and its parameter vectors, and where it
// does not read the last stores its first tile's inputs, load while the layer
// before drains.
//
// The chain is built from the layers' own programs (each proven on its own)
// by adding a barrier between them, made of tokens:
//   - "compute done": the previous layer's last GEMM or DWGEMM (the last
//     instruction that reads INP and WGT) pushes to load; the next layer's
//     loads pop it first, so they never overwrite a buffer half still in use;
//   - "store done": the previous layer's store stream ends with an empty
//     STORE that pushes to compute (the store pushes only once its writes
//     have reached DRAM);
//   - "data ready": after its constant loads (micro-ops, parameter vectors),
//     the next layer's compute pops "store done" and pushes this to load with
//     an empty GEMM; the next layer's loads pop it before their second load
//     tile, or before the first where that one waits for the last stores;
//   - the early relay: the next layer's first load tile reads only part of
//     the previous layer's output. Where the last store it reads is not in
//     the previous layer's last tiles, the previous layer's compute pushes
//     one more token to load right after it pops the store module's token for
//     that store's tile, and the previous layer's load stream pops it at the
//     same rank among its pops; the first tile then loads right after
//     "compute done", while the previous layer drains.
// Tokens are counts, so each pop takes the push of the same rank: the extra
// pushes to load come from the compute stream in the order the load stream
// pops them. The next layer's compute writes OUT only after "store done",
// and reads what an earlier layer wrote (a residual) only after it too.
#pragma once

#include <cstdint>
#include <vector>

#include "vdla/hw/config.h"
#include "vdla/runtime/accel/device_program.h"
#include "vdla/runtime/artifact.h"

namespace vdla::accel {

struct ChainedProgram {
  rt::accel::DeviceProgram program;
  // Where each layer's instructions begin in the chain (the first layer's
  // at 0; a layer's barrier instructions count as its own).
  std::vector<uint32_t> layer_starts;
  // Boundaries where the next layer's first load tile waits for none of the
  // layer before's stores (the early relay, or nothing of it read).
  size_t early_first_tiles = 0;
};

// Chains the programs in order (at least one). Each must end with its only
// FINISH; the chain keeps the last one. Throws std::logic_error on a program
// that does not have the shape every code generator gives (an internal error).
ChainedProgram chainPrograms(const std::vector<const rt::accel::DeviceProgram*>& programs, const hw::HwConfig& cfg,
                             const std::string& name);

// Step attributes of a chain: its first step launches the chain's program
// (kChainProgramAttr) instead of its own; the others (kChainedAttr) launch
// nothing. Every step keeps its own program, which runs when each layer's
// output is wanted on the host (DeviceSession::setAllOutputsToHost).
constexpr const char* kChainProgramAttr = "chain_program";
constexpr const char* kChainedAttr = "chained";
// On the first step: where each layer's instructions begin in the chain.
constexpr const char* kChainStartsAttr = "chain_starts";

// Chains every run of two or more consecutive offloaded steps in which each
// step after the first reads its inputs where earlier offloaded steps left
// them in the arena (nothing from the host: every earlier step has finished
// its stores by then, each boundary's barrier waiting for the one before) and
// each step before the last leaves its output to the device alone. Adds the chains' programs to the module and
// their attributes to the steps; returns how many chains it made.
size_t chainArtifactSteps(rt::Artifact& artifact, rt::accel::DeviceModule& module, const hw::HwConfig& cfg);

}  // namespace vdla::accel
