#pragma once
// Shared plumbing of the `vdla` subcommands: option parsing with --help,
// config and device options, file I/O, and uniform error exits.
#include <boost/program_options.hpp>
#include <functional>
#include <string>
#include <vector>

#include "vdla/driver/device.h"
#include "vdla/hw/config.h"

namespace vdla::cli {

namespace po = boost::program_options;

// Exit codes: 0 success, 1 the work failed (bad input, failed check), 2 usage.
constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Parses `args` (the words after the subcommand) against `options` and the
// positional spec. Returns false if --help was given (help already printed).
bool parseArgs(const std::string& usage, const std::vector<std::string>& args, po::options_description& options,
               const po::positional_options_description& positional, po::variables_map& vm);

// Adds --config (file or built-in name, default pynq).
void addConfigOption(po::options_description& options);
hw::HwConfig configFrom(const po::variables_map& vm);

// Adds --device (a Device backend name, default fsim) and the cycle device's
// --trace FILE, --waves FILE and --max-cycles N.
void addDeviceOption(po::options_description& options);
// Creates the device those options select.
std::unique_ptr<driver::Device> deviceFrom(const po::variables_map& vm, const hw::HwConfig& cfg);
// The same for commands that run whole networks (run, profile): --trace is
// theirs (one timeline of the whole run, run_timeline.h), so the device is
// asked only to record its module activity in each run's statistics.
std::unique_ptr<driver::Device> deviceForNetwork(const po::variables_map& vm, const hw::HwConfig& cfg);
driver::DeviceOptions deviceOptionsForNetwork(const po::variables_map& vm);

std::vector<uint8_t> readFile(const std::string& path);
std::string readTextFile(const std::string& path);
void writeFile(const std::string& path, const std::vector<uint8_t>& bytes);

using Command = std::function<int(const std::vector<std::string>& args)>;

int configCommand(const std::vector<std::string>& args);
int asmCommand(const std::vector<std::string>& args);
int disasmCommand(const std::vector<std::string>& args);
int selftestCommand(const std::vector<std::string>& args);
int execCommand(const std::vector<std::string>& args);
int compileCommand(const std::vector<std::string>& args);
int runCommand(const std::vector<std::string>& args);
int inspectCommand(const std::vector<std::string>& args);
int profileCommand(const std::vector<std::string>& args);
int exploreCommand(const std::vector<std::string>& args);
int keygenCommand(const std::vector<std::string>& args);
int signCommand(const std::vector<std::string>& args);

// Adds --trusted-keys DIR (artifacts must be signed by one of its keys).
void addTrustOption(po::options_description& options);
// Makes the process refuse artifacts the given keys did not sign.
void applyTrustOption(const po::variables_map& vm);

}  // namespace vdla::cli
