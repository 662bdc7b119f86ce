#include "targets.h"
#include "vdla/compiler/llvm/llvm_stages.h"
#include "vdla/compiler/stages.h"

namespace vdla::targets {

Target llvmTarget() {
  Target t;
  t.name = "llvm";
  t.summary = "generated CPU code (x86-64 host, armv7, aarch64)";
  t.available = true;
  // A model quantised elsewhere runs as generated int8 code: its integer
  // convolutions and dense layers become vdla.QConv first, its own scales
  // honoured, as for the accelerator.
  t.stages = {stages::qlinearToQConv(stages::QLinearRequant::Float), cpu::llvmCodegenStage()};
  return t;
}

}  // namespace vdla::targets
