// vdla: the toolkit's command-line interface. Each subcommand lives in its own
// file (cmd_*.cpp) and has --help.
#include <iostream>
#include <map>

#include "cli.h"

namespace {

struct Entry {
  vdla::cli::Command run;
  const char* summary;
};

const std::map<std::string, Entry>& commands() {
  static const std::map<std::string, Entry> table = {
      {"config", {vdla::cli::configCommand, "check, show or list hardware configurations"}},
      {"asm", {vdla::cli::asmCommand, "assemble a text program into a program file"}},
      {"disasm", {vdla::cli::disasmCommand, "disassemble a program file or raw instruction stream"}},
      {"exec", {vdla::cli::execCommand, "run an assembled or text program on a device"}},
      {"compile", {vdla::cli::compileCommand, "compile an ONNX or zoo model into an artifact for a target"}},
      {"run", {vdla::cli::runCommand, "run an artifact or model on images or a synthetic input"}},
      {"inspect", {vdla::cli::inspectCommand, "summarise a model or artifact (inputs, operators, parameters, IR)"}},
      {"profile",
       {vdla::cli::profileCommand, "per-layer accelerator cycles and utilisation, latency hiding on vs off"}},
      {"explore",
       {vdla::cli::exploreCommand,
        "sweep accelerator configs for networks on an FPGA part (cost and resource models)"}},
      {"selftest", {vdla::cli::selftestCommand, "run the built-in programs on a device against C++ references"}},
      {"keygen", {vdla::cli::keygenCommand, "make an Ed25519 key pair for signing artifacts"}},
      {"sign", {vdla::cli::signCommand, "sign an artifact file with a secret key"}},
  };
  return table;
}

void printUsage(std::ostream& out) {
  out << "usage: vdla <command> [options]   (vdla <command> --help for details)\n\ncommands:\n";
  for (const auto& [name, entry] : commands())
    out << "  " << name << std::string(10 - name.size(), ' ') << entry.summary << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    printUsage(std::cerr);
    return vdla::cli::kExitUsage;
  }
  std::string name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    printUsage(std::cout);
    return 0;
  }
  auto it = commands().find(name);
  if (it == commands().end()) {
    std::cerr << "vdla: unknown command '" << name << "'\n";
    printUsage(std::cerr);
    return vdla::cli::kExitUsage;
  }
  std::vector<std::string> args(argv + 2, argv + argc);
  try {
    return it->second.run(args);
  } catch (const vdla::cli::UsageError& e) {
    std::cerr << "vdla " << name << ": " << e.what() << "\n";
    return vdla::cli::kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << "vdla " << name << ": error: " << e.what() << "\n";
    return vdla::cli::kExitFailure;
  }
}
