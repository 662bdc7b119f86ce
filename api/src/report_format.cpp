#include "vdla/api/report_format.h"

#include <cstdio>

namespace vdla::api {

std::string formatNumber(const char* format, double value) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), format, value);
  return buf;
}

std::string formatCount(double n) {
  if (n >= 1e9) return formatNumber("%.2fG", n / 1e9);
  if (n >= 1e6) return formatNumber("%.2fM", n / 1e6);
  if (n >= 1e4) return formatNumber("%.1fk", n / 1e3);
  return formatNumber("%.0f", n);
}

std::string formatBytes(double bytes) {
  if (bytes >= 1 << 30) return formatNumber("%.2f GiB", bytes / (1 << 30));
  if (bytes >= 1 << 20) return formatNumber("%.1f MiB", bytes / (1 << 20));
  if (bytes >= 1 << 10) return formatNumber("%.1f KiB", bytes / (1 << 10));
  return formatNumber("%.0f B", bytes);
}

std::string formatSeconds(double seconds) {
  if (seconds >= 10) return formatNumber("%.1f s", seconds);
  if (seconds >= 1e-3) return formatNumber("%.1f ms", seconds * 1e3);
  return formatNumber("%.1f us", seconds * 1e6);
}

}  // namespace vdla::api
