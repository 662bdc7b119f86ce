#include "vdla/api/profile_report.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "vdla/api/report_format.h"

namespace vdla::api {

std::string LayerMeasurement::bound() const {
  if (!measured) return "";
  if (load_busy >= compute_busy && load_busy >= store_busy) return "load";
  return compute_busy >= store_busy ? "compute" : "store";
}

namespace {

// GEMM utilisation: cycles the GEMM core did work / all cycles of the layer.
double utilisation(const LayerMeasurement& m) { return m.cycles > 0 ? m.gemm_cycles / m.cycles : 0; }

struct Totals {
  double cycles = 0, gemm = 0, ideal = 0, mac_weighted_util = 0, estimated = 0;
  int64_t macs = 0;
};

Totals totals(const ProfileReport& r, const std::string& mode) {
  Totals t;
  for (const LayerProfile& l : r.layers) {
    auto it = l.by_mode.find(mode);
    if (it == l.by_mode.end()) continue;
    t.cycles += it->second.cycles;
    t.estimated += it->second.estimated_cycles;
    t.gemm += it->second.gemm_cycles;
    t.ideal += l.ideal_cycles;
    t.macs += l.macs;
    t.mac_weighted_util += double(l.macs) * utilisation(it->second);
  }
  if (t.macs) t.mac_weighted_util /= double(t.macs);
  return t;
}

std::string escapeXml(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '<')
      o += "&lt;";
    else if (c == '>')
      o += "&gt;";
    else if (c == '&')
      o += "&amp;";
    else
      o += c;
  }
  return o;
}

}  // namespace

std::string profileTable(const ProfileReport& r) {
  std::ostringstream o;
  const bool measured = !r.layers.empty() && r.layers.front().by_mode.begin()->second.measured;
  o << "layers on the accelerator (" << r.device << ", config " << r.config << "; cycles "
    << (measured ? "measured" : "estimated by the cost model") << "):\n";
  char line[512];
  std::snprintf(line, sizeof(line), "  %-28s %-18s %9s %11s", "layer", "output", "MMACs", "ideal");
  o << line;
  for (const std::string& m : r.modes) {
    std::snprintf(line, sizeof(line), " %12s %6s", ("cycles LH " + m).c_str(), "util");
    o << line << (measured ? " bound  " : "");
  }
  if (r.modes.size() == 2) o << "  speed-up";
  o << "\n";
  for (const LayerProfile& l : r.layers) {
    std::snprintf(line, sizeof(line), "  %-28s %-18s %9.1f %11.0f", l.name.substr(0, 28).c_str(), l.shape.c_str(),
                  double(l.macs) / 1e6, l.ideal_cycles);
    o << line;
    for (const std::string& m : r.modes) {
      const LayerMeasurement& x = l.by_mode.at(m);
      std::snprintf(line, sizeof(line), " %12.0f %5.1f%%", x.cycles, 100 * utilisation(x));
      o << line;
      // (The busiest module of the layer: what bounds it.)
      if (measured) {
        std::snprintf(line, sizeof(line), " %-7s", x.bound().c_str());
        o << line;
      }
    }
    if (r.modes.size() == 2) {
      const double a = l.by_mode.at(r.modes[0]).cycles, b = l.by_mode.at(r.modes[1]).cycles;
      o << "  " << formatNumber("%.2fx", r.modes[0] == "on" ? b / a : a / b);
    }
    o << "\n";
  }
  for (const std::string& m : r.modes) {
    const Totals t = totals(r, m);
    o << "total, latency hiding " << m << ": " << formatNumber("%.0f", t.cycles) << " cycles ("
      << formatNumber("%.2f", t.cycles / (r.clock_mhz * 1e3)) << " ms at " << formatNumber("%.0f", r.clock_mhz)
      << " MHz), ideal " << formatNumber("%.0f", t.ideal) << "; GEMM utilisation "
      << formatNumber("%.1f", 100 * t.gemm / std::max(t.cycles, 1.0)) << "% of cycles, "
      << formatNumber("%.1f", 100 * t.mac_weighted_util) << "% MAC-weighted over layers; MACs / ideal "
      << formatNumber("%.1f", 100 * t.ideal / std::max(t.cycles, 1.0)) << "%\n";
    if (measured && t.cycles > 0)
      o << "  cost model: " << formatNumber("%.0f", t.estimated) << " cycles, "
        << formatNumber("%+.1f", 100 * (t.estimated / t.cycles - 1)) << "% against the measurement\n";
  }
  if (r.modes.size() == 2) {
    const Totals on = totals(r, "on"), off = totals(r, "off");
    if (on.cycles > 0 && off.cycles > 0)
      o << "speed-up from latency hiding: " << formatNumber("%.2f", off.cycles / on.cycles) << "x\n";
  }
  if (!r.modes.empty() && r.host_work.count(r.modes.front())) {
    o << "latency hiding " << r.modes.front() << ", ";
    o << hostWorkText(r.host_work.at(r.modes.front()));
  }
  return o.str();
}

nlohmann::json profileJson(const ProfileReport& r) {
  nlohmann::json j;
  j["model"] = r.model;
  j["device"] = r.device;
  j["config"] = r.config;
  j["clock_mhz"] = r.clock_mhz;
  j["modes"] = r.modes;
  nlohmann::json layers = nlohmann::json::array();
  for (const LayerProfile& l : r.layers) {
    nlohmann::json e{{"name", l.name}, {"output", l.shape}, {"macs", l.macs}, {"ideal_cycles", l.ideal_cycles}};
    for (const auto& [mode, m] : l.by_mode)
      e["latency_hiding_" + mode] = {{"cycles", m.cycles},
                                     {"gemm_cycles", m.gemm_cycles},
                                     {"gemm_utilisation", utilisation(m)},
                                     {"measured", m.measured},
                                     {"estimated_cycles", m.estimated_cycles}};
    for (const auto& [mode, m] : l.by_mode)
      if (m.measured) {
        nlohmann::json& x = e["latency_hiding_" + mode];
        x["dram_bytes_read"] = m.dram_bytes_read;
        x["dram_bytes_written"] = m.dram_bytes_written;
        x["load_busy_cycles"] = m.load_busy;
        x["compute_busy_cycles"] = m.compute_busy;
        x["store_busy_cycles"] = m.store_busy;
        x["bound"] = m.bound();
      }
    layers.push_back(e);
  }
  j["layers"] = layers;
  for (const std::string& m : r.modes) {
    const Totals t = totals(r, m);
    j["total_latency_hiding_" + m] = {{"cycles", t.cycles},
                                      {"gemm_cycles", t.gemm},
                                      {"ideal_cycles", t.ideal},
                                      {"macs", t.macs},
                                      {"gemm_utilisation", t.gemm / std::max(t.cycles, 1.0)},
                                      {"gemm_utilisation_mac_weighted", t.mac_weighted_util},
                                      {"estimated_cycles", t.estimated},
                                      {"cost_model_error", t.cycles > 0 ? t.estimated / t.cycles - 1 : 0.0}};
  }
  if (r.modes.size() == 2) {
    const Totals on = totals(r, "on"), off = totals(r, "off");
    if (on.cycles > 0) j["speedup_from_latency_hiding"] = off.cycles / on.cycles;
  }
  for (const auto& [mode, work] : r.host_work) j["host_work_latency_hiding_" + mode] = hostWorkJson(work);
  return j;
}

std::string profileSvg(const ProfileReport& r) {
  // Horizontal grouped bars: one group per layer, one bar per mode, a tick at
  // the ideal cycle count, the GEMM utilisation written beside each bar.
  const double label_w = 230, chart_w = 640, bar_h = 12, gap = 10, top = 60;
  const size_t modes = r.modes.size();
  const double group_h = double(modes) * bar_h + gap;
  double max_cycles = 1;
  for (const LayerProfile& l : r.layers)
    for (const auto& [m, x] : l.by_mode) max_cycles = std::max(max_cycles, x.cycles);
  const double height = top + group_h * double(r.layers.size()) + 40, width = label_w + chart_w + 90;
  const char* colours[] = {"#2b7bba", "#e8873a", "#5aa05a"};
  std::ostringstream s;
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
    << "\" font-family=\"sans-serif\" font-size=\"11\">\n";
  s << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  s << "<text x=\"10\" y=\"20\" font-size=\"15\">" << escapeXml(r.model) << " on " << escapeXml(r.device) << " (config "
    << escapeXml(r.config) << "): cycles per layer, latency hiding on vs off</text>\n";
  for (size_t k = 0; k < modes; ++k)
    s << "<rect x=\"" << 10 + 170 * double(k) << "\" y=\"32\" width=\"12\" height=\"12\" fill=\"" << colours[k % 3]
      << "\"/><text x=\"" << 26 + 170 * double(k) << "\" y=\"43\">latency hiding " << r.modes[k] << "</text>\n";
  s << "<text x=\"" << 10 + 170 * double(modes) << "\" y=\"43\">| black tick: ideal (MACs / MACs per cycle)</text>\n";
  for (size_t i = 0; i < r.layers.size(); ++i) {
    const LayerProfile& l = r.layers[i];
    const double y0 = top + group_h * double(i);
    s << "<text x=\"" << label_w - 6 << "\" y=\"" << y0 + bar_h * double(modes) / 2 + 4 << "\" text-anchor=\"end\">"
      << escapeXml(l.name) << "</text>\n";
    for (size_t k = 0; k < modes; ++k) {
      const LayerMeasurement& x = l.by_mode.at(r.modes[k]);
      const double w = chart_w * x.cycles / max_cycles, y = y0 + bar_h * double(k);
      s << "<rect x=\"" << label_w << "\" y=\"" << y << "\" width=\"" << w << "\" height=\"" << bar_h - 1
        << "\" fill=\"" << colours[k % 3] << "\"><title>" << escapeXml(l.name) << " LH " << r.modes[k] << ": "
        << formatNumber("%.0f", x.cycles) << " cycles</title></rect>\n";
      s << "<text x=\"" << label_w + w + 4 << "\" y=\"" << y + bar_h - 2 << "\" font-size=\"9\">"
        << formatNumber("%.0f%%", 100 * utilisation(x)) << "</text>\n";
    }
    const double xi = label_w + chart_w * l.ideal_cycles / max_cycles;
    s << "<line x1=\"" << xi << "\" x2=\"" << xi << "\" y1=\"" << y0 - 1 << "\" y2=\"" << y0 + bar_h * double(modes)
      << "\" stroke=\"black\" stroke-width=\"2\"/>\n";
  }
  s << "<line x1=\"" << label_w << "\" x2=\"" << label_w << "\" y1=\"" << top - 4 << "\" y2=\"" << height - 36
    << "\" stroke=\"#444\"/>\n";
  s << "<text x=\"" << label_w << "\" y=\"" << height - 16 << "\">0</text><text x=\"" << label_w + chart_w << "\" y=\""
    << height - 16 << "\" text-anchor=\"end\">" << formatNumber("%.0f", max_cycles) << " cycles</text>\n";
  s << "</svg>\n";
  return s.str();
}

}  // namespace vdla::api
