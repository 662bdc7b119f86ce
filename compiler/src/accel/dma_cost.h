// The cost model's DMA timings: cycles to move rows of a transfer through
// the load and store engines (vdla_xfer_read, vdla_store), bursts and the
// DRAM latency included. Shared by the tiling searches.
#pragma once

#include <cstdint>

namespace vdla::accel {

// Cycles to write (or move) `rows` DRAM rows of `row_bytes` each on a bus of
// `bus` bytes a beat with `latency` cycles to the first response.
double transferCycles(double rows, double row_bytes, double bus, double latency);

// Cycles to read `rows` DRAM rows of `row_bytes` each, in the steady state of
// the read engine.
double readTransferCycles(double rows, double row_bytes, double bus, double latency);

}  // namespace vdla::accel
