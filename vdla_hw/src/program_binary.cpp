#include "vdla/hw/program_binary.h"

#include <cstring>

#include "vdla/hw/error.h"

namespace vdla::hw {
namespace {

constexpr char kMagic[8] = {'V', 'D', 'L', 'A', 'P', 'R', 'G', '\0'};
constexpr uint32_t kVersion = 1;
constexpr size_t kHeaderBytes = 24;

void putLe(std::vector<uint8_t>& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(uint8_t(v >> (8 * i)));
}

uint64_t getLe(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= uint64_t(p[i]) << (8 * i);
  return v;
}

}  // namespace

std::vector<uint8_t> encodeInstructionStream(const IsaLayout& layout, const std::vector<Instruction>& program) {
  std::vector<uint8_t> out;
  out.reserve(program.size() * kInstructionBytes);
  for (size_t i = 0; i < program.size(); ++i) {
    EncodedInstruction w = layout.encode(program[i], "instruction " + std::to_string(i));
    putLe(out, w[0], 8);
    putLe(out, w[1], 8);
  }
  return out;
}

std::vector<Instruction> decodeInstructionStream(const IsaLayout& layout, const uint8_t* data, size_t size) {
  if (size % kInstructionBytes != 0)
    throw Error("instruction stream of " + std::to_string(size) + " bytes is not a multiple of " +
                std::to_string(kInstructionBytes) + " (truncated?)");
  std::vector<Instruction> program;
  program.reserve(size / kInstructionBytes);
  for (size_t i = 0; i < size / kInstructionBytes; ++i) {
    const uint8_t* p = data + i * kInstructionBytes;
    program.push_back(layout.decode({getLe(p, 8), getLe(p + 8, 8)}, "instruction " + std::to_string(i)));
  }
  return program;
}

std::vector<uint8_t> encodeMicroOps(const IsaLayout& layout, const std::vector<Uop>& uops) {
  std::vector<uint8_t> out;
  out.reserve(uops.size() * kUopBytes);
  for (size_t i = 0; i < uops.size(); ++i) putLe(out, layout.encodeUop(uops[i], "micro-op " + std::to_string(i)), 4);
  return out;
}

std::vector<uint8_t> writeProgramFile(const HwConfig& cfg, const std::vector<Instruction>& program) {
  std::vector<uint8_t> out(kMagic, kMagic + sizeof kMagic);
  putLe(out, kVersion, 4);
  putLe(out, program.size(), 4);
  putLe(out, cfg.hash, 8);
  std::vector<uint8_t> stream = encodeInstructionStream(IsaLayout(cfg), program);
  out.insert(out.end(), stream.begin(), stream.end());
  return out;
}

std::vector<Instruction> readProgramFile(const HwConfig& cfg, const std::vector<uint8_t>& bytes,
                                         const std::string& origin) {
  if (bytes.size() < kHeaderBytes || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
    throw Error(origin + ": not a VDLA program file (bad magic or shorter than its " + std::to_string(kHeaderBytes) +
                "-byte header)");
  uint32_t version = uint32_t(getLe(&bytes[8], 4));
  if (version != kVersion)
    throw Error(origin + ": program file version " + std::to_string(version) + " is not supported (expected " +
                std::to_string(kVersion) + ")");
  uint64_t count = getLe(&bytes[12], 4);
  uint64_t hash = getLe(&bytes[16], 8);
  if (hash != cfg.hash) {
    HwConfig other = cfg;
    other.hash = hash;
    throw Error(origin + ": program was encoded for hardware configuration " + other.hashHex() + ", but config '" +
                cfg.name + "' has hash " + cfg.hashHex() + " (pass the matching --config)");
  }
  size_t payload = bytes.size() - kHeaderBytes;
  if (payload != count * kInstructionBytes)
    throw Error(origin + ": header announces " + std::to_string(count) + " instructions (" +
                std::to_string(count * kInstructionBytes) + " bytes) but " + std::to_string(payload) +
                " bytes follow (truncated or corrupt file)");
  try {
    return decodeInstructionStream(IsaLayout(cfg), bytes.data() + kHeaderBytes, payload);
  } catch (const Error& e) {
    throw Error(origin + ": " + e.what());
  }
}

}  // namespace vdla::hw
