// vdla_run_artifact ARTIFACT [--input FILE]... [--output FILE]... [--repeat N] [--device NAME]
//
// Runs a compiled artifact of a CPU target (ref, llvm) on raw tensors, and,
// in a runtime built with VDLA_RUNTIME_ACCEL, one of target vdla on the
// accelerator named by --device (pynq on a Zynq board, xrt through XRT, fsim
// anywhere): each --input file holds one graph input's elements in the
// artifact's element type and shape (row major, little endian, no header),
// each --output file receives one graph output the same way. It is the whole user interface of the
// deployable runtime, so it uses nothing but the C++ standard library and
// vdla_runtime (no option parser) and prints plain text.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "vdla/runtime/executor.h"
#ifdef VDLA_RUNTIME_ACCEL
#include "vdla/driver/device.h"
#include "vdla/hw/config.h"
#endif

namespace {

using namespace vdla::rt;

const char* const kUsage =
    "usage: vdla_run_artifact ARTIFACT [--input FILE]... [--output FILE]... [--repeat N]\n"
    "  --input FILE   raw bytes of the next graph input (its element type and shape, row major)\n"
    "  --output FILE  where to write the next graph output (raw bytes)\n"
    "  --repeat N     run N times and report the fastest (default 1)\n"
#ifdef VDLA_RUNTIME_ACCEL
    "  --device NAME  target vdla: the accelerator (pynq on a Zynq board; xrt through Xilinx XRT when built with it;\n"
    "                 fsim, the functional simulator)\n"
#endif
    "Without --input, prints the artifact's inputs and outputs and runs nothing.\n";

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Options {
  std::string artifact;
  std::vector<std::string> inputs, outputs;
  int repeat = 1;
  std::string device;  // target vdla only
};

Options parseOptions(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw UsageError(a + " needs a value");
      return argv[++i];
    };
    if (a == "--input")
      o.inputs.push_back(value());
    else if (a == "--output")
      o.outputs.push_back(value());
    else if (a == "--device")
      o.device = value();
    else if (a == "--repeat") {
      const std::string v = value();
      char* end = nullptr;
      const long n = std::strtol(v.c_str(), &end, 10);
      if (v.empty() || *end != '\0' || n < 1 || n > 1000000)
        throw UsageError("--repeat needs a count from 1, got '" + v + "'");
      o.repeat = static_cast<int>(n);
    } else if (a == "-h" || a == "--help") {
      std::cout << kUsage;
      std::exit(0);
    } else if (!a.empty() && a[0] == '-')
      throw UsageError("unknown option '" + a + "'");
    else if (o.artifact.empty())
      o.artifact = a;
    else
      throw UsageError("more than one artifact given ('" + o.artifact + "' and '" + a + "')");
  }
  if (o.artifact.empty()) throw UsageError("no artifact given");
  return o;
}

Tensor readInput(const std::string& path, const ArtifactTensor& t, size_t index) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("--input " + path + ": cannot open it");
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Tensor tensor(t.type);
  if (bytes.size() != tensor.byteSize())
    throw std::runtime_error("--input " + path + ": has " + std::to_string(bytes.size()) + " bytes, but input " +
                             std::to_string(index) + " '" + t.name + "' is " + t.type.toString() + " (" +
                             std::to_string(tensor.byteSize()) + " bytes)");
  std::copy(bytes.begin(), bytes.end(), static_cast<char*>(tensor.raw()));
  return tensor;
}

void writeOutput(const std::string& path, const Tensor& t) {
  std::ofstream out(path, std::ios::binary);
  out.write(static_cast<const char*>(t.raw()), static_cast<std::streamsize>(t.byteSize()));
  if (!out) throw std::runtime_error("--output " + path + ": cannot write it");
}

int run(const Options& o) {
  Artifact artifact = loadArtifact(o.artifact);
  if (o.inputs.empty()) {
    for (size_t i = 0; i < artifact.inputs.size(); ++i) {
      const ArtifactTensor& t = artifact.tensors[static_cast<size_t>(artifact.inputs[i])];
      std::cout << "input " << i << " '" << t.name << "' " << t.type.toString() << "\n";
    }
    for (size_t i = 0; i < artifact.outputs.size(); ++i) {
      const ArtifactTensor& t = artifact.tensors[static_cast<size_t>(artifact.outputs[i])];
      std::cout << "output " << i << " '" << t.name << "' " << t.type.toString() << "\n";
    }
    return 0;
  }
  ExecutorOptions options;
#ifdef VDLA_RUNTIME_ACCEL
  // The device is built for the config the artifact was compiled for; the
  // executor then checks the configuration hash the device reports.
  vdla::hw::HwConfig config;
  std::unique_ptr<vdla::driver::Device> device;
  if (targetNeedsDevice(artifact.target)) {
    if (o.device.empty())
      throw UsageError(o.artifact + ": target '" + artifact.target + "' needs --device (pynq, xrt or fsim)");
    config = vdla::hw::loadConfig(artifact.hw_config_name);
    device = vdla::driver::createDevice(o.device, config);
    options.device = device.get();
  } else if (!o.device.empty()) {
    throw UsageError("--device is for target vdla; " + o.artifact + " is target '" + artifact.target + "'");
  }
#else
  if (targetNeedsDevice(artifact.target))
    throw ArtifactError(o.artifact + ": target '" + artifact.target +
                        "' needs the accelerator; this runner runs CPU targets (ref, llvm) "
                        "(a runtime built with VDLA_RUNTIME_ACCEL=ON runs it with --device)");
  if (!o.device.empty()) throw UsageError("--device needs a runtime built with VDLA_RUNTIME_ACCEL=ON");
#endif
  Executor executor(std::move(artifact), options);
  if (o.inputs.size() != executor.numInputs())
    throw UsageError(o.artifact + " takes " + std::to_string(executor.numInputs()) + " input(s), " +
                     std::to_string(o.inputs.size()) + " --input given");
  if (o.outputs.size() > executor.numOutputs())
    throw UsageError(o.artifact + " has " + std::to_string(executor.numOutputs()) + " output(s), " +
                     std::to_string(o.outputs.size()) + " --output given");
  std::vector<Tensor> inputs;
  for (size_t i = 0; i < o.inputs.size(); ++i) inputs.push_back(readInput(o.inputs[i], executor.input(i), i));

  std::vector<Tensor> results;
  double best = 0;
  for (int r = 0; r < o.repeat; ++r) {
    const auto start = std::chrono::steady_clock::now();
    results = executor.run(inputs);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    best = r == 0 ? s : std::min(best, s);
  }
  for (size_t i = 0; i < o.outputs.size(); ++i) writeOutput(o.outputs[i], results[i]);
  char ms[32];
  std::snprintf(ms, sizeof(ms), "%.3f", best * 1e3);
  std::cout << o.artifact << ": target " << executor.artifact().target << ", " << executor.artifact().steps.size()
            << " steps, ran in " << ms << " ms" << (o.repeat > 1 ? " (fastest run)" : "") << "\n";
  for (size_t i = 0; i < results.size(); ++i) {
    std::cout << "output " << i << " '" << executor.output(i).name << "' " << results[i].type().toString();
    if (i < o.outputs.size()) std::cout << " -> " << o.outputs[i];
    std::cout << "\n";
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(parseOptions(argc, argv));
  } catch (const UsageError& e) {
    std::cerr << "vdla_run_artifact: " << e.what() << "\n" << kUsage;
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "vdla_run_artifact: " << e.what() << "\n";
    return 1;
  }
}
