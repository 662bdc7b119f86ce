#include "setting_number.h"

#include <cctype>
#include <stdexcept>

#include "vdla/hw/error.h"

namespace vdla::driver {

uint64_t parseSettingNumber(const std::string& text, const std::string& what) {
  // std::stoull skips leading space and accepts a sign; a setting starts with a digit.
  if (!text.empty() && std::isdigit(static_cast<unsigned char>(text[0]))) {
    try {
      size_t used = 0;
      const uint64_t v = std::stoull(text, &used, 0);
      if (used == text.size()) return v;
    } catch (const std::out_of_range&) {
      throw Error(what + ": '" + text + "' is out of range (at most 2^64-1)");
    } catch (const std::invalid_argument&) {
    }
  }
  throw Error(what + ": '" + text + "' is not a number");
}

}  // namespace vdla::driver
