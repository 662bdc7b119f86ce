// vdla config check FILE... | show FILE | list
#include <iostream>
#include <string>
#include <nlohmann/json.hpp>

#include "cli.h"
#include "vdla/hw/isa_layout.h"

namespace vdla::cli {
namespace {

void printSummary(const hw::HwConfig& c) {
  std::cout << "config " << c.name << " (hash " << c.hashHex() << ")\n";
  if (!c.description.empty()) std::cout << "  " << c.description << "\n";
  std::cout << "  target   " << c.board << ", " << c.part << ", " << c.clock_mhz << " MHz\n"
            << "  gemm     " << c.batch << "x" << c.block_in << "x" << c.block_out << " int" << c.input_bits
            << " -> int" << c.acc_bits << ", " << c.macsPerCycle() << " MACs/cycle, "
            << 2.0 * double(c.macsPerCycle()) * c.clock_mhz / 1000.0 << " GOPS peak\n"
            << "  axi      " << c.axi_data_bits << " bits\n"
            << "  queues   command " << c.command_queue_depth << ", token " << c.token_queue_depth << "\n";
  // Datapath extensions (docs/isa.md, "Configuration").
  std::string ext;
  auto add = [&](const std::string& e) { ext += (ext.empty() ? "" : ", ") + e; };
  if (c.fused_requant) add("fused_requant (REQ)");
  if (c.float_requant) add("float_requant (FREQ)");
  if (c.depthwise_taps) add("depthwise_taps " + std::to_string(c.depthwise_taps) + " (DWGEMM)");
  if (c.alu_bias_clear) add("alu_bias_clear (ALU flag bias_clear)");
  if (c.gemm_requant) add("gemm_requant (SETREQ, GEMM flag requant)");
  if (c.acc_dual_read) add("acc_dual_read (second ACC read port)");
  if (c.inp_writeback) add("inp_writeback (STORE INP)");
  std::cout << "  ext      " << (ext.empty() ? "none (the base ISA)" : ext) << "\n"
            << "  memory   entry bytes   depth   index bits\n";
  for (hw::Memory m : {hw::Memory::Uop, hw::Memory::Weight, hw::Memory::Input, hw::Memory::Acc, hw::Memory::Output}) {
    std::printf("  %-6s %12u %7u %12u\n", hw::memoryName(m), c.entryBytes(m), c.depth(m), c.indexBits(m));
  }
  std::fflush(stdout);
  hw::IsaLayout layout(c);
  std::cout << "  isa      bits used of 128:";
  for (int op = 0; op < hw::kNumOpcodes; ++op)
    std::cout << " " << hw::opcodeName(hw::Opcode(op)) << "=" << layout.usedBits(hw::Opcode(op));
  std::cout << "\n";
}

// The bit layout of every instruction kind, as docs/isa.md shows it.
void printLayout(const hw::HwConfig& c) {
  hw::IsaLayout layout(c);
  for (int op = 0; op < hw::kNumOpcodes; ++op) {
    std::cout << hw::opcodeName(hw::Opcode(op)) << " (" << layout.usedBits(hw::Opcode(op)) << " of 128 bits)\n";
    for (const hw::BitField& f : layout.fields(hw::Opcode(op)))
      std::printf("  [%3u:%3u] %-15s %2u bits%s\n", f.offset + f.width - 1, f.offset, hw::fieldName(f.field), f.width,
                  f.is_signed ? ", signed" : "");
    std::fflush(stdout);
  }
  std::cout << "micro-op (32 bits): dst " << layout.uopDstBits() << " | src " << layout.uopSrcBits() << " | wgt "
            << layout.uopWgtBits() << " bits from bit 0\n";
}

}  // namespace

int configCommand(const std::vector<std::string>& args) {
  po::options_description options("vdla config options");
  options.add_options()("action", po::value<std::string>()->required(), "check | show | list")(
      "files", po::value<std::vector<std::string>>(), "config files or built-in names")("json", "print JSON")(
      "isa", "with show: print the instruction bit layout");
  po::positional_options_description positional;
  positional.add("action", 1).add("files", -1);
  po::variables_map vm;
  const char* usage = "vdla config check FILE... | show FILE [--isa] | list  [--json]";
  if (!parseArgs(usage, args, options, positional, vm)) return 0;
  const std::string action = vm["action"].as<std::string>();
  const bool json = vm.count("json");
  std::vector<std::string> files;
  if (vm.count("files")) files = vm["files"].as<std::vector<std::string>>();

  if (action == "list") {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& name : hw::builtinConfigNames()) {
      hw::HwConfig c = hw::loadConfig(name);
      if (json)
        out.push_back({{"name", name}, {"hash", c.hashHex()}, {"description", c.description}});
      else
        std::cout << name << "  " << c.hashHex() << "  " << c.description << "\n";
    }
    if (json) std::cout << out.dump(2) << "\n";
    return 0;
  }
  if (action != "show" && action != "check") throw UsageError("unknown action '" + action + "'\nusage: " + usage);
  if (files.empty()) throw UsageError(std::string("'") + action + "' needs a config file\nusage: " + usage);
  if (action == "show") {
    if (files.size() != 1) throw UsageError("'show' takes one config\nusage: " + std::string(usage));
    hw::HwConfig c = hw::loadConfig(files[0]);
    if (json)
      std::cout << hw::configToJson(c) << "\n";
    else if (vm.count("isa"))
      printLayout(c);
    else
      printSummary(c);
    return 0;
  }
  if (action == "check") {
    nlohmann::json out = nlohmann::json::array();
    int failures = 0;
    for (const auto& f : files) {
      try {
        hw::HwConfig c = hw::loadConfig(f);
        if (json)
          out.push_back({{"file", f}, {"ok", true}, {"name", c.name}, {"hash", c.hashHex()}});
        else
          std::cout << f << ": ok (config " << c.name << ", hash " << c.hashHex() << ")\n";
      } catch (const std::exception& e) {
        ++failures;
        if (json)
          out.push_back({{"file", f}, {"ok", false}, {"error", e.what()}});
        else
          std::cerr << "vdla config: error: " << e.what() << "\n";
      }
    }
    if (json) std::cout << out.dump(2) << "\n";
    return failures ? kExitFailure : 0;
  }
  throw UsageError("unknown action '" + action + "'\nusage: " + usage);
}

}  // namespace vdla::cli
