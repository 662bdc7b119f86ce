// vdla exec PROGRAM --device fsim: runs a hand-written or assembled program.
// The program's LOAD/STORE addresses are offsets (in entries) into one DRAM
// buffer that the command allocates, optionally fills from a file and dumps
// afterwards; the command relocates them to the buffer's physical address.
#include <cstring>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli.h"
#include "vdla/driver/device.h"
#include "vdla/hw/assembly.h"
#include "vdla/hw/error.h"
#include "vdla/hw/program_binary.h"

namespace vdla::cli {
namespace {

std::vector<hw::Instruction> loadProgram(const hw::HwConfig& cfg, const std::string& path) {
  std::vector<uint8_t> bytes = readFile(path);
  if (bytes.size() >= 8 && std::memcmp(bytes.data(), "VDLAPRG", 8) == 0) return hw::readProgramFile(cfg, bytes, path);
  return hw::assemble(std::string(bytes.begin(), bytes.end()), hw::IsaLayout(cfg), path);
}

}  // namespace

int execCommand(const std::vector<std::string>& args) {
  po::options_description options("vdla exec options");
  options.add_options()("program", po::value<std::string>()->required(), "program file or assembly text")(
      "dram-size", po::value<uint64_t>()->default_value(1 << 20), "bytes of the DRAM buffer the program addresses")(
      "dram-in", po::value<std::string>(), "file whose bytes initialise the DRAM buffer")(
      "dram-out", po::value<std::string>(), "file to write the DRAM buffer to after the run")(
      "timeout-ms", po::value<int64_t>()->default_value(60000), "run timeout")("json", "print the report as JSON");
  addConfigOption(options);
  addDeviceOption(options);
  po::positional_options_description positional;
  positional.add("program", 1);
  po::variables_map vm;
  if (!parseArgs("vdla exec PROGRAM [--device fsim] [--config C] [--dram-in F] [--dram-out F] [--json]", args, options,
                 positional, vm))
    return 0;
  hw::HwConfig cfg = configFrom(vm);
  const std::string path = vm["program"].as<std::string>();
  std::vector<hw::Instruction> program = loadProgram(cfg, path);
  std::unique_ptr<driver::Device> device = deviceFrom(vm, cfg);

  driver::Buffer dram = device->allocate(vm["dram-size"].as<uint64_t>());
  if (vm.count("dram-in")) {
    std::vector<uint8_t> init = readFile(vm["dram-in"].as<std::string>());
    if (init.size() > dram.size)
      throw Error(vm["dram-in"].as<std::string>() + ": " + std::to_string(init.size()) +
                  " bytes do not fit the DRAM buffer of " + std::to_string(dram.size) + " bytes (see --dram-size)");
    device->write(dram, 0, init.data(), init.size());
  }
  for (auto& insn : program)
    if (insn.opcode == hw::Opcode::Load || insn.opcode == hw::Opcode::Store)
      insn.dram_base += dram.phys_addr / cfg.entryBytes(insn.memory);
  std::vector<uint8_t> stream = hw::encodeInstructionStream(hw::IsaLayout(cfg), program);
  driver::Buffer insns = device->allocate(stream.size());
  device->write(insns, 0, stream.data(), stream.size());

  driver::RunResult r =
      device->run(insns.phys_addr, uint32_t(program.size()), std::chrono::milliseconds(vm["timeout-ms"].as<int64_t>()));
  if (!r.ok()) throw Error(path + ": " + r.message);
  if (vm.count("dram-out")) {
    std::vector<uint8_t> out(dram.size);
    device->read(dram, 0, out.data(), out.size());
    writeFile(vm["dram-out"].as<std::string>(), out);
  }
  if (vm.count("json")) {
    nlohmann::json j{{"program", path},
                     {"device", device->backendName()},
                     {"config", cfg.name},
                     {"seconds", r.wall_seconds},
                     {"stats", nlohmann::json::parse(r.stats.toJson())}};
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << path << ": ok on " << device->backendName() << " (" << r.stats.totalInstructions() << " instructions, "
              << r.stats.gemm_macs << " MACs, " << r.stats.alu_element_ops << " ALU ops, " << r.wall_seconds << " s)\n";
  }
  return 0;
}

}  // namespace vdla::cli
