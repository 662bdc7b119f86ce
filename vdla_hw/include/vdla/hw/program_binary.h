#pragma once
// Binary forms of a program.
//
// The instruction stream is what the fetch unit reads from DRAM: 16 bytes per
// instruction, little-endian, bit 0 of the instruction in bit 0 of byte 0.
// A program file wraps that stream in a small header that records the
// configuration hash it was encoded for, so that a program is never decoded or
// run with a different instruction layout:
//
//   offset 0  "VDLAPRG\0"   magic
//          8  u32 version   (1)
//         12  u32 count     instructions
//         16  u64 hash      HwConfig::hash
//         24  count * 16 bytes of instruction stream
#include <cstdint>
#include <string>
#include <vector>

#include "vdla/hw/isa_layout.h"

namespace vdla::hw {

std::vector<uint8_t> encodeInstructionStream(const IsaLayout& layout, const std::vector<Instruction>& program);
// Throws vdla::Error naming the instruction index for an undecodable word or a
// stream whose size is not a multiple of 16 bytes.
std::vector<Instruction> decodeInstructionStream(const IsaLayout& layout, const uint8_t* data, size_t size);

std::vector<uint8_t> encodeMicroOps(const IsaLayout& layout, const std::vector<Uop>& uops);

std::vector<uint8_t> writeProgramFile(const HwConfig& cfg, const std::vector<Instruction>& program);
// Checks magic, version, size and that the hash matches `cfg`; `origin` names
// the file in errors.
std::vector<Instruction> readProgramFile(const HwConfig& cfg, const std::vector<uint8_t>& bytes,
                                         const std::string& origin);

}  // namespace vdla::hw
