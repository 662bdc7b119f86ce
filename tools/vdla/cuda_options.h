// The CUDA target's command-line options (vdla compile / run --target cuda).
#pragma once

#include <boost/program_options.hpp>

#include "vdla/compiler/compile.h"

namespace vdla::cli {

void addCudaOptions(boost::program_options::options_description& options);
// --cuda-arch sm_90,sm_80 and --cuda-tf32 into copts.cuda.
void applyCudaOptions(const boost::program_options::variables_map& vm, CompileOptions& copts);

}  // namespace vdla::cli
