#pragma once
// The one exception type of the toolkit. Every message names the place (file,
// field, line, instruction index) and the reason, so that a user can act on it.
#include <stdexcept>
#include <string>

namespace vdla {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace vdla
