// Cycle-accurate models built on demand (model_cache.h).
//
// A model is built from the model kit of this build (model/make_kit.cmake: a
// snapshot of the RTL, the harness and the model project taken when this
// library was built) by configuring and building the kit's CMake project in
// the cache, and is loaded with dlopen. Its cache folder is named by the
// config hash and the kit fingerprint, so a program only ever finds models
// built from exactly the RTL and harness it was compiled with.
#include "model_cache.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "model_kit_info.h"
#include "model_plugin.h"
#include "vdla/hw/error.h"
#include "vdla/hw/param_gen.h"

namespace fs = std::filesystem;

namespace vdla::sim {
namespace {

constexpr const char* kModuleName = "vdla_cycle_model.so";

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

std::string describe(const hw::HwConfig& cfg, bool checked = false) {
  return std::string(checked ? "checked " : "") + "config '" + cfg.name + "' (hash " + cfg.hashHex() + ")";
}

// The model kit models are built from: this build's own, or the folder named
// by $VDLA_CYCLE_MODEL_KIT (a copy of a kit with modified RTL, to simulate a
// change without rebuilding the project; the tests' mutated RTL). A kit of
// one's own is identified by a hash of its files, so its models never mix
// with the build's.
struct ActiveKit {
  std::string dir, fingerprint;
  bool own = true;
};

std::string hashKitFiles(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().filename() != "fingerprint") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a 64 over relative paths and contents
  auto mix = [&h](const std::string& bytes) {
    for (unsigned char c : bytes) h = (h ^ c) * 0x100000001b3ull;
  };
  for (const fs::path& p : files) {
    mix(fs::relative(p, dir).string());
    mix(std::string(1, '\0'));
    std::ifstream in(p, std::ios::binary);
    std::ostringstream content;
    content << in.rdbuf();
    mix(content.str());
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
  return text;
}

ActiveKit activeKit() {
  const std::string dir = env("VDLA_CYCLE_MODEL_KIT");
  if (dir.empty()) return {model_kit::kDir, model_kit::kFingerprint, true};
  if (!fs::exists(fs::path(dir) / "model" / "CMakeLists.txt"))
    throw Error("VDLA_CYCLE_MODEL_KIT='" + dir + "' is not a model kit (no model/CMakeLists.txt; copy " +
                std::string(model_kit::kDir) + " to make one)");
  return {fs::absolute(dir).string(), hashKitFiles(dir), false};
}

// <config hash>-<kit fingerprint>[-checked]: the fingerprint part keeps
// models of other RTL or harness sources (older or newer builds, a kit of
// one's own) apart, the suffix the checked variant (VDLA_CYCLE_MODEL_CHECKS)
// from the fast one.
std::string modelKey(const hw::HwConfig& cfg, bool checked) {
  return cfg.hashHex() + "-" + activeKit().fingerprint.substr(0, 16) + (checked ? "-checked" : "");
}

std::string lower(std::string v) {
  for (auto& c : v) c = char(std::tolower(static_cast<unsigned char>(c)));
  return v;
}

std::string readFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void writeFile(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw Error("cannot write '" + path.string() + "'");
}

// An exclusive flock() on a file next to the model's folder, held while the
// model is looked for and built; released when the process ends, however it
// ends.
class LockFile {
 public:
  LockFile(const fs::path& path, const std::string& what) {
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) throw Error("cannot open lock file '" + path.string() + "': " + std::strerror(errno));
    if (::flock(fd_, LOCK_EX | LOCK_NB) == 0) return;
    std::fprintf(stderr,
                 "vdla: waiting for another process that is building the cycle-accurate model for %s (lock %s)\n",
                 what.c_str(), path.c_str());
    while (::flock(fd_, LOCK_EX) != 0) {
      if (errno != EINTR) {
        ::close(fd_);
        throw Error("cannot lock '" + path.string() + "': " + std::strerror(errno));
      }
    }
  }
  ~LockFile() { ::close(fd_); }
  LockFile(const LockFile&) = delete;
  LockFile& operator=(const LockFile&) = delete;

 private:
  int fd_ = -1;
};

// Runs argv[0] (a path) with stdout and stderr into `log`, calling `onLine`
// for every line of output. Returns the exit status (128 + signal if killed,
// 127 if it could not be started).
int runLogged(const std::vector<std::string>& argv, std::ofstream& log,
              const std::function<void(const std::string&)>& onLine) {
  log << "$";
  for (const auto& a : argv) log << " " << a;
  log << "\n";
  log.flush();
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw Error(std::string("pipe: ") + std::strerror(errno));
  const pid_t pid = ::fork();
  if (pid < 0) throw Error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    ::dup2(fds[1], 1);
    ::dup2(fds[1], 2);
    ::execv(args[0], args.data());
    _exit(127);
  }
  ::close(fds[1]);
  std::string pending;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    log.write(buf, n);
    pending.append(buf, size_t(n));
    size_t nl;
    while ((nl = pending.find('\n')) != std::string::npos) {
      onLine(pending.substr(0, nl));
      pending.erase(0, nl + 1);
    }
  }
  log.flush();
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

std::string logTail(const fs::path& log, size_t lines) {
  std::ifstream in(log);
  std::deque<std::string> tail;
  std::string line;
  while (std::getline(in, line)) {
    tail.push_back(line);
    if (tail.size() > lines) tail.pop_front();
  }
  std::string s;
  for (const auto& l : tail) s += "  " + l + "\n";
  return s;
}

// The tools the kit's project needs, as found when this library was built.
void checkTools(const hw::HwConfig& cfg) {
  const std::string why = "cannot build a cycle-accurate model for " + describe(cfg) + ": ";
  if (!model_kit::kSharedSystemc)
    throw Error(why + "this build links SystemC statically (" + std::string(model_kit::kSystemcLibrary) +
                "), and a loaded model must share the program's SystemC kernel; use a shared libsystemc, or add the "
                "config to VDLA_CYCLE_CONFIGS");
  const struct {
    const char* what;
    const char* path;
  } tools[] = {{"cmake", model_kit::kCmake},
               {"the build tool", model_kit::kMakeProgram},
               {"the C++ compiler", model_kit::kCxxCompiler},
               {"verilator", model_kit::kVerilator},
               {"the SystemC library", model_kit::kSystemcLibrary}};
  for (const auto& t : tools) {
    if (!fs::exists(t.path))
      throw Error(why + t.what + " (" + t.path +
                  ", found when this program was built) is missing; install it, or "
                  "rebuild the project if it moved");
  }
  const fs::path kit(model_kit::kDir);
  if (activeKit().own && (!fs::exists(kit / "fingerprint") || readFile(kit / "fingerprint") != model_kit::kFingerprint))
    throw Error(why + "the model kit of this build (" + kit.string() +
                ") is missing or belongs to another build; remove " + kit.parent_path().string() +
                " and rebuild the project (cmake --build) to recreate it");
}

unsigned buildJobs() {
  const std::string v = env("VDLA_CYCLE_MODEL_JOBS");
  if (!v.empty()) {
    char* end = nullptr;
    const long n = std::strtol(v.c_str(), &end, 10);
    if (*end || n < 1) throw Error("VDLA_CYCLE_MODEL_JOBS='" + v + "': expected a positive number of jobs");
    return unsigned(n);
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

// Prints "compiling N/M" from the build tool's "[N/M]" (Ninja) or "[ P%]"
// (Makefiles) lines: on a terminal as one line rewritten in place, otherwise
// at every tenth of the build.
class Progress {
 public:
  Progress() : tty_(::isatty(2)) {}
  void line(const std::string& l) {
    // Only compile and link steps: the build first re-runs Verilator (the
    // "verilating" phase, whose steps the build tool counts separately).
    if (l.find("Building") == std::string::npos && l.find("Linking") == std::string::npos) return;
    unsigned n = 0, m = 0;
    if (std::sscanf(l.c_str(), "[%u/%u]", &n, &m) == 2 && m > 0) {
      show(n, m, "compiling " + std::to_string(n) + "/" + std::to_string(m));
    } else if (std::sscanf(l.c_str(), "[ %u%%]", &n) == 1 || std::sscanf(l.c_str(), "[%u%%]", &n) == 1) {
      show(n, 100, "compiling " + std::to_string(n) + "%");
    }
  }
  void finish() {
    if (tty_ && shown_) std::fputc('\n', stderr);
  }

 private:
  void show(unsigned n, unsigned m, const std::string& text) {
    const unsigned tenth = 10 * n / m;
    if (tty_) {
      std::fprintf(stderr, "\rvdla:   %s   ", text.c_str());
    } else {
      if (shown_ && tenth == last_tenth_) return;
      std::fprintf(stderr, "vdla:   %s\n", text.c_str());
    }
    std::fflush(stderr);
    shown_ = true;
    last_tenth_ = tenth;
  }
  bool tty_;
  bool shown_ = false;
  unsigned last_tenth_ = 0;
};

// Builds `cfg`'s model into `final_dir` (which must not exist; the caller
// holds the lock). The build happens in a temporary folder beside it that is
// renamed into place only once the module is complete.
void buildModel(const hw::HwConfig& cfg, bool checked, const fs::path& root, const std::string& key,
                const fs::path& final_dir) {
  checkTools(cfg);
  // Left over by a builder that was killed (only lock holders create these).
  for (const auto& e : fs::directory_iterator(root)) {
    const std::string name = e.path().filename().string();
    if (name.rfind(key + ".tmp.", 0) == 0) fs::remove_all(e.path());
  }
  const fs::path tmp = root / (key + ".tmp." + std::to_string(::getpid()));
  fs::create_directories(tmp);
  const fs::path log_path = tmp / "build.log";
  std::ofstream log(log_path);
  const auto start = std::chrono::steady_clock::now();
  std::fprintf(stderr,
               "vdla: building the cycle-accurate model for %s, first use; this takes about a minute and is cached in "
               "%s\n",
               describe(cfg, checked).c_str(), final_dir.c_str());

  writeFile(tmp / "vdla_pkg.sv", hw::generateSvPackage(cfg, "config '" + cfg.name + "' (cycle model built on demand)"));
  const ActiveKit active = activeKit();
  writeFile(tmp / "config.txt", "config " + cfg.name + "\nhash " + cfg.hashHex() + "\nkit " + active.dir +
                                    (active.own ? "" : " (VDLA_CYCLE_MODEL_KIT)") + "\nkit_fingerprint " +
                                    active.fingerprint + "\n");

  auto fail = [&](const std::string& step, int rc) {
    log.close();
    const fs::path failed = root / (key + ".failed");
    fs::remove_all(failed);
    fs::rename(tmp, failed);
    const fs::path failed_log = failed / "build.log";
    throw Error("building the cycle-accurate model for " + describe(cfg) + " failed: " + step + " exited with status " +
                std::to_string(rc) + "; the full log is " + failed_log.string() + ", its end:\n" +
                logTail(failed_log, 20));
  };

  const fs::path build = tmp / "build";
  const std::string kit = active.dir;
  std::fprintf(stderr, "vdla:   verilating...\n");
  const std::vector<std::string> configure = {model_kit::kCmake,
                                              "-S",
                                              kit + "/model",
                                              "-B",
                                              build.string(),
                                              "-G",
                                              model_kit::kGenerator,
                                              std::string("-DCMAKE_MAKE_PROGRAM=") + model_kit::kMakeProgram,
                                              std::string("-DCMAKE_CXX_COMPILER=") + model_kit::kCxxCompiler,
                                              "-DCMAKE_BUILD_TYPE=Release",
                                              std::string("-Dverilator_DIR=") + model_kit::kVerilatorDir,
                                              "-DVDLA_KIT_DIR=" + kit,
                                              "-DVDLA_PKG=" + (tmp / "vdla_pkg.sv").string(),
                                              "-DVDLA_MODEL_AXI_BITS=" + std::to_string(cfg.axi_data_bits),
                                              "-DVDLA_MODEL_CONFIG_HASH=" + cfg.hashHex(),
                                              "-DVDLA_MODEL_FINGERPRINT=" + active.fingerprint,
                                              std::string("-DVDLA_SYSTEMC_INCLUDE_DIR=") + model_kit::kSystemcInclude,
                                              std::string("-DVDLA_SYSTEMC_LIBRARY=") + model_kit::kSystemcLibrary,
                                              std::string("-DVDLA_JSON_INCLUDE_DIR=") + model_kit::kJsonInclude,
                                              std::string("-DVDLA_MODEL_CHECKS=") + (checked ? "ON" : "OFF")};
  int rc = runLogged(configure, log, [](const std::string&) {});
  if (rc != 0) fail("Verilating (cmake configure)", rc);

  Progress progress;
  const unsigned jobs = buildJobs();
  rc = runLogged({model_kit::kCmake, "--build", build.string(), "--parallel", std::to_string(jobs)}, log,
                 [&](const std::string& l) { progress.line(l); });
  progress.finish();
  if (rc != 0) fail("Compiling (cmake --build)", rc);
  if (!fs::exists(build / kModuleName)) fail("The build left no " + std::string(kModuleName) + ";", 0);

  // Only the module and the log are kept: the object files are hundreds of MB
  // for the larger configs.
  fs::rename(build / kModuleName, tmp / kModuleName);
  fs::remove_all(build);
  log.close();
  fs::rename(tmp, final_dir);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::fprintf(stderr, "vdla:   built in %.0f s (%u jobs)\n", seconds, jobs);
}

// Loaded modules stay loaded for the life of the process: harnesses created
// by them may outlive any one simulator, and SystemC keeps pointers into them.
struct Loaded {
  const CycleModelPlugin* plugin;
  std::string path;
};

// The generated package without its comments (which name the config and
// where it came from): every parameter the RTL is built with.
std::string packageParameters(const std::string& text) {
  std::istringstream in(text);
  std::string line, out;
  while (std::getline(in, line))
    if (line.rfind("//", 0) != 0) out += line + "\n";
  return out;
}

const CycleModelPlugin* loadModule(const hw::HwConfig& cfg, bool checked, const fs::path& dir) {
  const fs::path path = dir / kModuleName;
  const std::string again = "; delete " + dir.string() + " to have it rebuilt";
  // The cache is found by config hash; the package the model was built from
  // must also hold exactly this config's parameters (a config whose hash was
  // changed without its parameters, or the reverse, must not run on the
  // model of another).
  const fs::path pkg = dir / "vdla_pkg.sv";
  if (!fs::exists(pkg)) throw Error("the cycle-accurate model in " + dir.string() + " has no vdla_pkg.sv" + again);
  if (packageParameters(readFile(pkg)) != packageParameters(hw::generateSvPackage(cfg, "")))
    throw Error("the cycle-accurate model in " + dir.string() + " was built from other parameters than " +
                describe(cfg) + again);
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) throw Error("cannot load the cycle-accurate model " + path.string() + ": " + ::dlerror() + again);
  auto fn = reinterpret_cast<VdlaCycleModelPluginFn>(::dlsym(handle, "vdla_cycle_model_plugin"));
  if (!fn) throw Error("the cycle-accurate model " + path.string() + " has no vdla_cycle_model_plugin" + again);
  const CycleModelPlugin* p = fn();
  if (p->abi != kCycleModelPluginAbi)
    throw Error("the cycle-accurate model " + path.string() + " has interface version " + std::to_string(p->abi) +
                ", this program " + std::to_string(kCycleModelPluginAbi) + again);
  const std::string fingerprint = activeKit().fingerprint;
  if (p->config_hash != cfg.hash || std::string(p->kit_fingerprint) != fingerprint) {
    char hash[24];
    std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(p->config_hash));
    throw Error("the cycle-accurate model " + path.string() + " was built for config hash " + hash + " and kit " +
                p->kit_fingerprint + ", not for " + describe(cfg) + " and kit " + fingerprint + again);
  }
  if ((p->checked != 0) != checked)
    throw Error("the cycle-accurate model " + path.string() + " is the " + (p->checked ? "checked" : "fast") +
                " variant, expected the " + (checked ? "checked" : "fast") + " one" + again);
  return p;
}

std::string builtinNames() {
  std::string names;
  for (const auto& n : cycleSimConfigs()) names += (names.empty() ? "" : ", ") + n;
  return names.empty() ? "no config" : names;
}

// The seed is read when each harness is made, so that one process can run
// the checked model under several seeds.
CycleModelFactory factoryOf(const CycleModelPlugin* p) {
  return [p](const hw::HwConfig& cfg, Dram& dram, const DramTiming& timing) {
    return std::unique_ptr<CycleHarness>(p->create(cfg, dram, timing, p->checked ? cycleModelXSeed() : 0));
  };
}

}  // namespace

std::string cycleModelCacheDir() {
  fs::path base;
  if (!env("VDLA_CACHE_DIR").empty())
    base = env("VDLA_CACHE_DIR");
  else if (!env("XDG_CACHE_HOME").empty())
    base = fs::path(env("XDG_CACHE_HOME")) / "vdla";
  else if (!env("HOME").empty())
    base = fs::path(env("HOME")) / ".cache" / "vdla";
  else
    throw Error("no cache folder for cycle-accurate models: set VDLA_CACHE_DIR (or XDG_CACHE_HOME or HOME)");
  return (base / "cycle-models").string();
}

std::string cycleModelDir(const hw::HwConfig& cfg) {
  return (fs::path(cycleModelCacheDir()) / modelKey(cfg, cycleModelChecks())).string();
}

bool cycleModelChecks() {
  const std::string v = lower(env("VDLA_CYCLE_MODEL_CHECKS"));
  if (v.empty() || v == "0" || v == "off" || v == "no" || v == "false") return false;
  if (v == "1" || v == "on" || v == "yes" || v == "true") return true;
  throw Error("VDLA_CYCLE_MODEL_CHECKS='" + env("VDLA_CYCLE_MODEL_CHECKS") +
              "': expected 1/on/yes/true or 0/off/no/false");
}

uint32_t cycleModelXSeed() {
  const std::string v = env("VDLA_CYCLE_MODEL_SEED");
  if (v.empty()) return 1;
  // Digits only: no sign, space or trailing text; 0 is refused because
  // Verilator would then take a seed from the clock, and a failure could not
  // be reproduced.
  bool ok = v.size() <= 10 && std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; });
  const unsigned long long n = ok ? std::stoull(v) : 0;
  if (!ok || n < 1 || n > 0x7fffffffull)
    throw Error("VDLA_CYCLE_MODEL_SEED='" + v + "': expected a number from 1 to 2147483647");
  return uint32_t(n);
}

std::string cycleModelBuildKit() { return model_kit::kDir; }

bool cycleModelBuildEnabled() {
  const std::string v = lower(env("VDLA_CYCLE_MODEL_BUILD"));
  return !(v == "0" || v == "off" || v == "no" || v == "false");
}

bool cycleModelCached(const hw::HwConfig& cfg) {
  try {
    return fs::exists(fs::path(cycleModelDir(cfg)) / kModuleName);
  } catch (const Error&) {
    return false;  // no cache folder: nothing can be cached
  }
}

OnDemandModel loadOnDemandModel(const hw::HwConfig& cfg) {
  static std::mutex mutex;
  static std::map<std::string, Loaded> loaded;
  std::lock_guard<std::mutex> guard(mutex);  // one build at a time within the process

  const fs::path root = cycleModelCacheDir();
  const bool checked = cycleModelChecks();
  const std::string key = modelKey(cfg, checked);
  const fs::path dir = root / key;
  if (auto it = loaded.find(key); it != loaded.end()) return {factoryOf(it->second.plugin), it->second.path, false};

  bool built = false;
  if (!fs::exists(dir / kModuleName)) {
    if (!cycleModelBuildEnabled())
      throw Error("the cycle-accurate simulator has no model for " + describe(cfg, checked) +
                  ": none is built in (this build has models for " + builtinNames() + ") and none is cached in " +
                  dir.string() + ", and VDLA_CYCLE_MODEL_BUILD=" + env("VDLA_CYCLE_MODEL_BUILD") +
                  " forbids building one; unset it to build the model on first use (about a minute)");
    std::error_code ec;
    fs::create_directories(root, ec);
    if (ec) throw Error("cannot create the cycle model cache '" + root.string() + "': " + ec.message());
    LockFile lock(root / (key + ".lock"), describe(cfg, checked));
    // Another process may have built it while this one waited for the lock.
    if (!fs::exists(dir / kModuleName)) {
      if (fs::exists(dir)) fs::remove_all(dir);  // not complete: never renamed into place by a builder
      buildModel(cfg, checked, root, key, dir);
      built = true;
    }
  }
  const CycleModelPlugin* plugin = loadModule(cfg, checked, dir);
  const std::string path = (dir / kModuleName).string();
  loaded[key] = {plugin, path};
  return {factoryOf(plugin), path, built};
}

}  // namespace vdla::sim
