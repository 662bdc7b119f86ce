// Turns the write stream of vdla_xfer_read into the write port of one SRAM:
// beat `beat` of an entry lands on bits [beat*B, (beat+1)*B) of the entry,
// B = min(entry bits, AXI bits); a zero write clears the whole entry (padding).
// The write data is the beat alone: the RAM (vdla_ram, WDATA_BITS = B) writes
// it to every enabled lane. Replicated across the entry here it was the same
// wiring to synthesis, but the Verilated model assembled the whole entry (1 KiB
// of WGT on zcu104) from the beat in every cycle.
module vdla_beat_writer #(
    parameter int ENTRY_BITS = 128,
    parameter int LANE = 64,  // write-enable granularity of the RAM
    parameter int B = (ENTRY_BITS < vdla_pkg::AXI_DATA_BITS) ? ENTRY_BITS : vdla_pkg::AXI_DATA_BITS
) (
    input  logic                 valid,
    input  logic                 zero,
    input  logic [7:0]           beat,
    input  logic [vdla_pkg::AXI_DATA_BITS-1:0] data,
    output logic [ENTRY_BITS/LANE-1:0] we,
    output logic [B-1:0]         wdata
);
  localparam int LANES = ENTRY_BITS / LANE;
  localparam int LANES_PER_BEAT = B / LANE;

  wire [LANES-1:0] beat_lanes = LANES'((LANES + 1)'((1 << LANES_PER_BEAT) - 1) << (32'(beat) * LANES_PER_BEAT));
  assign we = !valid ? '0 : (zero ? '1 : beat_lanes);
  assign wdata = zero ? '0 : data[B-1:0];
endmodule
