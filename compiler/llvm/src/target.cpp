#include "target.h"

#include <mutex>
#include <stdexcept>

#include <llvm/ADT/StringMap.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/Host.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>

namespace vdla::cpu {

using namespace llvm;

void initializeLlvm() {
  static std::once_flag once;
  std::call_once(once, [] {
    InitializeAllTargetInfos();
    InitializeAllTargets();
    InitializeAllTargetMCs();
    InitializeAllAsmPrinters();
  });
}

CpuTarget CpuTarget::host() {
  CpuTarget t;
  t.triple = sys::getProcessTriple();
  t.cpu = sys::getHostCPUName().str();
  StringMap<bool> features;
  if (sys::getHostCPUFeatures(features))
    for (const auto& f : features)
      t.features += (t.features.empty() ? "" : ",") + std::string(f.second ? "+" : "-") + f.first().str();
  return t;
}

CpuTarget CpuTarget::named(const std::string& name) {
  if (name == "host") return host();
  if (name == "armv7") return {"armv7a-unknown-linux-gnueabihf", "cortex-a9", "+neon"};
  if (name == "aarch64") return {"aarch64-unknown-linux-gnu", "generic", "+neon"};
  throw std::invalid_argument("unknown CPU target '" + name + "' (known: host, armv7, aarch64)");
}

std::unique_ptr<TargetMachine> createTargetMachine(const CpuTarget& target) {
  initializeLlvm();
  std::string error;
  const Target* t = TargetRegistry::lookupTarget(target.triple, error);
  if (!t) throw std::runtime_error("LLVM has no target for triple '" + target.triple + "': " + error);
  TargetOptions options;
  if (Triple(target.triple).isARM()) options.FloatABIType = FloatABI::Hard;
  std::unique_ptr<TargetMachine> tm(t->createTargetMachine(target.triple, target.cpu, target.features, options,
                                                           Reloc::PIC_, CodeModel::Small, CodeGenOpt::Aggressive));
  if (!tm) throw std::runtime_error("LLVM could not create a target machine for '" + target.triple + "'");
  return tm;
}

TargetTuning tuningFor(const TargetMachine& machine) {
  TargetTuning t;
  const Triple& triple = machine.getTargetTriple();
  const std::string features = machine.getTargetFeatureString().str();
  auto has = [&](const std::string& f) { return features.find("+" + f) != std::string::npos; };
  if (triple.isX86()) {
    // 32 vector registers with AVX-512: 8 x 2 accumulators; AVX2 has 16: 6 x 2.
    if (has("avx512f"))
      t = {16, 8, 2};
    else if (has("avx2") || has("avx"))
      t = {8, 6, 2};
    else
      t = {4, 6, 2};
  } else if (triple.isAArch64()) {
    t = {4, 8, 2, true};  // 32 NEON registers
  } else {
    t = {4, 4, 2, true};  // armv7 NEON: 16 quad registers
  }
  return t;
}

void optimizeModule(Module& module, TargetMachine& machine) {
  LoopAnalysisManager lam;
  FunctionAnalysisManager fam;
  CGSCCAnalysisManager cgam;
  ModuleAnalysisManager mam;
  PassBuilder pb(&machine);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(OptimizationLevel::O3);
  mpm.run(module, mam);
}

std::vector<uint8_t> emitObject(Module& module, TargetMachine& machine) {
  SmallVector<char, 0> buffer;
  raw_svector_ostream os(buffer);
  legacy::PassManager pm;
  if (machine.addPassesToEmitFile(pm, os, nullptr, CGFT_ObjectFile))
    throw std::runtime_error("LLVM cannot emit object files for '" + machine.getTargetTriple().str() + "'");
  pm.run(module);
  return std::vector<uint8_t>(buffer.begin(), buffer.end());
}

}  // namespace vdla::cpu
