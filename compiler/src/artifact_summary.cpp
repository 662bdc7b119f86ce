#include "vdla/compiler/artifact_summary.h"

#include <map>
#include <set>

#include "vdla/runtime/native/native_kernels.h"

namespace vdla {

void printArtifactSummary(std::ostream& out, const rt::Artifact& a) {
  size_t constants = 0;
  for (const rt::ArtifactTensor& t : a.tensors) constants += t.isConstant() ? 1 : 0;
  out << "artifact '" << a.model_name << "': target " << a.target << ", config " << a.hw_config_name << "; "
      << a.steps.size() << " steps, " << a.tensors.size() << " tensors (" << constants << " constant, "
      << a.constantBytes() << " bytes), " << a.inputs.size() << " inputs, " << a.outputs.size() << " outputs\n";
  // Kernels in name order, so that two runs print alike.
  std::map<std::string, size_t> kernels;
  // Accelerator steps name their program by index (several steps may share one).
  std::set<int64_t> programs;
  const std::string native = rt::native::kNativeKernelPrefix;
  for (const rt::ArtifactStep& s : a.steps) {
    // Generated CPU code has one kernel per step: counted together.
    ++kernels[s.kernel.rfind(native, 0) == 0 ? native + "*" : s.kernel];
    if (s.attrs.has("program")) programs.insert(s.attrs.getInt("program"));
  }
  out << "  kernels:";
  for (const auto& [kernel, count] : kernels) out << " " << kernel << " x" << count;
  out << "\n";
  if (!programs.empty()) out << "  accelerator programs: " << programs.size() << "\n";
  out << "  blobs:";
  if (a.blobs.empty()) out << " none";
  for (const auto& [name, bytes] : a.blobs) out << " " << name << " (" << bytes.size() << " bytes)";
  out << "\n";
}

}  // namespace vdla
