// The GEMM core: one (BATCH x BLOCK_IN) * (BLOCK_IN x BLOCK_OUT) int8 product per
// cycle, two pipeline stages: products (registered pair multiplies,
// vdla_mul_pair_pkg), then one adder tree per output element (registered
// here). The accumulation into ACC, which needs the forwarded accumulator
// value, is done by the compute module.
//
// The pair products are an unpacked array of 32-bit words, not one flat
// packed vector: Verilator assembles a wide packed vector from its parts with
// a chain of wide concatenations on every evaluation; array elements are plain
// stores, and the adder trees read the 16-bit halves in place. The layout is
// [b][k][pair], and pair p multiplies the weights of outputs p (low half)
// and p + PAIRS (high half), so the products of one (b, k) lie next to each
// other and each output's tree reads the same half of consecutive words as
// its neighbours': the compiler can add four outputs' trees at once with
// vector instructions.
// Synthesis sees registers (mem2reg), each the output register of one DSP.
//
// DWGEMM (`dw`, configs with DEPTHWISE_TAPS > 0): pair t < DEPTHWISE_TAPS
// multiplies the input read t iterations ago in the current inner run
// (`win`, zero before the run's first input) by weight row t, and output
// lane [b][c] is the sum over t of the low products of column
// lane_block*BLOCK_OUT + c (c on square arrays): a depthwise convolution row
// on one input read per cycle. The pair keeps one
// activation for both of its products, so the DSP packing is unchanged; only
// the activation's source and the adders differ.
//
// The fast cycle models (Verilator without VDLA_GEMM_SYNTHESIS_FORM) take
// the two modes apart: a GEMM cycle's sums come from one DPI call
// (simulator/cycle/model/fast_model_dpi.cpp, an int8 matrix-vector product on
// vector instructions), registered at the products' stage and moved to
// `sum` at the trees' stage as here, so every cycle and register is the
// same; DWGEMM keeps the pair multiplies and column sums. Synthesis and
// the checked model (VDLA_CYCLE_MODEL_CHECKS=1) see the RTL below alone.
`ifdef VERILATOR
`ifndef VDLA_GEMM_SYNTHESIS_FORM
`define VDLA_GEMM_SPLIT_MODES
`endif
`endif

module vdla_gemm (
    input  logic clk,
    input  logic en_mul,  // inp/wgt valid this cycle
    input  logic en_sum,  // products valid this cycle
    input  logic dw,      // DWGEMM (constant during an instruction)
    input  logic first,   // with en_mul: the first input of a DWGEMM inner run
    // DWGEMM: lane c sums channel lane_block*BLOCK_OUT + c (constant during
    // an instruction; log2(BLOCK_IN/BLOCK_OUT) bits, one unused bit on square arrays)
    input  logic [(vdla_pkg::DWGEMM_LANE_BLOCK_BITS > 0 ? vdla_pkg::DWGEMM_LANE_BLOCK_BITS : 1)-1:0] lane_block,
    input  logic [vdla_pkg::INP_ENTRY_BITS-1:0] inp,  // [b][k]
    input  logic [vdla_pkg::WGT_ENTRY_BITS-1:0] wgt,  // [o][k]
    output logic [vdla_pkg::ACC_ENTRY_BITS-1:0] sum   // [b][o], int32
);
  localparam int B = vdla_pkg::BATCH;
  localparam int K = vdla_pkg::BLOCK_IN;
  localparam int N = vdla_pkg::BLOCK_OUT;
  localparam int PAIRS = (N + 1) / 2;

  // x*w_lo + 2^15 in [15:0], x*w_hi + 2^15 in [31:16] (vdla_mul_pair_pkg)
  (* use_dsp = "yes", mem2reg *) logic [31:0] pair_p[B*K*PAIRS];

  // Balanced adder trees over the biased products, unsigned: each is
  // x*w + 2^15 in [16512, 49152], so the sum S of K of them lies in
  // [0, K*2^16) and is exact in SW = 16 + log2(K) bits. The int32 result
  // S - K*2^15 subtracts half that range: S with its top bit inverted, read
  // as a signed SW-bit number (an inverter and sign-extension wires, no
  // adder). The tree is a function so that `level` is a temporary of the
  // call (a local in the Verilated C++, kept in registers) rather than a
  // module variable.
  localparam int SW = 16 + $clog2(K);
  function automatic logic signed [31:0] tree_sum(input int b, input int o);  // sum over k of x*w of [b][o]
    logic [31:0] level[K];
    logic [31:0] word;
    logic [SW-1:0] centred;  // S - K*2^15 as an SW-bit two's complement number
    for (int k = 0; k < K; k++) begin
      word = pair_p[(b*K+k)*PAIRS+o%PAIRS];
      level[k] = (o >= PAIRS) ? 32'(word[31:16]) : 32'(word[15:0]);
    end
    for (int w = K / 2; w >= 1; w = w / 2)
      for (int k = 0; k < w; k++) level[k] = level[2*k] + level[2*k+1];
    centred = level[0][SW-1:0] ^ (SW'(1) << (SW - 1));
    tree_sum = 32'($signed(centred));
  endfunction

`ifdef VDLA_GEMM_SPLIT_MODES
  // The fast models' GEMM arithmetic (above): the trees' sums of the pair
  // products, computed when the products would be and held until en_sum.
  import "DPI-C" function void vdla_gemm_dot(
      input int batch, input int block_in, input int block_out, input bit [vdla_pkg::INP_ENTRY_BITS-1:0] x,
      input bit [vdla_pkg::WGT_ENTRY_BITS-1:0] w, output bit [vdla_pkg::ACC_ENTRY_BITS-1:0] y);
  logic [vdla_pkg::ACC_ENTRY_BITS-1:0] gemm_dot;
`endif

  // DWGEMM's window: win[t] holds the input read t iterations ago (t >= 1).
  localparam int DWT = vdla_pkg::DEPTHWISE_TAPS;
  localparam int WIN = (DWT > 1) ? DWT : 2;  // entries 1 .. DWT-1 are used
  logic [vdla_pkg::INP_ENTRY_BITS-1:0] win[WIN];
  // Column sums of the low products over the taps: each is x*w + 2^15 in
  // [16512, 49152], so DWT of them are exact in 16 + clog2(DWT) + 1 bits.
  localparam int CW = 17 + $clog2(WIN);
  function automatic logic signed [31:0] column_sum(input int b, input int c);  // sum over t of win[t]*w[t][c]
    logic [CW-1:0] total;
    total = '0;
    for (int t = 0; t < DWT; t++) total = total + CW'(pair_p[(b*K+c)*PAIRS+t][15:0]);
    column_sum = 32'(total) - 32'(DWT) * 32'd32768;
  endfunction

  // Both stages in one block: the trees read the products registered in the
  // previous cycle, then the products are updated. The products are written
  // with blocking assignments after those reads; no other block reads them,
  // so they are still plain registers (for synthesis as for simulation), and
  // the Verilated model stores them directly instead of through its
  // delayed-write bookkeeping for arrays (a flag, a value and a copy per
  // element per cycle).
  always_ff @(posedge clk) begin
    if (DWT != 0 && en_sum && dw) begin
      // Lane [b][c] is channel lane_block*N + c of the input entry: c itself
      // on square arrays, one of K/N columns (a multiplexer per lane) where
      // block_in exceeds block_out.
      for (int b = 0; b < B; b++)
        for (int c = 0; c < N; c++) sum[(b*N+c)*32+:32] <= column_sum(b, (K > N) ? lane_block * N + c : c);
    end else if (en_sum) begin
`ifdef VDLA_GEMM_SPLIT_MODES
      sum <= gemm_dot;
`else
      for (int b = 0; b < B; b++)
        for (int o = 0; o < N; o++) sum[(b*N+o)*32+:32] <= tree_sum(b, o);
`endif
    end
    // Synthesis: one multiplier per pair whatever the mode, the activation
    // selected before it (a call in each of two branches would synthesise
    // two multipliers). The fast models take the modes apart instead: a
    // GEMM's sums in one call, DWGEMM's products without the GEMM's
    // operands; both forms are the same function, and the checked model
    // (VDLA_CYCLE_MODEL_CHECKS=1) simulates the synthesis form.
`ifdef VDLA_GEMM_SPLIT_MODES
    if (en_mul && !(DWT != 0 && dw))
      vdla_gemm_dot(B, K, N, inp, wgt, gemm_dot);
    else if (en_mul)
      // DWGEMM's column sums read the low products of pairs t < DWT only.
      for (int b = 0; b < B; b++)
        for (int k = 0; k < K; k++)
          for (int p = 0; p < (DWT < PAIRS ? DWT : PAIRS); p++)
            pair_p[(b*K+k)*PAIRS+p] = vdla_mul_pair_pkg::mul_pair(
                (p > 0) ? (first ? 32'd0 : 32'(win[p < WIN ? p : 0][(b*K+k)*8+:8])) : 32'(inp[(b*K+k)*8+:8]),
                32'(wgt[(p*K+k)*8+:8]),
                (p + PAIRS < N) ? 32'(wgt[((p + PAIRS < N ? p + PAIRS : p)*K+k)*8+:8]) : 32'd0);
`else
    if (en_mul)
      for (int b = 0; b < B; b++)
        for (int k = 0; k < K; k++)
          for (int p = 0; p < PAIRS; p++)
            // The high weight of the last pair of an odd BLOCK_OUT is 0 (the
            // multiplier is half used; the clamped index keeps the select in range).
            pair_p[(b*K+k)*PAIRS+p] = vdla_mul_pair_pkg::mul_pair(
                (p > 0 && p < DWT && dw) ? (first ? 32'd0 : 32'(win[p < WIN ? p : 0][(b*K+k)*8+:8])) :
                                           32'(inp[(b*K+k)*8+:8]),
                32'(wgt[(p*K+k)*8+:8]),
                (p + PAIRS < N) ? 32'(wgt[((p + PAIRS < N ? p + PAIRS : p)*K+k)*8+:8]) : 32'd0);
`endif
    // DWGEMM's window shifts: the oldest entry drops out; a run's first input
    // leaves only itself.
    if (DWT > 1 && en_mul && dw) begin
      for (int t = WIN - 1; t >= 2; t--) win[t] <= first ? '0 : win[t-1];
      win[1] <= inp;
    end
  end
endmodule

`undef VDLA_GEMM_SPLIT_MODES
