#pragma once
// Numbers as the reports print them: one printf conversion, and compact
// figures ("11.69M", "44.6 MiB", "123.4 ms").
#include <string>

namespace vdla::api {

// `format` holds one conversion of a double ("%.2f").
std::string formatNumber(const char* format, double value);
std::string formatCount(double n);
std::string formatBytes(double bytes);
std::string formatSeconds(double seconds);

}  // namespace vdla::api
