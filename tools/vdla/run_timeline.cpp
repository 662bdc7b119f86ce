#include "run_timeline.h"

#include <fstream>
#include <nlohmann/json.hpp>

#include "vdla/hw/error.h"

namespace vdla::cli {

namespace {

using nlohmann::json;

constexpr int kHost = 1, kAccelerator = 2;
constexpr int kSteps = 1, kPrograms = 1;  // tids; module m is tid m + 2 on the accelerator

json meta(const char* what, int pid, int tid, const std::string& name) {
  json e = {{"ph", "M"}, {"pid", pid}, {"name", what}, {"args", {{"name", name}}}};
  if (tid) e["tid"] = tid;
  return e;
}

json span(int pid, int tid, const std::string& name, double ts_us, double dur_us, json args = json::object()) {
  return {{"ph", "X"}, {"pid", pid}, {"tid", tid}, {"name", name}, {"ts", ts_us}, {"dur", dur_us}, {"args", args}};
}

}  // namespace

size_t writeRunTimeline(const std::string& path, const std::vector<rt::StepProfile>& steps, const std::string& title,
                        double clock_mhz) {
  json events = json::array();
  events.push_back(meta("process_name", kHost, 0, "host: " + title + " (measured time on this machine)"));
  events.push_back(meta("thread_name", kHost, kSteps, "steps"));
  bool any_device = false;
  for (const auto& s : steps) any_device = any_device || s.on_device;
  if (any_device) {
    events.push_back(meta("process_name", kAccelerator, 0,
                          clock_mhz > 0 ? "accelerator (cycles at " + std::to_string(int(clock_mhz)) + " MHz)"
                                        : "accelerator (no timing: host time of its runs)"));
    events.push_back(meta("thread_name", kAccelerator, kPrograms, "programs"));
    static const char* const kModules[] = {"load", "compute", "store"};
    for (int m = 0; m < 3; ++m) events.push_back(meta("thread_name", kAccelerator, m + 2, kModules[m]));
  }
  double t = 0;  // microseconds on the one axis
  for (size_t i = 0; i < steps.size(); ++i) {
    const rt::StepProfile& s = steps[i];
    if (!s.on_device) {
      events.push_back(span(kHost, kSteps, s.name, t, s.seconds * 1e6, {{"step", i}, {"kernel", s.kernel}}));
      t += s.seconds * 1e6;
      continue;
    }
    const sim::ExecutionStats& st = s.device_stats;
    const bool timed = clock_mhz > 0 && st.has_cycle_counters;
    const double before = s.host_before_seconds * 1e6, after = s.host_after_seconds * 1e6;
    const double run = timed ? double(st.cycles) / clock_mhz : s.device_seconds * 1e6;
    events.push_back(span(kHost, kSteps, s.name + ": pack and upload", t, before, {{"step", i}}));
    t += before;
    json args = {
        {"step", i}, {"kernel", s.kernel}, {"instructions", st.totalInstructions()}, {"gemm_macs", st.gemm_macs}};
    if (timed) {
      args["cycles"] = st.cycles;
      args["gemm_utilisation"] = st.gemmUtilisation();
      args["simulated_in_seconds"] = s.device_seconds;
    }
    events.push_back(span(kAccelerator, kPrograms, s.name, t, run, args));
    if (timed)
      for (const auto& a : st.activity)
        events.push_back(span(kAccelerator, a.module + 2, a.what, t + double(a.begin) / clock_mhz,
                              double(a.end - a.begin) / clock_mhz,
                              {{"step", s.name}, {"instruction", a.instruction}, {"cycles", a.end - a.begin}}));
    t += run;
    events.push_back(span(kHost, kSteps, s.name + ": download and unpack", t, after, {{"step", i}}));
    t += after;
  }
  std::ofstream out(path);
  if (!out) throw Error("cannot write trace file '" + path + "'");
  out << json{{"traceEvents", events}, {"displayTimeUnit", "ms"}}.dump() << "\n";
  if (!out) throw Error("error writing trace file '" + path + "'");
  return events.size();
}

}  // namespace vdla::cli
