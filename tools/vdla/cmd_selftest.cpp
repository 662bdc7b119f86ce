// vdla selftest --device fsim [--config C] [--json]
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli.h"
#include "vdla/driver/device.h"
#include "vdla/hw/error.h"
#include "vdla/selftest/selftest.h"

namespace vdla::cli {

int selftestCommand(const std::vector<std::string>& args) {
  po::options_description options("vdla selftest options");
  options.add_options()("json", "print results as JSON (progress goes to stderr)")(
      "seed", po::value<uint64_t>()->default_value(1), "random seed for the test data")(
      "filter", po::value<std::string>()->default_value(""), "run only cases whose name contains this")(
      "timeout-ms", po::value<int64_t>()->default_value(120000), "per-program timeout")("list", "list the cases");
  addConfigOption(options);
  addDeviceOption(options);
  po::variables_map vm;
  if (!parseArgs("vdla selftest [--device fsim] [--config C] [--json] [--seed N] [--filter S]", args, options, {}, vm))
    return 0;
  hw::HwConfig cfg = configFrom(vm);
  if (vm.count("list")) {
    for (const auto& n : selftest::selftestCaseNames(cfg)) std::cout << n << "\n";
    return 0;
  }
  const bool json = vm.count("json");
  std::unique_ptr<driver::Device> device = deviceFrom(vm, cfg);
  selftest::SelftestOptions opts;
  opts.seed = vm["seed"].as<uint64_t>();
  opts.filter = vm["filter"].as<std::string>();
  opts.timeout = std::chrono::milliseconds(vm["timeout-ms"].as<int64_t>());
  size_t total = 0;
  for (const auto& name : selftest::selftestCaseNames(cfg)) total += name.find(opts.filter) != std::string::npos;
  std::FILE* progress = json ? stderr : stdout;
  std::fprintf(progress, "selftest: device %s, config %s (hash %s)\n", device->backendName().c_str(), cfg.name.c_str(),
               cfg.hashHex().c_str());
  size_t done = 0;
  auto results = selftest::runSelftests(*device, opts, [&](const selftest::CaseResult& r) {
    std::fprintf(progress, "[%2zu/%zu] %-34s %s  %7.3f s  %s\n", ++done, total, r.name.c_str(),
                 r.passed ? "ok  " : "FAIL", r.seconds, r.detail.c_str());
    std::fflush(progress);
  });
  if (results.empty()) throw Error("no selftest case matches --filter '" + opts.filter + "' (see --list)");
  size_t passed = 0;
  nlohmann::json cases = nlohmann::json::array();
  for (const auto& r : results) {
    passed += r.passed;
    cases.push_back({{"name", r.name},
                     {"passed", r.passed},
                     {"detail", r.detail},
                     {"seconds", r.seconds},
                     {"stats", nlohmann::json::parse(r.stats.toJson())}});
  }
  const size_t failed = results.size() - passed;
  if (json) {
    nlohmann::json out{{"device", device->backendName()},
                       {"config", cfg.name},
                       {"hash", cfg.hashHex()},
                       {"seed", opts.seed},
                       {"passed", passed},
                       {"failed", failed},
                       {"cases", cases}};
    std::cout << out.dump(2) << "\n";
  } else {
    std::cout << "selftest: " << passed << " passed, " << failed << " failed\n";
  }
  return failed ? kExitFailure : 0;
}

}  // namespace vdla::cli
