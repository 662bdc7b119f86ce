// Build-time generator: reads one hardware config and writes the HLS parameter
// header and the RTL package derived from it, or prints the host interface's
// tables for docs/hardware.md.
//   vdla_hwgen CONFIG.json --hls OUT.h --sv OUT.sv
//   vdla_hwgen --interface-doc
#include <fstream>
#include <iostream>
#include <string>

#include "vdla/hw/config.h"
#include "vdla/hw/error.h"
#include "vdla/hw/param_gen.h"

namespace {

void writeFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw vdla::Error(path + ": cannot write");
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::string config, hls, sv;
    if (argc == 2 && std::string(argv[1]) == "--interface-doc") {
      std::cout << vdla::hw::generateInterfaceDoc();
      return 0;
    }
    for (int i = 1; i < argc; ++i) {
      std::string a = argv[i];
      if (a == "--hls" && i + 1 < argc)
        hls = argv[++i];
      else if (a == "--sv" && i + 1 < argc)
        sv = argv[++i];
      else if (config.empty() && a[0] != '-')
        config = a;
      else
        throw vdla::Error("usage: vdla_hwgen CONFIG.json [--hls OUT.h] [--sv OUT.sv] | --interface-doc (unexpected '" +
                          a + "')");
    }
    if (config.empty())
      throw vdla::Error("usage: vdla_hwgen CONFIG.json [--hls OUT.h] [--sv OUT.sv] | --interface-doc");
    vdla::hw::HwConfig cfg = vdla::hw::loadConfig(config);
    if (!hls.empty()) writeFile(hls, vdla::hw::generateHlsHeader(cfg, config));
    if (!sv.empty()) writeFile(sv, vdla::hw::generateSvPackage(cfg, config));
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "vdla_hwgen: error: " << e.what() << "\n";
    return 1;
  }
}
