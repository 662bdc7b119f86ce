// The GEMM core: one (BATCH x BLOCK_IN) * (BLOCK_IN x BLOCK_OUT) int8 product per
// cycle, two pipeline stages: products (registered in vdla_mul_pair), then one
// adder tree per output element (registered here). The accumulation into ACC,
// which needs the forwarded accumulator value, is done by the compute module.
//
// The products are an unpacked array (16 bits per element), not one flat
// packed vector: Verilator assembles a 16*B*N*K-bit packed vector from its 256
// (pynq) parts with a chain of wide concatenations on every evaluation, which
// cost more than the rest of the design together; array elements are plain
// stores. Synthesis sees the same wires (yosys turns the array into registers
// -- here nets -- by mem2reg).
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

  logic [15:0] products[B*N*K];  // [b][o][k], int8 product + 2^15 (vdla_mul_pair)

  for (genvar b = 0; b < B; b++) begin : g_b
    for (genvar p = 0; p < PAIRS; p++) begin : g_pair
      for (genvar k = 0; k < K; k++) begin : g_k
        logic [15:0] hi;
        logic [7:0] w_hi;
        if (2 * p + 1 < N) begin : g_hi
          assign w_hi = wgt[((2*p+1)*K+k)*8+:8];
          assign products[(b*N+2*p+1)*K+k] = hi;
        end else begin : g_no_hi
          assign w_hi = 8'd0;  // odd BLOCK_OUT: the last multiplier is half used
        end
        vdla_mul_pair mul (
            .clk, .en(en_mul),
            .x(inp[(b*K+k)*8+:8]),
            .w_lo(wgt[(2*p*K+k)*8+:8]),
            .w_hi(w_hi),
            .p_lo(products[(b*N+2*p)*K+k]), .p_hi(hi)
        );
      end
    end
  end

  // Balanced adder trees over the biased products, unsigned: each is
  // x*w + 2^15 in [16512, 49152], so the sum S of K of them lies in
  // [0, K*2^16) and is exact in SW = 16 + log2(K) bits. The int32 result
  // S - K*2^15 subtracts half that range: S with its top bit inverted, read
  // as a signed SW-bit number (an inverter and sign-extension wires, no
  // adder). The tree is a function so that `level` is a temporary of the
  // call (a local in the Verilated C++, kept in registers) rather than a
  // module variable.
  localparam int SW = 16 + $clog2(K);
  function automatic logic signed [31:0] tree_sum(input int e);  // sum over k of x*w of element e
    logic [31:0] level[K];
    logic [SW-1:0] centred;  // S - K*2^15 as an SW-bit two's complement number
    for (int k = 0; k < K; k++) level[k] = 32'(products[e*K+k]);
    for (int w = K / 2; w >= 1; w = w / 2)
      for (int k = 0; k < w; k++) level[k] = level[2*k] + level[2*k+1];
    centred = level[0][SW-1:0] ^ (SW'(1) << (SW - 1));
    tree_sum = 32'($signed(centred));
  endfunction

  always_ff @(posedge clk) begin
    if (en_sum) for (int e = 0; e < B * N; e++) sum[e*32+:32] <= tree_sum(e);
  end
endmodule
