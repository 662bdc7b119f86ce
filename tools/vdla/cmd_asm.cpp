// vdla asm IN.s -o OUT.vprog | vdla disasm IN.vprog
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli.h"
#include "vdla/hw/assembly.h"
#include "vdla/hw/error.h"
#include "vdla/hw/program_binary.h"

namespace vdla::cli {
namespace {

nlohmann::json instructionJson(const hw::IsaLayout& layout, const hw::Instruction& insn) {
  nlohmann::json j;
  j["text"] = hw::disassemble(insn);
  for (const hw::BitField& f : layout.fields(insn.opcode)) j[hw::fieldName(f.field)] = hw::getField(insn, f.field);
  j["opcode"] = hw::opcodeName(insn.opcode);
  j["module"] = hw::moduleName(hw::moduleOf(insn));
  return j;
}

}  // namespace

int asmCommand(const std::vector<std::string>& args) {
  po::options_description options("vdla asm options");
  options.add_options()("input", po::value<std::string>()->required(), "assembly text file")(
      "output,o", po::value<std::string>()->required(), "output program file")(
      "raw", "write the bare instruction stream (no header with the config hash)")("json", "print a JSON summary");
  addConfigOption(options);
  po::positional_options_description positional;
  positional.add("input", 1);
  po::variables_map vm;
  if (!parseArgs("vdla asm IN.s -o OUT.vprog [--config C] [--raw] [--json]", args, options, positional, vm)) return 0;
  hw::HwConfig cfg = configFrom(vm);
  hw::IsaLayout layout(cfg);
  const std::string input = vm["input"].as<std::string>();
  std::vector<hw::Instruction> program = hw::assemble(readTextFile(input), layout, input);
  writeFile(vm["output"].as<std::string>(),
            vm.count("raw") ? hw::encodeInstructionStream(layout, program) : hw::writeProgramFile(cfg, program));
  if (vm.count("json")) {
    nlohmann::json j{{"input", input},
                     {"output", vm["output"].as<std::string>()},
                     {"config", cfg.name},
                     {"hash", cfg.hashHex()},
                     {"instructions", program.size()}};
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << input << ": " << program.size() << " instructions for config " << cfg.name << " -> "
              << vm["output"].as<std::string>() << "\n";
  }
  return 0;
}

int disasmCommand(const std::vector<std::string>& args) {
  po::options_description options("vdla disasm options");
  options.add_options()("input", po::value<std::string>()->required(), "program file")(
      "raw", "the input is a bare instruction stream")("json", "print instructions and their fields as JSON");
  addConfigOption(options);
  po::positional_options_description positional;
  positional.add("input", 1);
  po::variables_map vm;
  if (!parseArgs("vdla disasm IN.vprog [--config C] [--raw] [--json]", args, options, positional, vm)) return 0;
  hw::HwConfig cfg = configFrom(vm);
  hw::IsaLayout layout(cfg);
  const std::string input = vm["input"].as<std::string>();
  std::vector<uint8_t> bytes = readFile(input);
  std::vector<hw::Instruction> program;
  if (vm.count("raw")) {
    try {
      program = hw::decodeInstructionStream(layout, bytes.data(), bytes.size());
    } catch (const std::exception& e) {
      throw Error(input + ": " + e.what());
    }
  } else {
    program = hw::readProgramFile(cfg, bytes, input);
  }
  if (vm.count("json")) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& insn : program) j.push_back(instructionJson(layout, insn));
    std::cout << nlohmann::json{{"config", cfg.name}, {"hash", cfg.hashHex()}, {"instructions", j}}.dump(2) << "\n";
  } else {
    std::cout << "; " << input << ": " << program.size() << " instructions, config " << cfg.name << " (hash "
              << cfg.hashHex() << ")\n"
              << hw::disassembleProgram(program);
  }
  return 0;
}

}  // namespace vdla::cli
