#include "vdla/explore/explore_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace vdla::explore {

namespace {

std::string num(double v, const char* fmt = "%.6g") {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

std::string csvField(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string xmlEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace

std::string resultsCsv(const std::vector<PointResult>& results) {
  std::ostringstream out;
  out << "name,hash,batch,block_in,block_out,input_kib,weight_kib,accumulator_kib,uop_kib,axi_bits,clock_mhz,"
         "latency_hiding,lut,ff,dsp,bram36,uram,fits,why_not_fits,complete,on_front,latency_ms,host_ms";
  if (!results.empty())
    for (const NetworkResult& n : results[0].networks)
      out << "," << csvField(n.network + " latency_ms") << "," << csvField(n.network + " mac_utilisation") << ","
          << csvField(n.network + " host_ms");
  out << "\n";
  for (const PointResult& r : results) {
    const hw::HwConfig& c = r.point.config;
    out << c.name << "," << c.hashHex() << "," << c.batch << "," << c.block_in << "," << c.block_out << ","
        << c.input_bytes / 1024 << "," << c.weight_bytes / 1024 << "," << c.acc_bytes / 1024 << ","
        << c.uop_bytes / 1024 << "," << c.axi_data_bits << "," << num(c.clock_mhz) << ","
        << (r.point.latency_hiding ? 1 : 0) << "," << num(r.resources.lut, "%.0f") << "," << num(r.resources.ff, "%.0f")
        << "," << num(r.resources.dsp, "%.0f") << "," << num(r.resources.bram36, "%.1f") << ","
        << num(r.resources.uram, "%.0f") << "," << (r.fits() ? 1 : 0) << "," << csvField(r.why_not_fits) << ","
        << (r.complete ? 1 : 0) << "," << (r.on_front ? 1 : 0) << "," << num(r.latency_ms) << "," << num(r.host_ms);
    for (const NetworkResult& n : r.networks)
      out << "," << num(n.latency_ms) << "," << num(n.mac_utilisation, "%.4f") << "," << num(n.host_ms);
    out << "\n";
  }
  return out.str();
}

std::string paretoSvg(const std::vector<PointResult>& results, const std::vector<ChartMarker>& markers,
                      const FpgaPart& part, const std::string& title, Objective objective) {
  const double W = 820, H = 520, left = 80, right = 190, top = 50, bottom = 60;
  const double pw = W - left - right, ph = H - top - bottom;
  double max_dsp = part.dsp, max_lat = 0;
  auto consider = [&](const PointResult& r) {
    if (!r.complete) return;
    max_dsp = std::max(max_dsp, r.resources.dsp);
    max_lat = std::max(max_lat, objectiveMs(r, objective));
  };
  for (const PointResult& r : results) consider(r);
  for (const ChartMarker& m : markers) consider(m.result);
  if (max_lat <= 0) max_lat = 1;
  // Latency on a log scale: design spaces span orders of magnitude.
  double min_lat = max_lat;
  for (const PointResult& r : results)
    if (r.complete && objectiveMs(r, objective) > 0) min_lat = std::min(min_lat, objectiveMs(r, objective));
  for (const ChartMarker& m : markers)
    if (m.result.complete && objectiveMs(m.result, objective) > 0)
      min_lat = std::min(min_lat, objectiveMs(m.result, objective));
  const double lo = std::pow(10.0, std::floor(std::log10(min_lat))),
               hi = std::pow(10.0, std::ceil(std::log10(max_lat)));
  const double xmax = max_dsp * 1.05;
  auto X = [&](double dsp) { return left + pw * dsp / xmax; };
  auto Y = [&](double ms) {
    return top + ph * (1 - (std::log10(ms) - std::log10(lo)) / (std::log10(hi) - std::log10(lo)));
  };

  std::ostringstream s;
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W << "\" height=\"" << H
    << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  s << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  s << "<text x=\"" << left << "\" y=\"24\" font-size=\"15\">" << xmlEscape(title) << "</text>\n";
  // Axes, grid and the part's DSP capacity.
  s << "<rect x=\"" << left << "\" y=\"" << top << "\" width=\"" << pw << "\" height=\"" << ph
    << "\" fill=\"none\" stroke=\"#444\"/>\n";
  for (double d = lo; d <= hi * 1.0001; d *= 10) {
    for (int k = 1; k < 10; ++k) {
      const double v = d * k;
      if (v > hi * 1.0001) break;
      s << "<line x1=\"" << left << "\" x2=\"" << left + pw << "\" y1=\"" << Y(v) << "\" y2=\"" << Y(v)
        << "\" stroke=\"" << (k == 1 ? "#bbb" : "#eee") << "\"/>\n";
      if (k == 1 || k == 2 || k == 5)
        s << "<text x=\"" << left - 6 << "\" y=\"" << Y(v) + 4 << "\" text-anchor=\"end\">" << num(v) << "</text>\n";
    }
  }
  // At most about eight DSP ticks, at 1, 2 or 5 times a power of ten.
  double step = std::pow(10.0, std::floor(std::log10(xmax / 8)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (xmax / (step * m) <= 8) {
      step *= m;
      break;
    }
  for (double d = 0; d <= xmax; d += step)
    s << "<text x=\"" << X(d) << "\" y=\"" << top + ph + 16 << "\" text-anchor=\"middle\">" << num(d) << "</text>\n";
  s << "<line x1=\"" << X(part.dsp) << "\" x2=\"" << X(part.dsp) << "\" y1=\"" << top << "\" y2=\"" << top + ph
    << "\" stroke=\"#c33\" stroke-dasharray=\"5,4\"/>\n";
  s << "<text x=\"" << X(part.dsp) - 4 << "\" y=\"" << top + 14 << "\" text-anchor=\"end\" fill=\"#c33\">"
    << xmlEscape(part.device) << ": " << num(part.dsp) << " DSP</text>\n";
  s << "<text x=\"" << left + pw / 2 << "\" y=\"" << H - 18
    << "\" text-anchor=\"middle\">DSP slices (resource model)</text>\n";
  s << "<text transform=\"translate(20," << top + ph / 2 << ") rotate(-90)\" text-anchor=\"middle\">"
    << (objective == Objective::EndToEnd ? "end to end (accelerator + board CPU)" : "latency")
    << ", ms (cost model, sum over networks)</text>\n";
  // Points: fitting filled, not fitting hollow; the front joined by a line.
  std::vector<const PointResult*> front;
  for (const PointResult& r : results) {
    if (!r.complete) continue;
    if (r.on_front) front.push_back(&r);
    const bool fit = r.fits();
    s << "<circle cx=\"" << X(r.resources.dsp) << "\" cy=\"" << Y(objectiveMs(r, objective)) << "\" r=\"4\" fill=\""
      << (fit ? "#3a7bd5" : "none") << "\" stroke=\"" << (fit ? "#3a7bd5" : "#999") << "\"><title>"
      << xmlEscape(r.point.config.name) << (r.point.latency_hiding ? "" : " (no latency hiding)") << ": "
      << num(objectiveMs(r, objective), "%.3f") << " ms, " << num(r.resources.dsp, "%.0f") << " DSP, "
      << num(r.resources.bram36, "%.1f") << " BRAM36, "
      << (r.resources.uram > 0 ? num(r.resources.uram, "%.0f") + " URAM, " : std::string())
      << num(r.resources.lut, "%.0f") << " LUT" << (fit ? "" : "; does not fit: " + xmlEscape(r.why_not_fits))
      << "</title></circle>\n";
  }
  std::sort(front.begin(), front.end(), [](auto* a, auto* b) { return a->resources.dsp < b->resources.dsp; });
  if (!front.empty()) {
    s << "<polyline fill=\"none\" stroke=\"#e08a00\" stroke-width=\"2\" points=\"";
    for (const PointResult* r : front) s << X(r->resources.dsp) << "," << Y(objectiveMs(*r, objective)) << " ";
    s << "\"/>\n";
    for (const PointResult* r : front)
      s << "<circle cx=\"" << X(r->resources.dsp) << "\" cy=\"" << Y(objectiveMs(*r, objective))
        << "\" r=\"5.5\" fill=\"none\" stroke=\"#e08a00\" stroke-width=\"2\"/>\n";
  }
  for (const ChartMarker& m : markers) {
    if (!m.result.complete) continue;
    const double x = X(m.result.resources.dsp), y = Y(objectiveMs(m.result, objective));
    s << "<path d=\"M" << x << "," << y - 8 << " L" << x + 7 << "," << y + 5 << " L" << x - 7 << "," << y + 5
      << " Z\" fill=\"#2a2\" stroke=\"#060\"/>\n";
    s << "<text x=\"" << x + 9 << "\" y=\"" << y - 6 << "\" fill=\"#060\">" << xmlEscape(m.label) << "</text>\n";
  }
  // Legend.
  const double lx = left + pw + 16;
  s << "<circle cx=\"" << lx << "\" cy=\"" << top + 10 << "\" r=\"4\" fill=\"#3a7bd5\"/><text x=\"" << lx + 10
    << "\" y=\"" << top + 14 << "\">fits the part</text>\n";
  s << "<circle cx=\"" << lx << "\" cy=\"" << top + 30 << "\" r=\"4\" fill=\"none\" stroke=\"#999\"/><text x=\""
    << lx + 10 << "\" y=\"" << top + 34 << "\">does not fit</text>\n";
  s << "<line x1=\"" << lx - 6 << "\" x2=\"" << lx + 6 << "\" y1=\"" << top + 50 << "\" y2=\"" << top + 50
    << "\" stroke=\"#e08a00\" stroke-width=\"2\"/><text x=\"" << lx + 10 << "\" y=\"" << top + 54
    << "\">Pareto front</text>\n";
  s << "<path d=\"M" << lx << "," << top + 64 << " L" << lx + 6 << "," << top + 75 << " L" << lx - 6 << "," << top + 75
    << " Z\" fill=\"#2a2\"/><text x=\"" << lx + 10 << "\" y=\"" << top + 74 << "\">shipped config</text>\n";
  s << "</svg>\n";
  return s.str();
}

}  // namespace vdla::explore
