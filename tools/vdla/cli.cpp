#include "cli.h"

#include <fstream>
#include <iostream>
#include <sstream>

#include "vdla/driver/device.h"
#include "vdla/hw/error.h"
#include "vdla/runtime/artifact_signature.h"

namespace vdla::cli {

bool parseArgs(const std::string& usage, const std::vector<std::string>& args, po::options_description& options,
               const po::positional_options_description& positional, po::variables_map& vm) {
  options.add_options()("help,h", "show this help");
  try {
    po::store(po::command_line_parser(args).options(options).positional(positional).run(), vm);
    if (vm.count("help")) {
      std::cout << "usage: " << usage << "\n\n" << options << "\n";
      return false;
    }
    po::notify(vm);
  } catch (const po::error& e) {
    throw UsageError(std::string(e.what()) + "\nusage: " + usage);
  }
  return true;
}

void addConfigOption(po::options_description& options) {
  std::string names;
  for (const auto& n : hw::builtinConfigNames()) names += (names.empty() ? "" : ", ") + n;
  options.add_options()("config", po::value<std::string>()->default_value(hw::kDefaultConfigName),
                        ("hardware config: a JSON file or a built-in name (" + names + ")").c_str());
}

hw::HwConfig configFrom(const po::variables_map& vm) { return hw::loadConfig(vm["config"].as<std::string>()); }

void addDeviceOption(po::options_description& options) {
  std::string names;
  for (const auto& n : driver::deviceBackends()) names += (names.empty() ? "" : ", ") + n;
  options.add_options()("device", po::value<std::string>()->default_value("fsim"),
                        ("device backend (" + names + ")").c_str())(
      "trace", po::value<std::string>(),
      "write a Chrome/Perfetto timeline (exec, selftest: the cycle device's module activity; run, profile: the "
      "whole network, host steps and accelerator programs)")("waves", po::value<std::string>(),
                                                             "cycle device: write a VCD waveform of the RTL")(
      "max-cycles", po::value<uint64_t>(), "cycle device: stop a run with an error after this many cycles");
}

std::unique_ptr<driver::Device> deviceFrom(const po::variables_map& vm, const hw::HwConfig& cfg) {
  driver::DeviceOptions o;
  if (vm.count("trace")) o.trace_path = vm["trace"].as<std::string>();
  if (vm.count("waves")) o.waves_path = vm["waves"].as<std::string>();
  if (vm.count("max-cycles")) o.max_cycles = vm["max-cycles"].as<uint64_t>();
  return driver::createDevice(vm["device"].as<std::string>(), cfg, o);
}

driver::DeviceOptions deviceOptionsForNetwork(const po::variables_map& vm) {
  driver::DeviceOptions o;
  // Module activity draws the timeline and splits a program chain's cycles
  // into its layers for the profile.
  if ((vm.count("trace") || vm.count("profile")) && vm["device"].as<std::string>() == "cycle") o.record_activity = true;
  if (vm.count("waves")) o.waves_path = vm["waves"].as<std::string>();
  if (vm.count("max-cycles")) o.max_cycles = vm["max-cycles"].as<uint64_t>();
  return o;
}

std::unique_ptr<driver::Device> deviceForNetwork(const po::variables_map& vm, const hw::HwConfig& cfg) {
  return driver::createDevice(vm["device"].as<std::string>(), cfg, deviceOptionsForNetwork(vm));
}

void addTrustOption(po::options_description& options) {
  options.add_options()("trusted-keys", po::value<std::string>(),
                        "refuse artifacts not signed by one of the keys (*.pub) in DIR (also $VDLA_TRUSTED_KEYS)");
}

void applyTrustOption(const po::variables_map& vm) {
  if (vm.count("trusted-keys")) rt::setTrustedKeys(rt::loadTrustedKeys(vm["trusted-keys"].as<std::string>()));
}

std::vector<uint8_t> readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open");
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

std::string readTextFile(const std::string& path) {
  std::vector<uint8_t> bytes = readFile(path);
  return std::string(bytes.begin(), bytes.end());
}

void writeFile(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  if (!out) throw Error(path + ": cannot write");
}

}  // namespace vdla::cli
