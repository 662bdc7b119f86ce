#include "differential.h"

#include <sstream>

#include "vdla/hw/assembly.h"
#include "vdla/selftest/device_program.h"

namespace vdla::progentest {

using sim::progen::RandomProgram;

DeviceRun runOnDevice(driver::Device& device, const RandomProgram& program, std::chrono::milliseconds timeout) {
  selftest::ScopedBuffers scoped(device);
  std::vector<driver::Buffer> buffers;
  std::vector<uint64_t> addrs;
  for (const auto& b : program.buffers) {
    buffers.push_back(scoped.upload(b.init));
    addrs.push_back(buffers.back().phys_addr);
  }
  DeviceRun run;
  run.result = selftest::runProgram(device, scoped, sim::progen::relocate(device.config(), program, addrs), timeout);
  if (!run.result.ok()) return run;
  for (size_t i = 0; i < buffers.size(); ++i)
    run.buffers.push_back(scoped.download<uint8_t>(buffers[i], program.buffers[i].init.size()));
  return run;
}

namespace {

std::string header(const RandomProgram& p, const std::string& what) {
  return "random program seed " + std::to_string(p.seed) + " (config " + p.config_name + "): " + what + "\n";
}

std::string footer(const RandomProgram& p) {
  return "reproduce with vdla::sim::progen::generateProgram(loadConfig(\"" + p.config_name + "\"), " +
         std::to_string(p.seed) + ", <the test's options>)\n" + sim::progen::describeProgram(p);
}

std::string hexByte(uint8_t v) {
  std::ostringstream s;
  s << "0x" << std::hex << int(v);
  return s.str();
}

}  // namespace

std::string compareBuffers(const hw::HwConfig& cfg, const RandomProgram& program, const std::string& name_a,
                           const std::vector<std::vector<uint8_t>>& a, const std::string& name_b,
                           const std::vector<std::vector<uint8_t>>& b) {
  if (a.size() != program.buffers.size() || b.size() != program.buffers.size())
    return header(program, "wrong number of buffers read back") + footer(program);
  std::ostringstream details;
  bool first = true;
  for (size_t i = 0; i < a.size(); ++i) {
    const std::string& name = program.buffers[i].name;
    if (a[i].size() != b[i].size()) {
      details << "buffer '" << name << "' has " << a[i].size() << " bytes on " << name_a << " but " << b[i].size()
              << " on " << name_b << "\n";
      first = false;
      continue;
    }
    size_t count = 0, at = 0;
    for (size_t k = 0; k < a[i].size(); ++k)
      if (a[i][k] != b[i][k] && count++ == 0) at = k;
    if (count == 0) continue;
    const uint32_t entry_bytes = cfg.entryBytes(program.buffers[i].memory);
    details << "buffer '" << name << "' byte " << at << " (" << hw::memoryName(program.buffers[i].memory) << " entry "
            << at / entry_bytes << ", byte " << at % entry_bytes << " of it): " << name_a << " " << hexByte(a[i][at])
            << ", " << name_b << " " << hexByte(b[i][at]) << ", initially " << hexByte(program.buffers[i].init[at])
            << "; " << count << " byte(s) differ in this buffer\n";
    if (first) {
      const int writer = program.buffers[i].written ? sim::progen::lastWriterOf(cfg, program, int(i), at) : -1;
      if (writer >= 0)
        details << "  last written by instruction #" << writer << ": "
                << hw::disassemble(program.instructions[size_t(writer)]) << "\n";
      else
        details << "  no instruction writes this byte: it should keep its initial value\n";
    }
    first = false;
  }
  if (first) return "";
  return header(program, name_a + " and " + name_b + " differ") + details.str() + footer(program);
}

std::string runDifferential(driver::Device& a, driver::Device& b, const RandomProgram& program,
                            std::chrono::milliseconds timeout) {
  const std::string name_a = a.backendName(), name_b = b.backendName() + (name_a == b.backendName() ? "#2" : "");
  DeviceRun ra = runOnDevice(a, program, timeout);
  DeviceRun rb = runOnDevice(b, program, timeout);
  std::string failures;
  if (!ra.result.ok()) failures += name_a + " failed: " + ra.result.message + "\n";
  if (!rb.result.ok()) failures += name_b + " failed: " + rb.result.message + "\n";
  if (!failures.empty()) return header(program, "a run failed") + failures + footer(program);
  // The DRAM traffic each backend reports (fsim counts it as it runs, the
  // cycle device from the program's text) is the program's too.
  const sim::ExecutionStats &sa = ra.result.stats, &sb = rb.result.stats;
  std::ostringstream traffic;
  if (sa.dram_bytes_written != sb.dram_bytes_written)
    traffic << "DRAM bytes written: " << sa.dram_bytes_written << " on " << name_a << ", " << sb.dram_bytes_written
            << " on " << name_b << "\n";
  for (int m = 0; m < hw::kNumMemoryIds; ++m)
    if (sa.dram_bytes_read[m] != sb.dram_bytes_read[m])
      traffic << "DRAM bytes read into " << hw::memoryName(hw::Memory(m)) << ": " << sa.dram_bytes_read[m] << " on "
              << name_a << ", " << sb.dram_bytes_read[m] << " on " << name_b << "\n";
  if (!traffic.str().empty())
    return header(program, "the backends count different traffic") + traffic.str() + footer(program);
  return compareBuffers(a.config(), program, name_a, ra.buffers, name_b, rb.buffers);
}

}  // namespace vdla::progentest
