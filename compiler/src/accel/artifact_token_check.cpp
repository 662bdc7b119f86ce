// The token proof of a whole artifact: the programs are decoded from the
// device module the artifact carries, so what is proven is what the runtime
// will load, after serialisation.
#include <stdexcept>

#include "vdla/compiler/accel/lowering.h"
#include "vdla/runtime/accel/device_program.h"

namespace vdla::accel {

std::vector<ProgramTokens> checkArtifactTokens(const rt::Artifact& artifact, const hw::HwConfig& cfg) {
  const auto blob = artifact.blobs.find(rt::accel::kProgramsBlob);
  if (blob == artifact.blobs.end())
    throw std::runtime_error(std::string("the artifact has no device module (blob '") + rt::accel::kProgramsBlob +
                             "')");
  const rt::accel::DeviceModule module = rt::accel::deserializeDeviceModule(blob->second, cfg);
  std::vector<ProgramTokens> checked;
  checked.reserve(module.programs.size());
  for (size_t i = 0; i < module.programs.size(); ++i) {
    const rt::accel::DeviceProgram& p = module.programs[i];
    try {
      checked.push_back({p.name, checkTokens(p.insns, cfg, p.name)});
    } catch (const std::exception& e) {
      // checkTokens names the program (the layer); the index finds it in the module.
      throw std::runtime_error("device program " + std::to_string(i) + ": " + e.what());
    }
  }
  return checked;
}

}  // namespace vdla::accel
