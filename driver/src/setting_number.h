#pragma once
// Numbers in the drivers' settings (environment variables, sysfs files):
// decimal, 0x hex or 0 octal, unsigned, the whole text. One parser for the
// board backends, so that they accept and refuse the same texts.
#include <cstdint>
#include <string>

namespace vdla::driver {

// Throws vdla::Error naming `what` for anything else: a sign (std::stoull
// would read "-1" as 2^64-1), spaces, trailing characters, overflow.
uint64_t parseSettingNumber(const std::string& text, const std::string& what);

}  // namespace vdla::driver
