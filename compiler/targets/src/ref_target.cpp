#include "targets.h"
#include "vdla/compiler/stages.h"

namespace vdla::targets {

Target refTarget() {
  Target t;
  t.name = "ref";
  t.summary = "the reference kernels (the runtime alone runs it)";
  t.available = true;
  t.stages = {stages::refLower()};
  return t;
}

}  // namespace vdla::targets
