#pragma once
// LOAD: a 2-D strided block from DRAM into an on-chip memory, with zero
// padding around it. Rows of (pad_left + x_size + pad_right) entries are
// written one after the other from sram_base; padding entries are zero.
//
// Shared by the load module (INP, WGT) and the compute module (UOP, ACC,
// ACC8): the row walk is one template, and each module passes a writer that
// knows only the memories that module owns.
#include "vdla_hls.h"

namespace VDLA_HLS_NS {

inline uint32_t load_depth(unsigned memory) {
  switch (memory) {
    case MEM_UOP: return UOP_DEPTH;
    case MEM_INP: return INP_DEPTH;
    case MEM_WGT: return WGT_DEPTH;
    default: return ACC_DEPTH;  // ACC and ACC8
  }
}

inline int load_words(unsigned memory) {
  switch (memory) {
    case MEM_UOP: return 1;
    case MEM_INP: return INP_WORDS;
    case MEM_WGT: return WGT_WORDS;
    case MEM_ACC: return ACC_WORDS;
    default: return ACC8_WORDS;
  }
}

// Writer: void write(unsigned memory, uint32_t sram_entry, int word, uint64_t dram_entry, bool pad).
// Returns ERR_NONE, or ERR_SRAM_RANGE with `info` = one past the last entry.
template <class Writer>
uint8_t load_block(const Xfer& x, Writer& writer, uint32_t& info) {
  const uint64_t rows = uint64_t(x.y_pad_top) + x.y_size + x.y_pad_bottom;
  const uint64_t cols = uint64_t(x.x_pad_left) + x.x_size + x.x_pad_right;
  const uint64_t end = uint64_t(x.sram_base) + rows * cols;
  info = 0;
  if (end > load_depth(x.memory)) {
    info = uint32_t(end);
    return ERR_SRAM_RANGE;
  }
  const int words = load_words(x.memory);
  uint32_t e = x.sram_base;
ROWS:
  for (uint64_t r = 0; r < rows; ++r) {
#pragma HLS loop_tripcount max = 64
    VDLA_HLS_POLL_CANCEL();
    const bool pad_row = r < x.y_pad_top || r >= uint64_t(x.y_pad_top) + x.y_size;
    const uint64_t row_entry = x.dram_base + (r - x.y_pad_top) * uint64_t(x.x_stride);
  COLS:
    for (uint64_t c = 0; c < cols; ++c, ++e) {
#pragma HLS loop_tripcount max = 64
      const bool pad = pad_row || c < x.x_pad_left || c >= uint64_t(x.x_pad_left) + x.x_size;
      const uint64_t entry = pad ? 0 : row_entry + (c - x.x_pad_left);
    WORDS:
      for (int w = 0; w < words; ++w) {
#pragma HLS pipeline II = 1
#pragma HLS loop_tripcount max = 32
        writer.write(x.memory, e, w, entry, pad);
      }
    }
  }
  return ERR_NONE;
}

// Unpacks `BITS/8`-byte words of int8 elements into a [rows][cols] entry.
template <int BITS, int COLS, typename Word, typename Entry>
void unpack_int8(const Word& word, int w, Entry& entry) {
BYTES:
  for (int b = 0; b < BITS / 8; ++b) {
#pragma HLS unroll
    const int el = w * (BITS / 8) + b;
    entry[el / COLS][el % COLS] = int8_t(word.range(8 * b + 7, 8 * b).to_uint64());
  }
}

}  // namespace VDLA_HLS_NS
