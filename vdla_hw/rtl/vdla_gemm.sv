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
module vdla_gemm (
    input  logic clk,
    input  logic en_mul,  // inp/wgt valid this cycle
    input  logic en_sum,  // products valid this cycle
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

  // Both stages in one block: the trees read the products registered in the
  // previous cycle, then the products are updated. The products are written
  // with blocking assignments after those reads; no other block reads them,
  // so they are still plain registers (for synthesis as for simulation), and
  // the Verilated model stores them directly instead of through its
  // delayed-write bookkeeping for arrays (a flag, a value and a copy per
  // element per cycle).
  always_ff @(posedge clk) begin
    if (en_sum)
      for (int b = 0; b < B; b++)
        for (int o = 0; o < N; o++) sum[(b*N+o)*32+:32] <= tree_sum(b, o);
    if (en_mul)
      for (int b = 0; b < B; b++)
        for (int k = 0; k < K; k++)
          for (int p = 0; p < PAIRS; p++)
            // The high weight of the last pair of an odd BLOCK_OUT is 0 (the
            // multiplier is half used; the clamped index keeps the select in range).
            pair_p[(b*K+k)*PAIRS+p] = vdla_mul_pair_pkg::mul_pair(
                32'(inp[(b*K+k)*8+:8]), 32'(wgt[(p*K+k)*8+:8]),
                (p + PAIRS < N) ? 32'(wgt[((p + PAIRS < N ? p + PAIRS : p)*K+k)*8+:8]) : 32'd0);
  end
endmodule
