#include "cuda_options.h"

#include <sstream>

namespace vdla::cli {

namespace po = boost::program_options;

void addCudaOptions(po::options_description& options) {
  options.add_options()("cuda-arch", po::value<std::string>()->default_value("sm_90"),
                        "target cuda: GPU architectures for cubins, comma-separated (PTX is added for the oldest)")(
      "cuda-tf32", "target cuda: run convolutions on tensor cores with TF32 inputs (about 1e-3 relative error)")(
      "cuda-conv-kernel", po::value<std::string>()->default_value(""),
      "target cuda: one implicit-GEMM kernel for every convolution (simt-32x32 ... simt-128x128, tf32-64x64); "
      "empty chooses per layer");
}

void applyCudaOptions(const po::variables_map& vm, CompileOptions& copts) {
  copts.cuda.archs.clear();
  std::istringstream in(vm["cuda-arch"].as<std::string>());
  for (std::string arch; std::getline(in, arch, ',');)
    if (!arch.empty()) copts.cuda.archs.push_back(arch);
  copts.cuda.tf32_tensor_cores = vm.count("cuda-tf32") != 0;
  copts.cuda.conv_kernel = vm["cuda-conv-kernel"].as<std::string>();
}

}  // namespace vdla::cli
