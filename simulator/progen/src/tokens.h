#pragma once
// Token bookkeeping of the generator: which flag of an instruction pushes to or
// pops from each of the four dependency-token queues, and vector clocks that
// say how much of each module's stream is known to have completed before an
// instruction starts (what the tokens it popped transitively guarantee).
#include <algorithm>
#include <cstdint>

#include "vdla/hw/isa.h"
#include "vdla/hw/token_ports.h"

namespace vdla::sim::progen {

constexpr int kLoadModule = int(hw::Module::Load);
constexpr int kComputeModule = int(hw::Module::Compute);
constexpr int kStoreModule = int(hw::Module::Store);

// Queues in hw::TokenQueue order (vdla/hw/token_ports.h).
struct QueueEnds {
  int producer, consumer;
};
inline QueueEnds queueEnds(int q) {
  const hw::TokenQueueEnds e = hw::tokenQueueEnds(hw::TokenQueue(q));
  return {int(e.producer), int(e.consumer)};
}

inline int queueBetween(int producer, int consumer) {
  for (int q = 0; q < 4; ++q)
    if (queueEnds(q).producer == producer && queueEnds(q).consumer == consumer) return q;
  return -1;  // load and store are not neighbours
}

// The producer pushes to the stage after it with push_next, to the one before
// with push_prev; likewise for the consumer's pops.
inline bool& pushFlag(hw::Instruction& insn, int q) {
  return queueEnds(q).producer < queueEnds(q).consumer ? insn.push_next : insn.push_prev;
}
inline bool& popFlag(hw::Instruction& insn, int q) {
  return queueEnds(q).producer < queueEnds(q).consumer ? insn.pop_prev : insn.pop_next;
}
inline bool pushes(const hw::Instruction& insn, int q) { return pushFlag(const_cast<hw::Instruction&>(insn), q); }
inline bool pops(const hw::Instruction& insn, int q) { return popFlag(const_cast<hw::Instruction&>(insn), q); }

// done[m] = number of module m's instructions known to have completed.
struct VectorClock {
  uint64_t done[3] = {0, 0, 0};
  void merge(const VectorClock& o) {
    for (int m = 0; m < 3; ++m) done[m] = std::max(done[m], o.done[m]);
  }
};

}  // namespace vdla::sim::progen
