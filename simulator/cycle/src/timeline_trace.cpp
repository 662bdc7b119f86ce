#include "timeline_trace.h"

#include <fstream>
#include <nlohmann/json.hpp>

#include "vdla/hw/registers.h"
#include "vdla/hw/error.h"

namespace vdla::sim {

namespace regs = hw::regs;

void TimelineTrace::close(int module, uint64_t cycle) {
  const uint32_t state = last_[module] >> 28;
  // Idle time is the absence of events; every other state is an interval.
  if (state != regs::kStIdle && cycle > since_[module])
    intervals_.push_back({module, state, last_[module] & 0x0fffffffu, since_[module], cycle});
}

void TimelineTrace::finish(uint64_t cycle) {
  for (int m = 0; m < 3; ++m) {
    close(m, cycle);
    last_[m] = 0;
    since_[m] = cycle;
  }
}

void TimelineTrace::clear() {
  intervals_.clear();
  for (int m = 0; m < 3; ++m) last_[m] = 0, since_[m] = 0;
}

std::vector<ExecutionStats::ActivityInterval> TimelineTrace::activity(
    uint64_t origin, const std::function<std::string(uint32_t)>& describe) const {
  std::vector<ExecutionStats::ActivityInterval> out;
  out.reserve(intervals_.size());
  for (const Interval& iv : intervals_) {
    ExecutionStats::ActivityInterval a;
    a.module = static_cast<uint8_t>(iv.module);
    a.busy = iv.state == regs::kStBusy;
    a.what = a.busy ? describe(iv.index) : std::string("wait: ") + regs::stateName(iv.state);
    a.instruction = iv.index;
    a.begin = iv.begin >= origin ? int64_t(iv.begin - origin) : 0;
    a.end = iv.end >= origin ? int64_t(iv.end - origin) : 0;
    out.push_back(std::move(a));
  }
  return out;
}

void TimelineTrace::write(const std::string& path, double ns_per_cycle,
                          const std::function<std::string(uint32_t)>& describe) const {
  static const char* const kModules[] = {"load", "compute", "store"};
  nlohmann::json events = nlohmann::json::array();
  for (int m = 0; m < 3; ++m)
    events.push_back(
        {{"name", "thread_name"}, {"ph", "M"}, {"pid", 1}, {"tid", m + 1}, {"args", {{"name", kModules[m]}}}});
  const double us_per_cycle = ns_per_cycle / 1000.0;
  for (const Interval& iv : intervals_) {
    const std::string what = describe(iv.index);
    const bool busy = iv.state == regs::kStBusy;
    events.push_back({{"name", busy ? what : std::string("wait: ") + regs::stateName(iv.state)},
                      {"cat", busy ? "busy" : "wait"},
                      {"ph", "X"},
                      {"pid", 1},
                      {"tid", iv.module + 1},
                      {"ts", double(iv.begin) * us_per_cycle},
                      {"dur", double(iv.end - iv.begin) * us_per_cycle},
                      {"args",
                       {{"index", iv.index},
                        {"opcode", what},
                        {"state", regs::stateName(iv.state)},
                        {"first_cycle", iv.begin},
                        {"cycles", iv.end - iv.begin}}}});
  }
  nlohmann::json doc = {{"traceEvents", events}, {"displayTimeUnit", "ns"}};
  std::ofstream out(path);
  if (!out) throw Error("cannot write trace file '" + path + "'");
  out << doc.dump() << "\n";
  if (!out) throw Error("error writing trace file '" + path + "'");
}

}  // namespace vdla::sim
